// The aircraft's day from the kept boards: the legs its rows show, joined, and whether they settle the
// finding without asking for the aircraft's day (a priced request). Where a leg may be missing, they
// do not: the walk stops at a gap, or at an edge the caller must find held whole.
import { describe, expect, it } from 'vitest';
import { HOUR, MINUTE } from '../clock.js';
import { keptDay, legsFrom } from './kept-day.js';
import { chainOrigin, groundedAfter, type Leg } from './rotation.js';
import type { PastMovement } from './shapes.js';

const T = Date.parse('2026-02-20T00:00:00Z');
const at = (hhmm: string) => T + Number(hhmm.slice(0, 2)) * HOUR + Number(hhmm.slice(3)) * MINUTE;
const t = (hhmm: string | null) => (hhmm === null ? null : at(hhmm));

/** A flight as both its boards kept it: `times` are due out, left, due in, landed (null: not flown). */
function rows(
  flight: string,
  from: string,
  to: string,
  times: [string, string | null, string, string | null],
  over: Partial<PastMovement> = {},
): PastMovement[] {
  const [dueOut, left, dueIn, landed] = times;
  const common = {
    flight,
    carrier: flight.slice(0, 2),
    cancelled: left === null && !over.diverted,
    diverted: false,
    registration: 'HA-LXA',
    ...over,
    designators: [over.flight ?? flight],
  };
  return [
    {
      ...common,
      board: 'departures',
      airport: from,
      other: to,
      scheduledAt: at(dueOut),
      at: t(left),
      actualAt: t(left),
      otherScheduledAt: at(dueIn),
      otherActualAt: t(landed),
    },
    {
      ...common,
      board: 'arrivals',
      airport: to,
      other: from,
      scheduledAt: at(dueIn),
      at: t(landed),
      actualAt: t(landed),
      otherScheduledAt: at(dueOut),
      otherActualAt: t(left),
    },
  ];
}

/** The flight asked about, as its own record gives it. */
function flight(number: string, from: string, to: string, times: [string, string | null, string, string | null]): Leg {
  const [dueOut, left, dueIn, landed] = times;
  return {
    ref: { flightNumber: number, flightDate: '2026-02-20', origin: from, destination: to },
    designators: [number],
    origin: from,
    destination: to,
    scheduledDeparture: at(dueOut),
    scheduledArrival: at(dueIn),
    actualDeparture: t(left),
    actualArrival: t(landed),
    cancelled: left === null,
    diverted: false,
  };
}

const delayed = flight('W63102', 'LTN', 'OTP', ['10:00', '13:30', '13:00', '16:20']);
const cancelled = flight('W63104', 'OTP', 'LTN', ['14:00', null, '15:00', null]);

describe('the legs the kept rows show', () => {
  it("joins a flight's departures and arrivals rows into one leg, with both ends", () => {
    const legs = legsFrom(rows('W63101', 'OTP', 'LTN', ['06:00', '06:05', '09:00', '08:55']))!;
    expect(legs).toHaveLength(1);
    expect(legs[0]).toMatchObject({
      origin: 'OTP',
      destination: 'LTN',
      scheduledDeparture: at('06:00'),
      actualDeparture: at('06:05'),
      scheduledArrival: at('09:00'),
      actualArrival: at('08:55'),
      cancelled: false,
    });
  });

  it('keeps a leg one board alone showed (the other end not watched)', () => {
    const legs = legsFrom(rows('W63101', 'OTP', 'LTN', ['06:00', '06:05', '09:00', '08:55']).slice(1))!;
    expect(legs[0]).toMatchObject({ origin: 'OTP', destination: 'LTN', actualArrival: at('08:55') });
  });

  it('cannot place an arrivals row that does not give its departure: no day from the boards', () => {
    const [, arrival] = rows('W63101', 'OTP', 'LTN', ['06:00', '06:05', '09:00', '08:55']);
    expect(legsFrom([{ ...arrival!, otherScheduledAt: null }])).toBeNull();
  });
});

