// The event rules of spec 3.2 / 6.1, on rows made by hand and on real rows of the simulated world
// observed every 30 minutes through a day.
import { describe, expect, it } from 'vitest';
import { HOUR, MINUTE } from '../clock.js';
import type { BoardRow } from '../providers/index.js';
import { boardRowAt } from '../../test/helpers/board-row.js';
import { createSimWorld } from '../sim/index.js';
import { boardRow } from '../sim/view.js';
import { disruptionOf, observe, type EngineEvent, type Watch } from './engine.js';
import { boardCompensation } from './event-data.js';
import { loadReferenceAirports } from '../airports/index.js';
import { sharedRegion } from '../compensation/index.js';

const T = Date.UTC(2026, 2, 10, 12, 0);

const row = (patch: Partial<BoardRow> = {}): BoardRow => boardRowAt(T, patch);

/** Feeds observations in order; returns the event types of each. */
function run(rows: BoardRow[], start = T - 6 * HOUR): { types: string[][]; events: EngineEvent[][]; watch: Watch } {
  let watch: Watch | null = null;
  const types: string[][] = [];
  const events: EngineEvent[][] = [];
  rows.forEach((r, i) => {
    const result = observe(watch, r, start + i * 30 * MINUTE, () => 'flight-1');
    watch = result.watch;
    events.push(result.events);
    types.push(result.events.map((e) => e.type.replace('flight.', '')));
  });
  return { types, events, watch: watch! };
}

