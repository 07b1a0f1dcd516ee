// predict.ts over hand-made board rows: the aircraft followed back through the legs the boards show.
import { describe, expect, it } from 'vitest';
import { HOUR, MINUTE } from '../clock.js';
import type { BoardRow } from '../providers/index.js';
import { boardRowAt } from '../../test/helpers/board-row.js';
import { observe, type Watch } from './engine.js';
import { Fleet } from './chain.js';
import { predict, type PredictionContext } from './predict.js';

const T = Date.UTC(2026, 2, 10, 12, 0);

const row = (patch: Partial<BoardRow> = {}): BoardRow => boardRowAt(T, patch);

const ZONES: Record<string, string> = { OTP: 'Europe/Bucharest', LTN: 'Europe/London' };
/** The pass's boards as given; no aircraft counted as based at the departure's airport. */
const contextOf = (boards: BoardRow[][] | BoardRow[]): PredictionContext => ({
  fleet: Fleet.of(Array.isArray(boards[0]) ? (boards as BoardRow[][]) : [boards as BoardRow[]]),
  leftHere: () => false,
  zone: (iata) => (iata ? (ZONES[iata] ?? null) : null),
});

describe('predictions from a late inbound aircraft', () => {
  const departure = row({ registration: 'HA-LXA', aircraftType: 'A21N', scheduledAt: T + 4 * HOUR });
  const inbound = (patch: Partial<BoardRow>) => [
    row({
      direction: 'arrival',
      registration: 'HA-LXA',
      flightNumber: 'W6 3102',
      origin: { iata: 'LTN', icao: 'EGGW' },
      destination: { iata: 'OTP', icao: 'LROP' },
      scheduledAt: T + 3 * HOUR,
      ...patch,
    }),
  ];
  const map = (rows: BoardRow[]) => contextOf(rows);

  it('projects the departure from the inbound’s arrival plus the type’s minimum turnaround', () => {
    // Airborne, expected 6 h 40 after T: + 35 min turnaround (A21N) = 7 h 15, i.e. 3 h 15 late.
    const p = predict(
      departure,
      map(inbound({ estimatedAt: T + 6 * HOUR + 40 * MINUTE, status: 'Expected 18:40', departed: true })),
      T,
    )!;
    expect(p).toMatchObject({
      registration: 'HA-LXA',
      projectedDelayMinutes: 195,
      confidence: 'high',
      minTurnaroundMinutes: 35,
    });
    expect(p.inbound).toMatchObject({
      flightNumber: 'W6 3102',
      origin: 'LTN',
      projectedArrivalAt: T + 6 * HOUR + 40 * MINUTE,
    });
  });

  it('holds an inbound that has not left to 3 h 15, and ignores a departure that will not be 3 h late', () => {
    const notLeft = (minutes: number) => inbound({ estimatedAt: T + 3 * HOUR + minutes * MINUTE, status: 'Delayed' });
    // Projected departure delay = inbound delay (minutes) - 60 (its slack) + 35 (turnaround).
    expect(predict(departure, map(notLeft(205)), T)).toBeNull(); // 3 h 00: enough for high, not for medium
    expect(predict(departure, map(notLeft(220)), T)).toMatchObject({
      confidence: 'medium',
      projectedDelayMinutes: 195,
    });
    expect(
      predict(departure, map(inbound({ estimatedAt: T + 4 * HOUR, status: 'Expected 16:00', departed: true })), T),
    ).toBeNull();
    expect(predict({ ...departure, operation: 'cargo' }, map(notLeft(400)), T)).toBeNull();
    // The status text is never read: AeroDataBox's "Expected" has not left, and AeroAPI's is localised.
    expect(
      predict(departure, map(inbound({ estimatedAt: T + 3 * HOUR + 220 * MINUTE, status: 'Expected' })), T),
    ).toMatchObject({ confidence: 'medium' });
    expect(
      predict(
        departure,
        map(inbound({ estimatedAt: T + 3 * HOUR + 205 * MINUTE, status: '途中 / 準時', departed: true })),
        T,
      ),
    ).toMatchObject({ confidence: 'high' });
    expect(predict({ ...departure, registration: null }, map(notLeft(400)), T)).toBeNull();
  });

  it('fires predicted_qualifying once, before the board shows qualifying', () => {
    const p = predict(
      departure,
      map(inbound({ estimatedAt: T + 7 * HOUR, status: 'Expected 19:00', departed: true })),
      T,
    )!;
    let watch: Watch | null = null;
    const seen: string[] = [];
    for (const [r, prediction] of [
      [departure, p],
      [departure, p],
      [{ ...departure, estimatedAt: departure.scheduledAt + 200 * MINUTE, status: 'Estimated 19:20' }, p],
    ] as const) {
      const result = observe(watch, r, T, () => 'flight-1', prediction);
      watch = result.watch;
      seen.push(...result.events.map((e) => e.type.replace('flight.', '')));
    }
    expect(seen).toEqual(['tracked', 'predicted_qualifying', 'status_changed', 'delayed', 'qualifying']);
  });
});

