// Properties of the simulated world: deterministic, internally consistent (boards, lookups and the
// ground truth tell one story; no aircraft is in two places; times are ordered), time-faithful, and
// calibrated to the published figures it claims.
import { beforeAll, describe, expect, it } from 'vitest';
import { DAY, HOUR, MINUTE } from '../clock.js';
import { loadCatalogue } from '../airports/index.js';
import { calibrate, createSimWorld, groundTruth, SimWorld } from './index.js';
import type { SimLeg } from './day.js';
import { loadSimReference } from './reference.js';
import { arrivalEstimate, departureEstimate, boardRow, flightRecord, settledAt } from './view.js';

const DATE = '2026-03-10';
const MIDNIGHT = Date.parse(`${DATE}T00:00:00Z`);
let world: SimWorld;
let legs: SimLeg[];

beforeAll(() => {
  world = createSimWorld('property-tests');
  legs = world.legsOn(DATE);
});

const partner = (code: string) => world.airline(code);
const catalogue = new Set(loadCatalogue().airports.map((a) => a.iata));

describe('the simulated world', () => {
  it('has realistic traffic: thousands of flights a day, mostly passenger, some cargo, few military and private', () => {
    expect(legs.length).toBeGreaterThan(8000);
    const count = (operation: string) => legs.filter((l) => l.plan.rotation.operation === operation).length;
    expect(count('passenger') / legs.length).toBeGreaterThan(0.95);
    expect(count('cargo')).toBeGreaterThan(20);
    expect(count('private') + count('military')).toBeGreaterThan(0);
    expect(count('private') + count('military')).toBeLessThan(legs.length * 0.01);
    // Every catalogue airport but closed Kharkiv has departures and arrivals.
    for (const iata of catalogue) {
      const at = legs.filter((l) => l.plan.from.iata === iata || l.plan.to.iata === iata).length;
      if (iata === 'HRK') expect(at).toBe(0);
      else expect(at, iata).toBeGreaterThan(0);
    }
  });

  it('is deterministic: a fresh world with the same seed answers the same, whatever was asked first', () => {
    const again = createSimWorld('property-tests');
    again.legsOn('2026-03-11', 'CDG'); // a different question first
    const at = MIDNIGHT + 14 * HOUR;
    for (const airport of ['OTP', 'CDG', 'CPO']) {
      expect(again.board(airport, 'departures', at - 3 * HOUR, at + 6 * HOUR, at)).toEqual(
        world.board(airport, 'departures', at - 3 * HOUR, at + 6 * HOUR, at),
      );
    }
    expect(groundTruth(again, DATE, { airport: 'OTP' })).toEqual(groundTruth(world, DATE, { airport: 'OTP' }));
    const other = createSimWorld('another-seed');
    expect(groundTruth(other, DATE, { airport: 'OTP' })).not.toEqual(groundTruth(world, DATE, { airport: 'OTP' }));
  });

  it('orders every leg’s times', () => {
    for (const leg of legs) {
      expect(leg.scheduledArrival).toBeGreaterThan(leg.scheduledDeparture);
      if (leg.cancelled) {
        expect(leg.cancelledAt).toBeLessThanOrEqual(leg.scheduledDeparture);
        expect(leg.actualDeparture).toBeNull();
        continue;
      }
      expect(leg.actualDeparture!).toBeGreaterThanOrEqual(leg.scheduledDeparture - 5 * MINUTE);
      expect(leg.takeoff!).toBeGreaterThan(leg.actualDeparture!);
      expect(leg.landing!).toBeGreaterThan(leg.takeoff!);
      expect(leg.actualArrival!).toBeGreaterThan(leg.landing!);
      if (leg.divertedAt !== null) {
        expect(leg.divertedAt).toBeGreaterThan(leg.takeoff!);
        expect(leg.divertedAt).toBeLessThan(leg.landing!);
      }
    }
  });

  it('never has an aircraft in two places: each tail flies on from where it landed, after its turnaround', () => {
    const all = [...world.legsOn(addDay(DATE, -1)), ...legs, ...world.legsOn(addDay(DATE, 1))];
    const byTail = new Map<string, SimLeg[]>();
    for (const leg of all) {
      if (leg.cancelled) continue;
      const list = byTail.get(leg.aircraft.registration) ?? [];
      list.push(leg);
      byTail.set(leg.aircraft.registration, list);
    }
    let checked = 0;
    for (const [tail, flown] of byTail) {
      flown.sort((a, b) => a.actualDeparture! - b.actualDeparture!);
      for (let i = 1; i < flown.length; i++) {
        const before = flown[i - 1]!;
        const after = flown[i]!;
        expect(after.actualDeparture!, tail).toBeGreaterThanOrEqual(before.actualArrival!);
        // After a diversion the aircraft is ferried home overnight (not a public flight).
        if (before.divertedTo === null) {
          expect(after.plan.from.iata, `${tail} ${before.plan.designator} → ${after.plan.designator}`).toBe(
            before.plan.to.iata,
          );
          expect(after.actualDeparture! - before.actualArrival!).toBeGreaterThanOrEqual(
            after.plan.rotation.turnaroundMinutes * MINUTE,
          );
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(5000);
  });

  it('flies a daily long-haul out and back that takes over a day with tails in turn, rather than cancelling it for want of the one', () => {
    const days = [-3, -2, -1, 0, 1, 2, 3].map((n) => world.legsOn(addDay(DATE, n)));
    const longHaul = legs.filter((l) => l.plan.rotation.tails.length > 1 && l.plan.rotation.days === 0b1111111);
    expect(new Set(longHaul.map((l) => l.plan.rotation)).size).toBeGreaterThan(5);
    let flown = 0;
    let cancelled = 0;
    for (const leg of longHaul) {
      const rotation = leg.plan.rotation;
      const week = days.flat().filter((l) => l.plan === leg.plan);
      // One instance a day, flown by its tails in turn.
      expect(new Set(week.map((l) => l.aircraft.registration)).size).toBe(rotation.tails.length);
      for (const l of week) {
        if (l.cancelled) cancelled++;
        else flown++;
      }
    }
    // Cancelled as other flights are (about one in sixty), not every day.
    expect(cancelled / (flown + cancelled)).toBeLessThan(0.1);
    // The tail of each day is in the world's aircraft, and flies that rotation's legs only.
    const leg = longHaul[0]!;
    const mine = world.legsOfAircraft(leg.aircraft.registration, MIDNIGHT - 3 * DAY, MIDNIGHT + 3 * DAY);
    expect(mine.length).toBeGreaterThan(0);
    expect(
      mine.every((l) => l.aircraft.registration === leg.aircraft.registration && l.plan.rotation === leg.plan.rotation),
    ).toBe(true);
  });

  it('propagates delay: a late inbound makes its outbound late', () => {
    const reactionary = legs.filter((l) => !l.cancelled && l.readyAt > l.scheduledDeparture + 30 * MINUTE);
    expect(reactionary.length).toBeGreaterThan(100);
    for (const leg of reactionary) expect(leg.actualDeparture!).toBeGreaterThanOrEqual(leg.readyAt - 5 * MINUTE);
  });

  it('tells one story from the departure board, the arrival board and a lookup, at every moment', () => {
    const between = legs.filter((l) => catalogue.has(l.plan.from.iata) && catalogue.has(l.plan.to.iata));
    expect(between.length).toBeGreaterThan(500);
    const sample = between.filter((_, i) => i % Math.ceil(between.length / 150) === 0);
    for (const leg of sample) {
      for (const at of [
        leg.scheduledDeparture - 5 * HOUR,
        leg.scheduledDeparture + 20 * MINUTE,
        leg.scheduledArrival,
        settledAt(leg) + HOUR,
      ]) {
        const departure = find(
          world.board(leg.plan.from.iata, 'departures', leg.scheduledDeparture, leg.scheduledDeparture + 1, at),
          leg,
        );
        const arrival = find(
          world.board(leg.plan.to.iata, 'arrivals', leg.scheduledArrival, leg.scheduledArrival + 1, at),
          leg,
        );
        const [record] = world.lookup(leg.plan.designator, leg.flightDate, at, { origin: leg.plan.from.iata });
        expect(record, leg.plan.designator).toBeDefined();
        expect(departure.scheduledAt).toBe(record!.departure.scheduled);
        expect(arrival.scheduledAt).toBe(record!.arrival.scheduled);
        expect(departure.estimatedAt).toBe(record!.departure.estimated);
        expect(arrival.estimatedAt).toBe(record!.arrival.estimated);
        expect(departure.actualAt).toBe(record!.departure.actual);
        expect(arrival.actualAt).toBe(record!.arrival.actual);
        expect(departure.cancelled).toBe(record!.cancelled);
        expect(arrival.cancelled).toBe(record!.cancelled);
        expect(arrival.diverted).toBe(record!.diverted);
        expect(departure.registration).toBe(record!.aircraft!.registration);
        expect(arrival.registration).toBe(record!.aircraft!.registration);
        expect(departure.callsign).toBe(record!.callsign);
      }
      // Once settled, the lookup is the ground truth.
      const [settled] = world.lookup(leg.plan.designator, leg.flightDate, settledAt(leg), {
        origin: leg.plan.from.iata,
      });
      const [truth] = groundTruth(world, leg.flightDate, { airport: leg.plan.from.iata }).filter(
        (t) => t.flightNumber === leg.plan.designator && t.origin === leg.plan.from.iata,
      );
      expect(settled!.settled).toBe(true);
      expect(settled!.departure.actual === null ? null : new Date(settled!.departure.actual).toISOString()).toBe(
        truth!.actualDeparture,
      );
      if (truth!.status !== 'diverted') {
        expect(settled!.arrival.actual === null ? null : new Date(settled!.arrival.actual).toISOString()).toBe(
          truth!.actualArrival,
        );
      }
    }
  });

  it('shows boards as they were: statuses evolve, estimates appear and converge, tails appear once known', () => {
    const late = legs.find(
      (l) =>
        !l.cancelled &&
        l.divertedTo === null &&
        catalogue.has(l.plan.from.iata) &&
        catalogue.has(l.plan.to.iata) &&
        l.plan.rotation.operation === 'passenger' &&
        l.actualDeparture! - l.scheduledDeparture > 70 * MINUTE,
    )!;
    expect(late).toBeDefined();
    const row = (board: 'departures' | 'arrivals', at: number) => boardRow(late, board, at);
    const early = late.scheduledDeparture - 12 * HOUR;
    expect(row('departures', early).status).toBe('Scheduled');
    expect(row('departures', early).estimatedAt).toBeNull();
    expect(row('departures', early).registration).toBeNull();
    expect(row('departures', late.scheduledDeparture - HOUR).registration).toBe(late.aircraft.registration);
    expect(row('arrivals', early).status).toBe('Scheduled');

    const beforeOff = late.actualDeparture! - 5 * MINUTE;
    expect(row('departures', beforeOff).estimatedAt).not.toBeNull();
    expect(row('departures', beforeOff).actualAt).toBeNull();
    expect(row('departures', late.actualDeparture!).status).toMatch(/^Departed \d\d:\d\d$/);
    expect(row('departures', late.actualDeparture!).actualAt).toBe(late.actualDeparture);
    const airborne = row('arrivals', late.takeoff! + 5 * MINUTE);
    expect(airborne.status).toMatch(/^Expected \d\d:\d\d$/);
    expect(airborne.estimatedAt).not.toBeNull();
    const landed = row('arrivals', late.actualArrival!);
    expect(landed.status).toMatch(/^Landed \d\d:\d\d$/);
    expect(landed.actualAt).toBe(late.actualArrival);
    expect(landed.estimatedAt).toBe(late.actualArrival);
    expect(
      row('departures', late.takeoff! + MINUTE).runway === null ||
        typeof row('departures', late.takeoff! + MINUTE).runway === 'string',
    ).toBe(true);

    // The departure estimate settles on the truth; before that, at least one earlier estimate differed.
    const estimates = new Set<number | null>();
    for (let at = late.scheduledDeparture - 4 * HOUR; at <= late.actualDeparture!; at += 10 * MINUTE)
      estimates.add(departureEstimate(late, at));
    expect(estimates.has(null)).toBe(true);
    expect(departureEstimate(late, late.actualDeparture!)).toBe(late.actualDeparture);
    expect(arrivalEstimate(late, late.actualArrival!)).toBe(late.actualArrival);

    // Passenger departures pass through the gate statuses; an on-time one through check-in too (a
    // late one may show its new time instead).
    const statusesOf = (leg: SimLeg) => {
      const statuses = new Set<string>();
      for (let at = leg.scheduledDeparture - 4 * HOUR; at <= leg.actualDeparture! + 5 * MINUTE; at += 5 * MINUTE) {
        statuses.add(boardRow(leg, 'departures', at).status.replace(/ \d\d:\d\d$/, ''));
      }
      return [...statuses];
    };
    expect(statusesOf(late)).toEqual(
      expect.arrayContaining(['Scheduled', 'Estimated', 'Boarding', 'Gate closed', 'Departed']),
    );
    const punctual = legs.find(
      (l) =>
        !l.cancelled &&
        l.plan.rotation.operation === 'passenger' &&
        l.readyAt <= l.scheduledDeparture &&
        l.actualDeparture! - l.scheduledDeparture < 5 * MINUTE,
    )!;
    expect(statusesOf(punctual)).toEqual([
      'Scheduled',
      'Check-in open',
      'Go to gate',
      'Boarding',
      'Gate closed',
      'Departed',
    ]);
  });

  it('announces cancellations when the carrier does, and diversions with or without the airport', () => {
    const cancelled = legs.find((l) => l.cancelled && l.cancelledAt! < l.scheduledDeparture - HOUR)!;
    expect(boardRow(cancelled, 'departures', cancelled.cancelledAt! - MINUTE).cancelled).toBe(false);
    expect(boardRow(cancelled, 'departures', cancelled.cancelledAt!).status).toBe('Cancelled');
    expect(boardRow(cancelled, 'arrivals', cancelled.cancelledAt!).cancelled).toBe(true);

    const diverted = [...legs, ...world.legsOn(addDay(DATE, 1)), ...world.legsOn(addDay(DATE, 2))].filter(
      (l) => l.divertedTo !== null,
    );
    expect(diverted.length).toBeGreaterThan(3);
    for (const leg of diverted) {
      expect(boardRow(leg, 'arrivals', leg.divertedAt! - MINUTE).diverted).toBe(false);
      const row = boardRow(leg, 'arrivals', leg.divertedAt!);
      expect(row.diverted).toBe(true);
      expect(row.actualAt).toBeNull();
      if (leg.diversionNamed) {
        expect(row.divertedTo).toEqual({ iata: leg.divertedTo!.iata, icao: leg.divertedTo!.icao });
        expect(row.status).toBe(`Diverted to ${leg.divertedTo!.city}`);
      } else {
        expect(row.divertedTo).toBeNull();
        expect(row.status).toBe('Diverted');
      }
      const record = flightRecord(leg, settledAt(leg), leg.plan.designator, partner);
      expect(record.phase).toBe('diverted');
      expect(record.settled).toBe(true);
      expect(record.arrival.actual).toBeNull();
    }
  });

  it('answers lookups by IATA, ICAO and codeshare designators; unknown numbers find nothing', () => {
    const leg = legs.find((l) => l.plan.codeshares.length > 0 && !l.cancelled)!;
    const at = settledAt(leg) + DAY;
    const [byIata] = world.lookup(leg.plan.designator, leg.flightDate, at);
    const [byIcao] = world.lookup(leg.plan.icaoDesignator, leg.flightDate, at);
    const [byCodeshare] = world.lookup(leg.plan.codeshares[0]!, leg.flightDate, at);
    expect(byIata!.departure).toEqual(byIcao!.departure);
    expect(byIata!.codeshares).toEqual(leg.plan.codeshares);
    expect(byCodeshare!.flightIata).toBe(leg.plan.codeshares[0]);
    expect(byCodeshare!.operating).toMatchObject({ flightIata: leg.plan.designator });
    expect(byCodeshare!.departure).toEqual(byIata!.departure);
    expect(world.lookup('ZZ9999', leg.flightDate, at)).toEqual([]);
    expect(world.lookup(leg.plan.designator, addDay(leg.flightDate, 400), at).length).toBeLessThanOrEqual(1);
    // The origin filter narrows to the leg; a wrong one finds nothing.
    expect(world.lookup(leg.plan.designator, leg.flightDate, at, { origin: leg.plan.to.iata })).toEqual([]);
  });

  it('gives aircraft registrations in their country’s format with ICAO addresses from its block', () => {
    const reference = loadSimReference();
    for (const leg of legs.slice(0, 3000)) {
      const { registration, icao24, airline } = leg.aircraft;
      const country = reference.registrations.get(airline.registrationCountry)!;
      expect(registration.startsWith(country.prefix), registration).toBe(true);
      const address = parseInt(icao24, 16);
      expect(address).toBeGreaterThanOrEqual(parseInt(country.icao24[0], 16));
      expect(address).toBeLessThanOrEqual(parseInt(country.icao24[1], 16));
      const record = world.aircraft(registration, MIDNIGHT)!;
      expect(record).toMatchObject({ registration, icao24, typeIcao: leg.aircraft.type.icao });
    }
    const tails = new Map<string, string>();
    for (const aircraft of world.timetable(DATE).aircraft.values()) {
      expect(tails.get(aircraft.icao24), `${aircraft.registration} shares ${aircraft.icao24}`).toBeUndefined();
      tails.set(aircraft.icao24, aircraft.registration);
    }
    expect(world.aircraft('N0NE', MIDNIGHT)).toBeUndefined();
  });

  it('keeps Kharkiv closed since the war while earlier dates still fly', () => {
    expect(world.legsOn('2026-03-10', 'HRK')).toEqual([]);
    expect(world.legsOn('2021-06-10', 'HRK').length).toBeGreaterThan(0);
  });

  it('follows the published figures (the table in docs/simulation.md)', () => {
    const c = calibrate(world, DATE, 2);
    expect(c.arrivalDelayedOver15Share).toBeGreaterThan(0.22);
    expect(c.arrivalDelayedOver15Share).toBeLessThan(0.38);
    expect(c.cancelledShare).toBeGreaterThan(0.008);
    expect(c.cancelledShare).toBeLessThan(0.03);
    expect(c.divertedShare).toBeGreaterThan(0.0003);
    expect(c.divertedShare).toBeLessThan(0.004);
    expect(c.earlyArrivalShare).toBeGreaterThan(0.3);
    expect(c.over180Share).toBeGreaterThan(0.002);
    expect(c.over180Share).toBeLessThan(0.02);
    expect(c.reactionaryShare).toBeGreaterThan(0.3);
  });
});

describe('the reference data', () => {
  it('is complete: every carrier, type and registration country a timetable needs exists', () => {
    const reference = loadSimReference();
    expect([...reference.traffic.keys()].sort()).toEqual([...catalogue].sort());
    for (const [airport, traffic] of reference.traffic) {
      const shares = traffic.airlines.reduce((sum, a) => sum + a.share, 0);
      expect(Math.abs(shares - 1), airport).toBeLessThan(0.02);
      for (const entry of traffic.airlines) {
        const airline = reference.airlines.get(entry.iata ?? entry.icao ?? '');
        expect(airline, `${airport}: ${entry.iata ?? entry.icao}`).toBeDefined();
        expect(reference.registrations.get(airline!.registrationCountry), airline!.icao).toBeDefined();
        for (const { type } of airline!.fleet)
          expect(reference.types.get(type), `${airline!.icao} ${type}`).toBeDefined();
      }
    }
  });
});

function find<T extends { flightIcao: string | null; scheduledAt: number }>(rows: T[], leg: SimLeg): T {
  const row = rows.find((r) => r.flightIcao === leg.plan.icaoDesignator);
  if (!row) throw new Error(`${leg.plan.designator} missing from a board`);
  return row;
}

function addDay(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
}