describe('the event rules', () => {
  it('sends flight.landed once, when an arrival’s actual time appears, and never for a departure, a cancellation or a diversion', () => {
    const arrival = (patch: Partial<BoardRow> = {}) => row({ direction: 'arrival', ...patch });
    const landed = { actualAt: T + 5 * MINUTE, estimatedAt: T + 5 * MINUTE, status: 'Landed' };
    expect(run([arrival(), arrival({ ...landed }), arrival({ ...landed, status: 'Arrived' })]).types).toEqual([
      ['tracked'],
      ['status_changed', 'landed'],
      ['status_changed'],
    ]);
    // First seen already down: tracked, then landed.
    expect(run([arrival(landed)]).types).toEqual([['tracked', 'landed']]);
    expect(run([row(), row({ actualAt: T, status: 'Departed' })]).types.flat()).not.toContain('landed');
    expect(run([arrival({ cancelled: true, actualAt: T })]).types.flat()).not.toContain('landed');
    expect(run([arrival({ diverted: true, actualAt: T })]).types.flat()).not.toContain('landed');
    // A watch stored before the rule (no `landed`) that then lands sends it once.
    const { watch } = run([arrival()]);
    const { landed: _, ...older } = watch;
    const next = observe(older, arrival(landed), T, () => 'flight-1');
    expect(next.events.map((e) => e.type)).toContain('flight.landed');
    expect(observe(next.watch, arrival(landed), T, () => 'flight-1').events).toEqual([]);
  });

  it('tracks once, then fires only on changes', () => {
    const { types } = run([row(), row(), row({ status: 'Check-in open' }), row({ status: 'Check-in open' })]);
    expect(types).toEqual([['tracked'], [], ['status_changed'], []]);
  });

  it('fires delayed on the crossing only, delay_changed on each whole-minute move, recovered on the way back', () => {
    const { types, events } = run([
      row({ estimatedAt: T + 5 * MINUTE, status: 'Scheduled' }),
      row({ estimatedAt: T + 40 * MINUTE, status: 'Estimated 12:40' }),
      row({ estimatedAt: T + 40 * MINUTE + 30_000, status: 'Estimated 12:40' }), // under a minute: nothing
      row({ estimatedAt: T + 55 * MINUTE, status: 'Estimated 12:55' }), // still delayed: no second delayed
      row({ estimatedAt: T + 10 * MINUTE, status: 'Estimated 12:10' }),
    ]);
    expect(types).toEqual([
      ['tracked'],
      ['status_changed', 'delay_changed', 'delayed'],
      [],
      ['status_changed', 'delay_changed'],
      ['status_changed', 'delay_changed', 'recovered'],
    ]);
    expect(events[1]![2]!.previous).toEqual({
      status: 'Scheduled',
      estimatedAt: T + 5 * MINUTE,
      delayMinutes: 5,
      disruption: 'on_time',
    });
  });

  it('fires cancelled once and qualifies a cancelled passenger departure once', () => {
    const { types, events, watch } = run([
      row(),
      row({ cancelled: true, status: 'Cancelled' }),
      row({ cancelled: true, status: 'Cancelled' }),
    ]);
    expect(types).toEqual([['tracked'], ['status_changed', 'cancelled', 'qualifying'], []]);
    expect(events[1]![2]!.qualification).toMatchObject({
      reason: 'cancelled',
      delayMinutes: null,
      minutesBeforeScheduled: 5 * 60 + 30,
    });
    expect(watch).toMatchObject({ cancelledFired: true, disruption: 'cancelled' });
  });

  it('never qualifies a cancelled arrival, cargo, or a delay under three hours', () => {
    expect(run([row({ direction: 'arrival', cancelled: true, status: 'Cancelled' })]).types).toEqual([
      ['tracked', 'cancelled'],
    ]);
    expect(run([row({ operation: 'cargo', estimatedAt: T + 200 * MINUTE })]).types).toEqual([['tracked', 'delayed']]);
    expect(run([row({ estimatedAt: T + 179 * MINUTE })]).types).toEqual([['tracked', 'delayed']]);
    const late = run([row({ direction: 'arrival', estimatedAt: T + 180 * MINUTE })]);
    expect(late.types).toEqual([['tracked', 'delayed', 'qualifying']]);
    expect(late.events[0]![2]!.qualification).toMatchObject({ reason: 'delayed', delayMinutes: 180 });
  });

  it('fires diverted with divert_updated when the airport is named, changed or cleared', () => {
    const { types } = run([
      row({ direction: 'arrival', status: 'Expected 14:00', estimatedAt: T }),
      row({ direction: 'arrival', status: 'Diverted', diverted: true, estimatedAt: T }),
      row({
        direction: 'arrival',
        status: 'Diverted to Constanța',
        diverted: true,
        divertedTo: { iata: 'CND', icao: 'LRCK' },
        estimatedAt: T,
      }),
      row({ direction: 'arrival', status: 'Diverted', diverted: true, estimatedAt: T }),
    ]);
    expect(types).toEqual([
      ['tracked'],
      ['status_changed', 'diverted'],
      ['status_changed', 'divert_updated'],
      ['status_changed', 'divert_updated'],
    ]);
  });

  it('classifies rows', () => {
    expect(disruptionOf(row())).toBe('scheduled');
    expect(disruptionOf(row({ estimatedAt: T + 14 * MINUTE }))).toBe('on_time');
    expect(disruptionOf(row({ actualAt: T + 15 * MINUTE }))).toBe('delayed');
    expect(disruptionOf(row({ cancelled: true }))).toBe('cancelled');
    expect(disruptionOf(row({ diverted: true }))).toBe('diverted');
  });
});