describe('whether the kept legs settle the finding', () => {
  const day = (of: Leg, outcome: 'delayed' | 'cancelled', movements: PastMovement[]) =>
    keptDay(of, outcome, legsFrom(movements)!);

  it.each<[string, PastMovement[], 'started here' | 'knock-on' | 'ask' | 'edge']>([
    [
      'the inbound landed in time: the delay started here',
      rows('W63101', 'OTP', 'LTN', ['06:00', '06:05', '09:00', '08:55']),
      'started here',
    ],
    [
      'the inbound landed three hours late, having left late itself with its own inbound in time: the chain started there',
      [
        ...rows('W63099', 'LTN', 'OTP', ['01:00', '01:00', '04:00', '04:00']),
        ...rows('W63101', 'OTP', 'LTN', ['06:00', '09:00', '09:00', '12:50']),
      ],
      'knock-on',
    ],
    [
      'the inbound landed late and left on time (its own flight was slow): the chain stops there without its inbound',
      rows('W63101', 'OTP', 'LTN', ['06:00', '06:00', '09:00', '12:50']),
      'knock-on',
    ],
    [
      'the inbound left late and its own inbound is not on the boards: the day is asked',
      rows('W63101', 'OTP', 'LTN', ['06:00', '09:00', '09:00', '12:50']),
      'edge',
    ],
    [
      'the leg before lands elsewhere: a leg the boards do not show, the day is asked',
      rows('W63101', 'OTP', 'BUD', ['06:00', '06:05', '09:00', '08:55']),
      'ask',
    ],
    [
      'the inbound left, but no board showed it land (it left the window first): the day is asked',
      rows('W63101', 'OTP', 'LTN', ['06:00', '09:00', '09:00', null])
        .slice(0, 1)
        .map((m) => ({ ...m, cancelled: false, otherActualAt: null })),
      'ask',
    ],
    [
      'the night before is not an inbound: where the boards were not read whole, the day is asked',
      rows('W63101', 'OTP', 'LTN', ['01:00', '01:00', '05:30', '05:20']),
      'edge',
    ],
    ['no rows at all', [], 'edge'],
  ])('a delay: %s', (_, movements, expected) => {
    const found = day(delayed, 'delayed', movements);
    if (expected === 'ask') return expect(found).toBeNull();
    if (expected === 'edge')
      return expect(found?.start).toMatchObject({ airport: expect.any(String), to: expect.any(Number) });
    expect(found!.start).toBeNull();
    expect(found!.legs[found!.at]).toBe(delayed);
    const origin = chainOrigin(found!.legs, found!.at);
    expect(origin === found!.at ? 'started here' : 'knock-on').toBe(expected);
  });

  it('a delay whose chain ran out at an airport: the edge says which airport and hours must be held', () => {
    const found = day(delayed, 'delayed', []);
    expect(found).toEqual({
      legs: [delayed],
      at: 0,
      start: { airport: 'LTN', from: at('06:00'), to: at('10:00') },
      grounded: null,
    });
  });

  it('a cancelled return of a cancelled outbound: the run, the leg before it, and the later legs until one flew', () => {
    const found = day(
      cancelled,
      'cancelled',
      [
        ...rows('W63099', 'LTN', 'OTP', ['05:00', '05:00', '08:00', '08:00']),
        ...rows('W63101', 'OTP', 'LTN', ['09:00', null, '12:00', null]),
        ...rows('W63103', 'LTN', 'OTP', ['13:00', null, '13:30', null], { flight: 'W63103' }),
        ...rows('W63105', 'LTN', 'OTP', ['17:00', null, '20:00', null]),
        ...rows('W63107', 'OTP', 'LTN', ['21:00', '21:00', '22:00', '22:00']),
      ].filter((m) => m.flight !== 'W63103'),
    );
    expect(found).toBeNull(); // W63101 lands at LTN, this flight leaves OTP: the outbound LTN–OTP is not on the boards
  });

  it('a cancellation whose outbound and the leg before it are on the boards, and a later leg flew: settled, not grounded', () => {
    const found = day(
      cancelled,
      'cancelled',
      [
        ...rows('W63099', 'OTP', 'LTN', ['05:00', '05:00', '08:00', '08:00']),
        ...rows('W63101', 'LTN', 'OTP', ['09:00', null, '12:00', null]),
        ...rows('W63105', 'LTN', 'OTP', ['16:00', null, '17:00', null]),
        ...rows('W63107', 'OTP', 'LTN', ['18:00', '18:00', '19:00', '19:00']),
      ].filter((m) => m.flight !== 'W63105'),
    );
    // W63105 is not on the boards: the leg after the return (LTN–OTP) is missing, so the walk stops without a verdict on the rest of the day.
    expect(found).toMatchObject({ at: 2, start: null, grounded: null });
    expect(found!.legs.map((l) => l.ref.flightNumber)).toEqual(['W63099', 'W63101', 'W63104']);
  });

  it("a cancellation with every later leg cancelled: grounded, if the last airport's boards were held whole", () => {
    const movements = [
      ...rows('W63101', 'LTN', 'OTP', ['09:00', '09:00', '12:00', '12:00']),
      ...rows('W63105', 'LTN', 'OTP', ['16:00', null, '17:00', null]),
      ...rows('W63107', 'OTP', 'LTN', ['18:00', null, '19:00', null]),
    ];
    const found = day(cancelled, 'cancelled', movements);
    expect(found).toMatchObject({
      at: 1,
      start: null,
      grounded: { airport: 'LTN', from: at('19:00'), to: at('23:00') },
    });
    expect(groundedAfter(found!.legs, found!.at)).toBe(true);
    const flew = day(cancelled, 'cancelled', [
      ...movements,
      ...rows('W63109', 'LTN', 'OTP', ['20:00', '20:00', '21:00', '21:00']),
    ]);
    expect(flew).toMatchObject({ grounded: false });
  });
});
