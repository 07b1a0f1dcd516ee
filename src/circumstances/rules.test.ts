// The five rules once wrong (docs/weather.md, "The finding"), each argued from how the world works, as tables:
// every row fails on the rules before it.
import { describe, expect, it } from 'vitest';
import { HOUR, MINUTE } from '../clock.js';
import { ownCause, type EndEvidence, type LegEvidence } from './attribute.js';
import { carrierStrike, signals, type OwnRow } from './figures.js';
import { byCarrier, carrierDay, pastSignals } from './past.js';
import type { Leg } from './rotation.js';
import type { BoardSighting, PastMovement } from './shapes.js';
import { flagsOf, readReport, severityOf } from '../weather/index.js';

/** A clean report at the time: nothing of the weather explains anything. */
function calm(raw: string, hhmm: string) {
  const report = readReport(raw, at(hhmm));
  const flags = flagsOf(report);
  return [{ report, flags, severity: severityOf(report, flags) }];
}

const T = Date.parse('2026-02-20T00:00:00Z');
const at = (hhmm: string) => T + Number(hhmm.slice(0, 2)) * HOUR + Number(hhmm.slice(3)) * MINUTE;
const usual = { delayed: 2, cancelled: 0, shortNotice: 0, day: 1 };

function sighting(
  flight: string,
  carrier: string,
  when: number,
  ahead: number,
  over: Partial<BoardSighting> = {},
): BoardSighting {
  return {
    type: 'flight.cancelled',
    flightId: `fl_${flight}_${over.board ?? 'departures'}`,
    flight,
    airport: 'CIA',
    board: 'departures',
    scheduledAt: when,
    carrier,
    seenAt: when - ahead,
    ...over,
  };
}

const own = (designator: string, carrier: string, when: number): OwnRow => ({
  board: 'departures',
  scheduledAt: when,
  carrier,
  designators: [designator],
});

describe("the flight's own cancellation is found by its designator, not by its carrier and minute", () => {
  // AF7127 and AF5489 both leave CDG at 10:00; only AF5489 was cancelled, the evening before.
  const today = [sighting('AFR5489', 'AF', at('10:00'), 14 * HOUR, { airport: 'CDG' })];
  it.each([
    ['another flight of its carrier at the same minute', 'AFR7127', null],
    ['the flight itself', 'AFR5489', at('10:00') - 14 * HOUR],
  ])('%s', (_, designator, seen) => {
    expect(signals('CDG', at('10:00'), today, 0, usual, own(designator, 'AF', at('10:00'))).cancelledSeenAt).toBe(seen);
  });
});

describe("an airport's wave of cancellations counts the flight's own carrier, but for the flight and its aircraft's other leg", () => {
  // Ciampino, served by two carriers: its failure cancels FR's flights on the day, and one of W6's.
  const base = at('10:00');
  const fr = (n: number) =>
    Array.from({ length: n }, (_, i) => sighting(`RYR${100 + i}`, 'FR', base + i * 20 * MINUTE, HOUR));
  it.each([
    ['the failure: five more of its carrier and one of another', [...fr(6), sighting('WZZ1', 'W6', base, HOUR)], true],
    ["the flight and its aircraft's way back alone", fr(2), false],
  ])('%s', (_, today, wave) => {
    expect(signals('CIA', base, today, 0, usual, own('RYR100', 'FR', base)).cancelWave).toBe(wave);
  });
});

describe("a past day's wave counts the carrier only where others flying then were hit too", () => {
  const base = at('10:00');
  const move = (flight: string, carrier: string, cancelled: boolean, i: number): PastMovement => ({
    board: 'departures',
    flight,
    designators: [flight],
    carrier,
    scheduledAt: base + i * 10 * MINUTE,
    at: cancelled ? null : base + i * 10 * MINUTE,
    cancelled,
    diverted: false,
    registration: null,
    other: 'STN',
    airport: 'STN',
    actualAt: cancelled ? null : base + i * 10 * MINUTE,
    otherScheduledAt: null,
    otherActualAt: null,
  });
  const flight = own('FR0', 'FR', base);
  const day = { from: T, to: T + 24 * HOUR };
  it.each([
    // Ciampino's failure: FR's flights and the few others alike.
    [
      "one carrier's airport, all hit",
      [
        ...Array.from({ length: 8 }, (_, i) => move(`FR${i}`, 'FR', true, i)),
        move('W61', 'W6', true, 8),
        move('W62', 'W6', false, 9),
      ],
      true,
    ],
    // A carrier's own bad morning at a busy airport: its flights cancelled, nobody else's.
    [
      'only the carrier, others flying',
      [
        ...Array.from({ length: 8 }, (_, i) => move(`FR${i}`, 'FR', true, i)),
        ...Array.from({ length: 10 }, (_, i) => move(`EZ${i}`, 'U2', false, i)),
      ],
      false,
    ],
  ])('%s', (_, movements, wave) => {
    expect(pastSignals('CIA', base, movements, day, flight).cancelWave).toBe(wave);
  });
});