describe('diversions to an airport serving the same city or region', () => {
  const diverted = (iata: string | null, minutesLate: number) =>
    row({
      status: iata ? `Diverted to ${iata}` : 'Diverted',
      diverted: true,
      divertedTo: iata ? { iata, icao: null } : null,
      estimatedAt: T + minutesLate * MINUTE,
    });
  const qualifications = (rows: BoardRow[]) =>
    run(rows)
      .events.flat()
      .filter((e) => e.type === 'flight.qualifying')
      .map((e) => e.qualification!);

  it('does not qualify a departure by the diversion alone, only by a delay of 3 hours', () => {
    // OTP → LTN landing at Stansted: London.
    const { types } = run([row(), diverted('STN', 100)]);
    expect(types[1]).toContain('diverted');
    expect(types[1]).not.toContain('qualifying');
    expect(qualifications([row(), diverted('STN', 100), diverted('STN', 179)])).toEqual([]);
    expect(qualifications([row(), diverted('STN', 100), diverted('STN', 190)])).toMatchObject([
      { reason: 'delayed', delayMinutes: 190 },
    ]);
  });

  it('qualifies a diversion to another region, or to an airport the board does not name, as a diversion', () => {
    expect(qualifications([row(), diverted('BHX', 10)])).toMatchObject([{ reason: 'diverted', delayMinutes: 10 }]);
    expect(qualifications([row(), diverted(null, 10)])).toMatchObject([{ reason: 'diverted' }]);
  });

  it('prices a diverted row as a diversion: within the city as a delay, elsewhere as a cancellation', () => {
    const airports = loadReferenceAirports();
    const arrival = (divertedTo: string) =>
      row({
        direction: 'arrival',
        flightNumber: 'BA 178',
        flightIata: 'BA178',
        flightIcao: 'BAW178',
        callsign: 'BAW178',
        airline: { name: 'British Airways', iata: 'BA', icao: 'BAW' },
        origin: { iata: 'JFK', icao: 'KJFK' },
        destination: { iata: 'LGW', icao: 'EGKK' },
        diverted: true,
        divertedTo: { iata: divertedTo, icao: null },
      });
    // An arrival qualifies as `delayed` (3 h 20): at Heathrow, a London airport, the long band is halved;
    // at Manchester it is a cancellation, owed in full.
    expect(boardCompensation(airports, arrival('LHR'), 'delayed', 200)).toMatchObject({
      amountEur: null,
      amountGbp: 260,
      band: 'long',
    });
    expect(boardCompensation(airports, arrival('MAN'), 'delayed', 200)).toMatchObject({
      amountEur: null,
      amountGbp: 520,
      band: 'long',
    });
    // A departure diverted within London, 3 h 10 late at the gate: the delay is owed.
    expect(boardCompensation(airports, diverted('STN', 190), 'delayed', 190)).toMatchObject({
      amountEur: 400,
      amountGbp: 350,
      band: 'medium',
    });
    expect(boardCompensation(airports, diverted('BHX', 10), 'diverted', 10)).toMatchObject({
      amountEur: 400,
      amountGbp: 350,
    });
  });
});

describe('the rules over a simulated day', () => {
  const world = createSimWorld('engine-tests');
  const legs = world.legsOn('2026-03-10').filter((l) => l.plan.rotation.operation === 'passenger');

  it('follows every leg’s story: tracked once, at most one cancellation, qualifying exactly for the 3-hour cases', () => {
    let checked = 0;
    for (const leg of legs.filter((_, i) => i % 40 === 0)) {
      for (const board of ['departures', 'arrivals'] as const) {
        const scheduled = board === 'departures' ? leg.scheduledDeparture : leg.scheduledArrival;
        const rows: BoardRow[] = [];
        for (let at = scheduled - 12 * HOUR; at <= scheduled + 14 * HOUR; at += 30 * MINUTE)
          rows.push(boardRow(leg, board, at));
        const { types } = run(rows, scheduled - 12 * HOUR);
        const all = types.flat();
        expect(all.filter((t) => t === 'tracked')).toHaveLength(1);
        expect(all.filter((t) => t === 'cancelled').length).toBe(leg.cancelled ? 1 : 0);
        expect(all.filter((t) => t === 'qualifying').length).toBeLessThanOrEqual(1);
        const finalDelay = leg.cancelled
          ? null
          : Math.trunc(((board === 'departures' ? leg.actualDeparture! : leg.actualArrival!) - scheduled) / MINUTE);
        const diverted = leg.divertedTo !== null;
        // A diversion the board names as within the destination's city or region qualifies only as a delay.
        const sameCity =
          diverted && leg.diversionNamed && sharedRegion(leg.plan.to.iata, leg.divertedTo!.iata) !== undefined;
        const shouldQualify =
          board === 'departures'
            ? leg.cancelled || (diverted && !sameCity) || finalDelay! >= 180
            : !leg.cancelled && !diverted && finalDelay! >= 180;
        // A delay that reached three hours only in an earlier estimate may qualify too; never the reverse.
        if (shouldQualify) expect(all, `${leg.plan.designator} ${board}`).toContain('qualifying');
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(400);
  });
});