describe('predictions that follow the aircraft back', () => {
  // The aircraft's day: OTP → LTN (P, left late), LTN → OTP (I, the inbound, not left), OTP → LTN (the departure).
  const reg = { registration: 'HA-LXB', aircraftType: 'A21N' };
  const earlier = (arrivalEstimate: number) =>
    row({
      ...reg,
      flightNumber: 'W6 3001',
      scheduledAt: T - HOUR,
      actualAt: T - HOUR + 200 * MINUTE,
      estimatedAt: T - HOUR + 200 * MINUTE,
      departed: true,
      status: 'Departed',
      otherEnd: { scheduledAt: T + 2 * HOUR, estimatedAt: arrivalEstimate, actualAt: null },
    });
  const inbound = row({
    ...reg,
    direction: 'arrival',
    flightNumber: 'W6 3002',
    origin: { iata: 'LTN', icao: 'EGGW' },
    destination: { iata: 'OTP', icao: 'LROP' },
    scheduledAt: T + 6 * HOUR,
    otherEnd: { scheduledAt: T + 3 * HOUR, estimatedAt: null, actualAt: null },
  });
  const departure = row({
    ...reg,
    flightNumber: 'W6 3003',
    scheduledAt: T + 7 * HOUR,
    otherEnd: { scheduledAt: T + 10 * HOUR, estimatedAt: null, actualAt: null },
  });

  it('projects a late earlier leg through the inbound that has not left yet, and says what it rests on', () => {
    // P lands at T+6h (4 h late) → I leaves at T+6h35 (turnaround 35) and takes at least 0.85 of its
    // 3 h (153 min) → lands T+9h08 → the departure is ready at T+9h43: 163 min late. Not enough.
    expect(predict(departure, contextOf([[earlier(T + 6 * HOUR)], [inbound]]), T)).toBeNull();
    // P lands at T+6h40: the departure is ready at T+10h23, 203 min late, at the medium bar or above.
    const p = predict(departure, contextOf([[earlier(T + 6 * HOUR + 40 * MINUTE)], [inbound]]), T)!;
    expect(p).toMatchObject({ confidence: 'medium', projectedDelayMinutes: 203, minTurnaroundMinutes: 35 });
    expect(p.inbound).toMatchObject({
      flightNumber: 'W6 3002',
      origin: 'LTN',
      projectedArrivalAt: T + 9 * HOUR + 48 * MINUTE,
    });
    expect(p.basis.map((l) => [l.flightNumber, l.origin, l.destination, l.observed])).toEqual([
      ['W6 3001', 'OTP', 'LTN', 'airborne'],
      ['W6 3002', 'LTN', 'OTP', 'schedule'],
    ]);
    expect(p.basis[1]).toMatchObject({
      scheduledDepartureAt: T + 3 * HOUR,
      projectedDepartureAt: T + 6 * HOUR + 75 * MINUTE,
    });
    // Without the earlier leg on any board, the inbound alone shows nothing late.
    expect(predict(departure, contextOf([[inbound]]), T)).toBeNull();
  });

  it('merges the rows two boards show of one flight, and stops at a cancelled leg', () => {
    const fleet = Fleet.of([
      [earlier(T + 7 * HOUR)],
      [
        {
          ...earlier(T + 7 * HOUR),
          direction: 'arrival',
          scheduledAt: T + 2 * HOUR,
          estimatedAt: T + 7 * HOUR,
          otherEnd: { scheduledAt: T - HOUR, estimatedAt: null, actualAt: T - HOUR + 200 * MINUTE },
        },
      ],
    ]);
    expect(fleet.legsOf('HA-LXB')).toHaveLength(1);
    expect(fleet.legsOf('HA-LXB')[0]).toMatchObject({
      scheduledDeparture: T - HOUR,
      scheduledArrival: T + 2 * HOUR,
      arrivalEstimate: T + 7 * HOUR,
      departed: true,
    });
    expect(predict(departure, contextOf([[earlier(T + 7 * HOUR)], [{ ...inbound, cancelled: true }]]), T)).toBeNull();
  });

  it('holds back a departure that would bring the aircraft back to its base after the night', () => {
    // The departure takes the aircraft back to LTN, where the inbound came from: projected to leave
    // 203 min late at T+10h23 (13:23 UTC + 3 h block = 01:23 in London the next night): predicted.
    const late = contextOf([[earlier(T + 6 * HOUR + 40 * MINUTE)], [inbound]]);
    expect(predict(departure, late, T)).not.toBeNull();
    // The same day four hours later lands after 05:00 in London: the carrier cancels rather than flies it.
    const shift = (r: BoardRow): BoardRow => ({
      ...r,
      scheduledAt: r.scheduledAt + 4 * HOUR,
      ...(r.actualAt !== null ? { actualAt: r.actualAt + 4 * HOUR, estimatedAt: r.estimatedAt! + 4 * HOUR } : {}),
      otherEnd: r.otherEnd && {
        scheduledAt: r.otherEnd.scheduledAt + 4 * HOUR,
        estimatedAt: r.otherEnd.estimatedAt === null ? null : r.otherEnd.estimatedAt + 4 * HOUR,
        actualAt: null,
      },
    });
    const later = contextOf([[shift(earlier(T + 6 * HOUR + 40 * MINUTE))], [shift(inbound)]]);
    expect(predict(shift(departure), later, T + 4 * HOUR)).toBeNull();
    // Once the inbound has flown out to OTP, the aircraft is brought home however late.
    const left = contextOf([
      [shift(earlier(T + 6 * HOUR + 40 * MINUTE))],
      [{ ...shift(inbound), departed: true, estimatedAt: T + 14 * HOUR }],
    ]);
    expect(predict(shift(departure), left, T + 4 * HOUR)).toMatchObject({ confidence: 'high' });
  });
});