describe('a strike day does not explain a cancellation made at short notice', () => {
  const flight: Leg = {
    ref: { flightNumber: 'FR6113', flightDate: '2026-02-20', origin: 'STN', destination: 'BCN' },
    designators: ['FR6113'],
    origin: 'STN',
    destination: 'BCN',
    scheduledDeparture: at('10:00'),
    scheduledArrival: at('12:10'),
    actualDeparture: null,
    actualArrival: null,
    cancelled: true,
    diverted: false,
  };
  const struck = (seenAhead: number | null): EndEvidence => ({
    airport: 'STN',
    at: at('10:00'),
    asked: { from: at('09:00'), to: at('10:30') },
    weather: calm('EGSS 200950Z 24008KT 9999 SCT025 08/04 Q1012', '09:50'),
    boardsSeen: 'watched',
    boards: {
      figures: {
        airport: 'STN',
        from: '',
        to: '',
        cancelled: 20,
        delayed: 2,
        usual: { cancelled: 1, delayed: 5 },
        baseline: 'days_before',
      },
      announcements: true,
      carrierDay: false,
      delayWave: false,
      cancelWave: false,
      divertWave: 0,
      strikeDay: true,
      plannedByOthers: 0,
      cancelledSeenAt: seenAhead === null ? null : at('10:00') - seenAhead,
    },
  });
  const quietEnd: EndEvidence = {
    ...struck(null),
    airport: 'BCN',
    weather: calm('LEBL 201150Z 18006KT CAVOK 16/08 Q1018', '11:50'),
    boards: { ...struck(null).boards!, strikeDay: false },
  };
  const evidence = (seenAhead: number | null): LegEvidence => ({
    leg: flight,
    departure: struck(seenAhead),
    arrival: quietEnd,
    carrierStrike: false,
    grounded: true,
  });
  it.each([
    ['cancelled two days ahead', 48 * HOUR, 'third_party_strike'],
    ['cancellation not seen', null, 'third_party_strike'],
    ['cancelled 1.4 hours ahead', 1.4 * HOUR, 'technical'],
  ])('%s', (_, ahead, cause) => {
    expect(ownCause(evidence(ahead), 'cancelled').cause).toBe(cause);
  });
});

describe("a carrier's strike is a large part of its flights, each counted once", () => {
  const planned = (flight: string, airport: string, i: number, board: 'departures' | 'arrivals' = 'departures') =>
    sighting(flight, 'BT', at('06:00') + i * HOUR, 20 * HOUR, { airport, board, flightId: `fl_${flight}_${board}` });
  // A small carrier's two rotations its crew could not fly, each flight on both its boards.
  const crews = ['BTI1:RIX:TLL', 'BTI2:TLL:RIX', 'BTI3:RIX:VNO', 'BTI4:VNO:RIX'].flatMap((f, i) => {
    const [flight, from, to] = f.split(':') as [string, string, string];
    return [planned(flight, from, i), planned(flight, to, i, 'arrivals')];
  });
  const strike = Array.from({ length: 12 }, (_, i) => planned(`BTI${10 + i}`, ['RIX', 'TLL', 'VNO', 'OSL'][i % 4]!, i));
  it.each([
    ['two crew rotations', crews, false],
    ['a dozen flights across its network', strike, true],
  ])('%s', (_, today, struck) => {
    expect(carrierStrike(today, 0)).toBe(struck);
  });
});

describe("a past day's strike stops every airline; one carrier's cancellations while the others flew are its own", () => {
  // A day at Stansted, a flight an hour from 05:00 to 23:00 for each of FR (40 flights), U2, W6 and LS (10 each).
  const day = { from: T, to: T + 24 * HOUR };
  const flights = (carrier: string, n: number, cancelled: (i: number) => boolean): PastMovement[] =>
    Array.from({ length: n }, (_, i) => {
      const when = T + (5 + (i * 18) / n) * HOUR;
      return {
        board: 'departures',
        flight: `${carrier}${i}`,
        designators: [`${carrier}${i}`],
        carrier,
        scheduledAt: when,
        at: cancelled(i) ? null : when,
        cancelled: cancelled(i),
        diverted: false,
        registration: null,
        other: 'DUB',
        airport: 'STN',
        actualAt: cancelled(i) ? null : when,
        otherScheduledAt: null,
        otherActualAt: null,
      };
    });
  const others = (cancelled: (i: number) => boolean) => ['U2', 'W6', 'LS'].flatMap((c) => flights(c, 10, cancelled));
  const fr = own('FR0', 'FR', T + 5 * HOUR);
  it.each([
    [
      "the carrier's own: a third of its flights, one of each other airline's",
      [...flights('FR', 40, (i) => i % 3 === 0), ...others((i) => i === 4)],
      false,
      true,
    ],
    [
      "a strike: four in ten of every airline's",
      [...flights('FR', 40, (i) => i % 5 < 2), ...others((i) => i % 5 < 2)],
      true,
      false,
    ],
  ])('%s', (_, movements, strike, carrier) => {
    const s = pastSignals('STN', T + 5 * HOUR, movements, day, fr);
    expect([s.strikeDay, s.carrierDay]).toEqual([strike, carrier]);
  });
});

describe("watched boards: one carrier's day of cancellations at its hub is its own, not a strike of the airport's staff", () => {
  // Vienna, 20 October: Austrian (OS) cancels 70 % of its flights, announced the day before; three other
  // airlines cancel their usual one each. Nearly every OS flight touches Vienna, so its network's count
  // holds Vienna at half or more and does not show its strike (`carrierStrike`).
  const base = T + 5 * HOUR;
  const when = (i: number, n: number) => base + Math.floor((i * 18 * HOUR) / n);
  const os = Array.from({ length: 40 }, (_, i) =>
    sighting(`AUA${100 + i}`, 'OS', when(i, 40), 20 * HOUR, { airport: 'VIE' }),
  ).filter((_, i) => i % 10 < 7);
  const others = ['LH', 'FR', 'W6'].map((c, i) =>
    sighting(`${c}9${i}`, c, when(i * 7, 40), 20 * HOUR, { airport: 'VIE' }),
  );
  const kept = (carrier: string, n: number, cancelled: (i: number) => boolean, other = 'BER'): PastMovement[] =>
    Array.from({ length: n }, (_, i) => ({
      board: 'departures',
      flight: `${carrier}${i}`,
      designators: [`${carrier}${i}`],
      carrier,
      scheduledAt: when(i, n),
      at: cancelled(i) ? null : when(i, n),
      cancelled: cancelled(i),
      diverted: false,
      registration: null,
      other: `${other}${i % 8}`,
      airport: 'VIE',
      actualAt: cancelled(i) ? null : when(i, n),
      otherScheduledAt: null,
      otherActualAt: null,
    }));
  const flight = { ...own('AUA100', 'OS', base), other: 'BER0' };
  const watched = signals('VIE', base, [...os, ...others], 0, usual, flight);
  it('the sightings alone read as a strike day', () => expect(watched.strikeDay).toBe(true));
  it.each([
    [
      "the others flew: the carrier's own",
      [...kept('OS', 40, (i) => i % 10 < 7), ...['LH', 'FR', 'W6'].flatMap((c) => kept(c, 12, (i) => i === 0))],
      false,
      true,
    ],
    [
      'every airline cancelled: a strike',
      [...kept('OS', 40, (i) => i % 10 < 7), ...['LH', 'FR', 'W6'].flatMap((c) => kept(c, 12, (i) => i % 2 === 0))],
      true,
      false,
    ],
  ])('%s', (_, day, strike, carrier) => {
    const s = byCarrier(watched, day, flight);
    expect([s.strikeDay, s.carrierDay]).toEqual([strike, carrier]);
  });
});

describe("a carrier's day leaves out its flights to the flight's other end, whose own strike cancels those", () => {
  // Stansted: FR cancels its twelve flights to Barcelona (a strike there), flies the rest; others fly.
  const base = T + 5 * HOUR;
  const move = (
    carrier: string,
    i: number,
    other: string,
    cancelled: boolean,
    registration: string | null = null,
  ): PastMovement => ({
    board: 'departures',
    flight: `${carrier}${i}`,
    designators: [`${carrier}${i}`],
    carrier,
    scheduledAt: base + i * 15 * MINUTE,
    at: cancelled ? null : base + i * 15 * MINUTE,
    cancelled,
    diverted: false,
    registration,
    other,
    airport: 'STN',
    actualAt: cancelled ? null : base + i * 15 * MINUTE,
    otherScheduledAt: null,
    otherActualAt: null,
  });
  const barcelona = [
    ...Array.from({ length: 12 }, (_, i) => move('FR', i, 'BCN', true)),
    ...Array.from({ length: 30 }, (_, i) => move('FR', 12 + i, 'DUB', false)),
  ];
  const spread = [
    ...Array.from({ length: 12 }, (_, i) => move('FR', i, ['BCN', 'MAD', 'AGP', 'PMI'][i % 4]!, true)),
    ...Array.from({ length: 30 }, (_, i) => move('FR', 12 + i, 'DUB', false)),
  ];
  // One aircraft a fault kept on the ground all day: its twelve flights out of Stansted and back, cancelled.
  const grounded = spread.map((m) => (m.cancelled ? { ...m, registration: 'EIDCL' } : m));
  const others = Array.from({ length: 30 }, (_, i) => move(['U2', 'W6', 'LS'][i % 3]!, i, 'AMS', i === 0));
  const day = { from: T, to: T + 24 * HOUR };
  it.each([
    ['its flights to Barcelona, asked about one of them', barcelona, false],
    ['a dozen across its network, asked about the one to Barcelona', spread, true],
    ['a dozen of one aircraft a fault kept on the ground', grounded, false],
  ])('%s', (_, fr, carrier) => {
    expect(
      pastSignals('STN', base, [...fr, ...others], day, { ...own('FR0', 'FR', base), other: 'BCN' }).carrierDay,
    ).toBe(carrier);
  });
  it("one day's rows, counted once and shared, answer each flight for its own other end and carrier", () => {
    const rows = [...barcelona, ...others];
    const asked = (designator: string, carrier: string, other: string) =>
      carrierDay(rows, { ...own(designator, carrier, base), other });
    // FR's flight to Dublin: its twelve cancellations to Barcelona are its own day there; to Barcelona, the strike there's.
    expect(
      [
        asked('FR13', 'FR', 'DUB'),
        asked('FR0', 'FR', 'BCN'),
        asked('FR14', 'FR', 'DUB'),
        asked('U20', 'U2', 'DUB'),
      ].map((d) => d.own),
    ).toEqual([true, false, true, false]);
  });
});

describe("a storm at the flight's time stands over its carrier's day of cancellations", () => {
  // Larnaca's thunderstorm cancels FR's flights there; at Warsaw those are FR's alone, which looks like its own day.
  const flight: Leg = {
    ref: { flightNumber: 'FR6591', flightDate: '2026-02-20', origin: 'LCA', destination: 'WAW' },
    designators: ['FR6591'],
    origin: 'LCA',
    destination: 'WAW',
    scheduledDeparture: at('10:00'),
    scheduledArrival: at('13:10'),
    actualDeparture: null,
    actualArrival: null,
    cancelled: true,
    diverted: false,
  };
  const boards = (carrierDay: boolean) => ({
    figures: {
      airport: '',
      from: '',
      to: '',
      cancelled: 4,
      delayed: 2,
      usual: { cancelled: 1, delayed: 5 },
      baseline: 'published_rates' as const,
    },
    announcements: false,
    carrierDay,
    delayWave: false,
    cancelWave: false,
    divertWave: 0,
    strikeDay: false,
    plannedByOthers: 0,
    cancelledSeenAt: null,
  });
  const lca: EndEvidence = {
    airport: 'LCA',
    at: at('10:00'),
    asked: { from: at('09:00'), to: at('10:30') },
    weather: calm('LCLK 200950Z 24030G45KT 2000 +TSRA BKN008CB 18/16 Q1002', '09:50'),
    boardsSeen: 'read',
    boards: boards(false),
  };
  const waw = (carrierDay: boolean): EndEvidence => ({
    airport: 'WAW',
    at: at('13:10'),
    asked: { from: at('12:10'), to: at('13:40') },
    weather: calm('EPWA 201250Z 24008KT 9999 SCT025 08/04 Q1012', '12:50'),
    boardsSeen: 'read',
    boards: boards(carrierDay),
  });
  it.each([
    ["a storm at Larnaca, FR's day at Warsaw", lca, waw(true), 'weather'],
    [
      "calm at both, FR's day at Warsaw",
      { ...lca, weather: calm('LCLK 200950Z 24008KT CAVOK 22/12 Q1016', '09:50') },
      waw(true),
      'airline_strike',
    ],
  ])('%s', (_, departure, arrival, cause) => {
    expect(ownCause({ leg: flight, departure, arrival, carrierStrike: null, grounded: null }, 'cancelled').cause).toBe(
      cause,
    );
  });
});

describe("an airport's wave of cancellations is far beyond the usual of all its cancellations, not only of those made on the day", () => {
  // Madrid in an ATC wave: six cancellations in the window, a few more than usual, all made on the day
  // (where usually most are made the evening before); an airport's failure cancels a fifth of its flights.
  const base = at('16:00');
  const cancelled = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      sighting(`IBE${200 + i}`, ['IB', 'UX', 'FR'][i % 3]!, base + i * 5 * MINUTE, HOUR, { airport: 'MAD' }),
    );
  const madrid = { delayed: 64.5, cancelled: 4.6, shortNotice: 0.3, day: 30 };
  it.each([
    ['six, about the usual four or five', cancelled(6), false],
    ['twenty', cancelled(20), true],
  ])('%s', (_, today, wave) => {
    expect(signals('MAD', base, today, 157, madrid, own('IBE999', 'IB', base)).cancelWave).toBe(wave);
  });
});
