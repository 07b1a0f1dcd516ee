// The FlightAware AeroAPI adapter against a local fixture server speaking AeroAPI v4's schema.
import { afterEach, describe, expect, it } from 'vitest';
import { loadReferenceAirports } from '../airports/index.js';
import { ManualClock } from '../clock.js';
import {
  AEROAPI_KEY,
  KLM1395,
  aeroFlight,
  startAeroFixture,
  type AeroFixture,
  type AeroLeg,
} from '../../test/helpers/aeroapi-fixture.js';
import { AeroApiProvider } from './aeroapi.js';
import { checked } from '../flights/consistency.js';
import type { BoardRow, ProviderFlight } from './types.js';

let fixture: AeroFixture;
afterEach(() => fixture?.close());

async function provider(
  legs: AeroLeg[],
  now = Date.parse('2024-03-14T12:00:00Z'),
  key = AEROAPI_KEY,
  requestsPerMinute = 100,
) {
  const clock = new ManualClock(now);
  fixture = await startAeroFixture(legs, now);
  return new AeroApiProvider({ key, url: fixture.url, requestsPerMinute }, clock, loadReferenceAirports());
}
const legs = (answer: unknown) => (answer as { value: ProviderFlight[] }).value;

describe('AeroAPI flights', () => {
  it('maps the documented example: gate times as actual, codeshares, the raw status', async () => {
    const fa = await provider([KLM1395]);
    const answer = await fa.lookupFlight({ designator: 'KL1395', flightDate: '2024-03-12' });
    expect(answer.outcome).toBe('hit');
    expect(legs(answer)[0]).toMatchObject({
      provider: 'aeroapi',
      flightIata: 'KL1395',
      flightIcao: 'KLM1395',
      callsign: 'KLM1395',
      airline: { name: null, iata: 'KL', icao: 'KLM' },
      codeshares: ['DL9372'],
      statusRaw: 'Arrived / Gate Arrival',
      phase: 'landed',
      settled: true,
      aircraft: { registration: 'PHEXD', typeIcao: 'E75L' },
      departure: {
        airport: { iata: 'AMS', icao: 'EHAM' },
        scheduled: Date.parse('2024-03-12T07:15:00Z'),
        actual: Date.parse('2024-03-12T07:38:00Z'),
        runway: '24',
      },
      arrival: {
        airport: { iata: 'WAW', icao: 'EPWA' },
        scheduled: Date.parse('2024-03-12T09:10:00Z'),
        actual: Date.parse('2024-03-12T09:27:00Z'),
        runway: '29',
      },
    });
    // The UTC flight date as AeroAPI's start (its start/end compare with scheduled_out in UTC).
    const [request] = fixture.requests;
    expect(request!.path).toBe('/flights/KL1395');
    expect(Object.fromEntries(request!.query)).toEqual({
      ident_type: 'designator',
      start: '2024-03-12T00:00:00Z',
      end: '2024-03-14T00:00:00Z',
    });
    expect(request!.headers['x-apikey']).toBe(AEROAPI_KEY);
  });

  it('asks /history for a flight older than the live window of 10 days', async () => {
    const fa = await provider([KLM1395], Date.parse('2024-05-01T00:00:00Z'));
    expect((await fa.lookupFlight({ designator: 'KLM1395', flightDate: '2024-03-12' })).outcome).toBe('hit');
    expect(fixture.requests[0]!.path).toBe('/history/flights/KLM1395');
  });

  it('reads cancelled as a cancellation only when the flight never left', async () => {
    const cancelled: AeroLeg = {
      ...KLM1395,
      status: 'Cancelled',
      cancelled: true,
      origin: { ...KLM1395.origin, actual: undefined },
      destination: { ...KLM1395.destination, actual: undefined },
    };
    const fa = await provider([cancelled]);
    const answer = await fa.lookupFlight({ designator: 'KL1395', flightDate: '2024-03-12' });
    expect(answer.outcome).toBe('hit');
    expect(legs(answer)[0]).toMatchObject({
      cancelled: true,
      phase: 'cancelled',
      settled: true,
      statusRaw: 'Cancelled',
      departure: { actual: null },
    });

    // Tracking lost after take-off: AeroAPI says cancelled, but the flight flew.
    fixture.legs.splice(0, 1, {
      ...KLM1395,
      status: 'Cancelled',
      cancelled: true,
      destination: { ...KLM1395.destination, actual: undefined },
    });
    const lost = await fa.lookupFlight({ designator: 'KL1395', flightDate: '2024-03-12' });
    expect(lost.outcome).toBe('incomplete');
    expect(legs(lost)[0]).toMatchObject({
      cancelled: false,
      phase: 'departed',
      settled: false,
      statusRaw: 'Cancelled',
    });
  });

  it('joins a diversion and its continuation (same fa_flight_id) into one diverted flight', async () => {
    const diverted: AeroLeg = {
      ...KLM1395,
      status: 'Diverted',
      diverted: true,
      destination: { icao: 'EPKT', iata: 'KTW', scheduled: '2024-03-12T09:10:00Z', actual: '2024-03-12T09:45:00Z' },
    };
    const continuation: AeroLeg = {
      ...KLM1395,
      status: 'Arrived',
      origin: { icao: 'EPKT', iata: 'KTW', scheduled: '2024-03-12T11:30:00Z', actual: '2024-03-12T11:40:00Z' },
      destination: { icao: 'EPWA', iata: 'WAW', scheduled: '2024-03-12T12:20:00Z', actual: '2024-03-12T12:25:00Z' },
    };
    const fa = await provider([diverted, continuation]);
    const answer = await fa.lookupFlight({ designator: 'KL1395', flightDate: '2024-03-12' });
    expect(answer.outcome).toBe('hit');
    expect(legs(answer)).toHaveLength(1);
    expect(legs(answer)[0]).toMatchObject({
      diverted: true,
      phase: 'diverted',
      settled: true,
      divertedTo: { iata: 'KTW', icao: 'EPKT' },
      departure: { airport: { iata: 'AMS' } },
      // The booked destination, and the on-block time where it landed.
      arrival: { airport: { iata: 'WAW' }, actual: Date.parse('2024-03-12T09:45:00Z') },
    });
  });

  it('does not settle a departure more than an hour before the schedule (said centrally), nor a finished flight without arrival', async () => {
    const early: AeroLeg = {
      ...KLM1395,
      origin: { ...KLM1395.origin, actual: '2024-03-12T05:40:00Z' },
      destination: { ...KLM1395.destination, actual: '2024-03-12T07:35:00Z' },
    };
    const fa = await provider([early]);
    const answer = await fa.lookupFlight({ designator: 'KL1395', flightDate: '2024-03-12' });
    expect(answer.outcome).toBe('hit');
    // No doubt of its own: the early departure is one of the checks every provider's flight gets
    // (consistency.ts), which the lookup applies and which unsettles it.
    expect(legs(answer)[0]).toMatchObject({
      phase: 'landed',
      departure: { actual: Date.parse('2024-03-12T05:40:00Z'), actualKind: 'block' },
    });
    expect(legs(answer)[0]!.doubts).toBeUndefined();
    expect(checked(legs(answer)[0]!)).toMatchObject({
      settled: false,
      doubts: [expect.stringMatching(/^It left 95 minutes before its scheduled departure/)],
    });

    // progress_percent 100 with no arrival time at all.
    const done = { ...aeroFlight(KLM1395), actual_on: null, actual_in: null, progress_percent: 100 };
    fixture.recordedFlights.set('KL1395', JSON.stringify({ flights: [done], links: null, num_pages: 1 }));
    const finished = await fa.lookupFlight({ designator: 'KL1395', flightDate: '2024-03-12' });
    expect(legs(finished)[0]).toMatchObject({
      phase: 'departed',
      settled: false,
      doubts: ['FlightAware reports the flight complete (progress 100 %) but gives no arrival time.'],
    });
  });

  it('answers miss for an empty list, and names the refusal of a wrong key without the key', async () => {
    const fa = await provider([KLM1395]);
    expect(await fa.lookupFlight({ designator: 'KL9999', flightDate: '2024-03-12' })).toEqual({ outcome: 'miss' });
    const wrong = await provider([KLM1395], undefined, 'wrong-fa-key');
    const answer = await wrong.lookupFlight({ designator: 'KL1395', flightDate: '2024-03-12' });
    expect(answer).toMatchObject({
      outcome: 'error',
      error: { kind: 'unavailable', message: 'aeroapi refused the credentials (HTTP 401): Invalid API key' },
    });
    expect(JSON.stringify(answer)).not.toContain('wrong-fa-key');
  });

  it("honours a 429 and reports a 400 in AeroAPI's own words", async () => {
    const fa = await provider([KLM1395]);
    fixture.script.push({
      status: 400,
      body: { title: 'Invalid argument', reason: 'INVALID_ARGUMENT', detail: 'Invalid ident', status: 400 },
    });
    expect(await fa.lookupFlight({ designator: 'KL1395', flightDate: '2024-03-12' })).toMatchObject({
      outcome: 'error',
      error: { kind: 'bad_response', message: 'aeroapi answered HTTP 400: Invalid ident' },
    });
    fixture.script.push({ status: 429, headers: { 'retry-after': '30' } });
    expect(await fa.lookupFlight({ designator: 'KL1395', flightDate: '2024-03-12' })).toMatchObject({
      outcome: 'error',
      error: { kind: 'rate_limited' },
    });
    expect(fa.status()).toMatchObject({ name: 'aeroapi', circuit: 'closed', retryAfterMs: expect.any(Number) });
    expect(fa.status().retryAfterMs).toBeGreaterThan(25_000);
  });
});

describe('AeroAPI boards, aircraft and the key check', () => {
  const now = Date.parse('2024-03-12T12:00:00Z');
  const at = (minutes: number) => new Date(now + minutes * 60_000).toISOString().replace('.000Z', 'Z');
  const leg = (n: number, minutes: number, extra: Partial<AeroLeg> = {}): AeroLeg => ({
    ...KLM1395,
    ident_iata: `KL${1000 + n}`,
    ident_icao: `KLM${1000 + n}`,
    fa_flight_id: `KLM${1000 + n}-1`,
    status: 'Scheduled',
    origin: { icao: 'EHAM', iata: 'AMS', scheduled: at(minutes) },
    destination: { icao: 'EPWA', iata: 'WAW', scheduled: at(minutes + 115) },
    ...extra,
  });

  it('merges what left and what is still to come, following every page', async () => {
    const board = [
      leg(1, -60, {
        status: 'En Route / Delayed',
        origin: { icao: 'EHAM', iata: 'AMS', scheduled: at(-60), actual: at(-20) },
        destination: { icao: 'EPWA', iata: 'WAW', scheduled: at(55), estimated: at(90) },
      }),
      leg(2, 30, { status: 'Cancelled', cancelled: true }),
      ...Array.from({ length: 20 }, (_, i) => leg(10 + i, 60 + i * 10)),
    ];
    const fa = await provider(board, now);
    const answer = await fa.readBoard({
      airport: 'AMS',
      board: 'departures',
      from: now - 3 * 3_600_000,
      to: now + 12 * 3_600_000,
    });
    expect(answer.outcome).toBe('hit');
    const rows = (answer as { value: BoardRow[] }).value;
    expect(rows).toHaveLength(22);
    expect(rows[0]).toMatchObject({
      flightNumber: 'KL 1001',
      status: 'En Route / Delayed',
      direction: 'departure',
      origin: { iata: 'AMS', icao: 'EHAM' },
      destination: { iata: 'WAW', icao: 'EPWA' },
      scheduledAt: now - 60 * 60_000,
      actualAt: now - 20 * 60_000,
      // The other end, as the flight's own record gives it.
      otherEnd: { scheduledAt: now + 55 * 60_000, estimatedAt: now + 90 * 60_000, actualAt: null },
    });
    expect(rows[1]).toMatchObject({ flightNumber: 'KL 1002', cancelled: true, actualAt: null });
    expect(
      fixture.requests.map((r) => `${r.path}${r.query.get('cursor') ? ` cursor=${r.query.get('cursor')}` : ''}`),
    ).toEqual([
      '/airports/EHAM/flights/departures',
      '/airports/EHAM/flights/scheduled_departures',
      '/airports/EHAM/flights/scheduled_departures cursor=15',
    ]);
    expect(fixture.requests[0]!.query.get('type')).toBe('Airline');
  });

  it('looks an aircraft up by its last flight, and checks the key with a free call', async () => {
    const fa = await provider([KLM1395], now);
    expect(await fa.lookupAircraft('PH-EXD')).toEqual({
      outcome: 'hit',
      value: {
        registration: 'PH-EXD',
        icao24: null,
        typeIcao: 'E75L',
        typeIata: null,
        label: null,
        airline: { name: null, iata: 'KL', icao: 'KLM' },
        operation: 'passenger',
        seats: null,
      },
    });
    expect(fixture.requests[0]!.path).toBe('/history/aircraft/PHEXD/last_flight');
    expect(await fa.lookupAircraft('PH-ZZZ')).toEqual({ outcome: 'miss' });
    expect(await fa.check()).toMatchObject({ ok: true });
    expect(fixture.requests.at(-1)!.path).toBe('/account/usage');
  });
});

describe('AeroAPI rotations', () => {
  // KLM1395 out and its return on the same aircraft, and another aircraft's flight.
  const back: AeroLeg = {
    ...KLM1395,
    ident_iata: 'KL1396',
    ident_icao: 'KLM1396',
    fa_flight_id: 'KLM1396-1710050000-schedule-0124',
    origin: { icao: 'EPWA', iata: 'WAW', scheduled: '2024-03-12T10:00:00Z', actual: '2024-03-12T10:20:00Z' },
    destination: { icao: 'EHAM', iata: 'AMS', scheduled: '2024-03-12T12:05:00Z', actual: '2024-03-12T12:21:00Z' },
  };
  const other: AeroLeg = {
    ...back,
    ident_iata: 'KL1001',
    ident_icao: 'KLM1001',
    fa_flight_id: 'KLM1001-x',
    registration: 'PHBXA',
  };

  it("lists the aircraft's flights by registration in the window, in order, as one call", async () => {
    const fa = await provider([back, KLM1395, other]);
    const answer = await fa.lookupRotation({
      registration: 'PH-EXD',
      icao24: null,
      from: Date.parse('2024-03-12T00:00:00Z'),
      to: Date.parse('2024-03-13T00:00:00Z'),
    });
    expect(answer.outcome).toBe('hit');
    expect(legs(answer).map((f) => f.flightIata)).toEqual(['KL1395', 'KL1396']);
    expect(fixture.requests.map((r) => [r.path, r.query.get('ident_type'), r.query.get('start')])).toEqual([
      ['/flights/PHEXD', 'registration', '2024-03-12T00:00:00Z'],
    ]);
    expect(fa.status().stats?.kinds.rotation).toMatchObject({ calls: 1, outcomes: { hit: 1 } });
  });

  it('asks the history for an older day, and answers none for an aircraft it has no flights of', async () => {
    const fa = await provider([KLM1395], Date.parse('2024-05-01T00:00:00Z'));
    const answer = await fa.lookupRotation({
      registration: 'PH-EXD',
      icao24: null,
      from: Date.parse('2024-03-12T00:00:00Z'),
      to: Date.parse('2024-03-13T00:00:00Z'),
    });
    expect(legs(answer).map((f) => f.flightIata)).toEqual(['KL1395']);
    expect(fixture.requests.at(-1)!.path).toBe('/history/flights/PHEXD');
    expect(
      await fa.lookupRotation({
        registration: 'PH-ZZZ',
        icao24: null,
        from: Date.parse('2024-03-12T00:00:00Z'),
        to: Date.parse('2024-03-13T00:00:00Z'),
      }),
    ).toEqual({ outcome: 'hit', value: [] });
  });
});

describe("AeroAPI, a past day of an airport's boards (circumstances)", () => {
  // The service's clock: 30 March 2024, noon UTC. Amsterdam is +01:00 until the 31st.
  const now = Date.parse('2024-03-30T12:00:00Z');
  const departing = (n: number, scheduled: string, extra: Partial<AeroLeg> = {}): AeroLeg => ({
    ...KLM1395,
    ident_iata: `KL${n}`,
    ident_icao: `KLM${n}`,
    fa_flight_id: `KLM${n}-${scheduled}`,
    status: 'Arrived / Gate Arrival',
    codeshares_iata: [],
    origin: {
      icao: 'EHAM',
      iata: 'AMS',
      scheduled,
      actual: new Date(Date.parse(scheduled) + 5 * 60_000).toISOString(),
    },
    destination: { icao: 'EPWA', iata: 'WAW', scheduled: new Date(Date.parse(scheduled) + 115 * 60_000).toISOString() },
    ...extra,
  });
  const notFlown = { status: 'Cancelled', cancelled: true };
  const sent = () =>
    fixture.requests.map((r) => [r.path, r.query.get('start'), r.query.get('end'), r.query.get('cursor')]);
  const rowsOf = (answer: unknown) => (answer as { value: BoardRow[] }).value;

  it('reads a day 15 days ago or older from the history board in pieces of 24 hours, by the runway schedule, following its pages', async () => {
    const day = [
      KLM1395, // 07:15Z, the documented example
      departing(1001, '2024-03-12T16:00:00Z', {
        ...notFlown,
        origin: { icao: 'EHAM', iata: 'AMS', scheduled: '2024-03-12T16:00:00Z' },
      }),
      departing(1003, '2024-03-12T17:00:00Z', {
        status: 'Diverted',
        diverted: true,
        destination: { icao: 'EPKT', iata: 'KTW', scheduled: '2024-03-12T18:55:00Z', actual: '2024-03-12T19:30:00Z' },
      }),
      ...Array.from({ length: 20 }, (_, i) =>
        departing(1100 + i, new Date(Date.parse('2024-03-12T08:00:00Z') + i * 20 * 60_000).toISOString()),
      ),
      // 23:55 local: off the runway (23:07Z) after the local day's end, still the day's flight.
      departing(1777, '2024-03-12T22:55:00Z'),
      // The neighbouring local days: 00:30 on the 13th (in the runway margin, then dropped) and 23:30 on the 11th.
      departing(1779, '2024-03-12T23:30:00Z'),
      departing(1771, '2024-03-11T22:30:00Z'),
    ];
    const fa = await provider(day, now);
    const answer = await fa.readBoardDay({ airport: 'AMS', board: 'departures', date: '2024-03-12' });
    expect(answer.outcome).toBe('hit');
    const rows = rowsOf(answer);
    expect(rows).toHaveLength(24);
    expect(rows.map((r) => r.flightNumber)).not.toContain('KL 1779');
    expect(rows.map((r) => r.flightNumber)).not.toContain('KL 1771');
    expect(rows[0]).toMatchObject({
      flightNumber: 'KL 1395',
      direction: 'departure',
      origin: { iata: 'AMS' },
      scheduledAt: Date.parse('2024-03-12T07:15:00Z'),
      actualAt: Date.parse('2024-03-12T07:38:00Z'),
    });
    expect(rows.find((r) => r.flightNumber === 'KL 1001')).toMatchObject({ cancelled: true, actualAt: null });
    expect(rows.find((r) => r.flightNumber === 'KL 1003')).toMatchObject({ diverted: true });
    expect(rows.at(-1)).toMatchObject({ flightNumber: 'KL 1777', scheduledAt: Date.parse('2024-03-12T22:55:00Z') });
    // The local day (23:00Z to 23:00Z) and an hour for the runway schedule: 25 hours, two pieces; three result sets.
    expect(sent()).toEqual([
      ['/history/airports/EHAM/flights/departures', '2024-03-11T23:00:00Z', '2024-03-12T23:00:00Z', null],
      ['/history/airports/EHAM/flights/departures', '2024-03-11T23:00:00Z', '2024-03-12T23:00:00Z', '15'],
      ['/history/airports/EHAM/flights/departures', '2024-03-12T23:00:00Z', '2024-03-13T00:00:00Z', null],
    ]);
    expect(fixture.requests.every((r) => r.query.get('type') === 'Airline')).toBe(true);

    // The arrivals at Warsaw that day (+01:00 too): the runway schedule an hour before the gate's.
    // KL 1771 (the 11th's 23:30 from Amsterdam) lands at 01:25 local on the 12th, KL 1779 on the 13th.
    fixture.requests.length = 0;
    const arrivals = rowsOf(await fa.readBoardDay({ airport: 'WAW', board: 'arrivals', date: '2024-03-12' }));
    expect(arrivals.slice(0, 3).map((r) => [r.flightNumber, r.origin.iata, r.destination.iata, r.scheduledAt])).toEqual(
      [
        ['KL 1771', 'AMS', 'WAW', Date.parse('2024-03-12T00:25:00Z')],
        ['KL 1395', 'AMS', 'WAW', Date.parse('2024-03-12T09:10:00Z')],
        ['KL 1100', 'AMS', 'WAW', Date.parse('2024-03-12T09:55:00Z')],
      ],
    );
    // The diverted flight landed at Katowice: not on Warsaw's board.
    expect(arrivals.map((r) => r.flightNumber).filter((n) => ['KL 1779', 'KL 1003'].includes(n))).toEqual([]);
    expect(arrivals).toHaveLength(23);
    expect(sent().map(([path, start, end]) => [path, start, end])).toEqual([
      ['/history/airports/EPWA/flights/arrivals', '2024-03-11T22:00:00Z', '2024-03-12T22:00:00Z'],
      ['/history/airports/EPWA/flights/arrivals', '2024-03-11T22:00:00Z', '2024-03-12T22:00:00Z'],
      ['/history/airports/EPWA/flights/arrivals', '2024-03-12T22:00:00Z', '2024-03-12T23:00:00Z'],
    ]);
  });

  it('reads a day of the last 10 days from the live lists: what flew by its runway time, up to 6 hours past the day, and what did not fly', async () => {
    const day = [
      departing(1101, '2024-03-27T07:00:00Z'),
      departing(1103, '2024-03-27T12:00:00Z', {
        ...notFlown,
        origin: { icao: 'EHAM', iata: 'AMS', scheduled: '2024-03-27T12:00:00Z' },
      }),
      // 22:30 local, off at 03:22 local the next day: the day's flight, on the list of what flew.
      departing(1102, '2024-03-27T21:30:00Z', {
        origin: { icao: 'EHAM', iata: 'AMS', scheduled: '2024-03-27T21:30:00Z', actual: '2024-03-28T02:10:00Z' },
      }),
      // The day before's 21:00 local, off after midnight: on the list, not on the day.
      departing(1100, '2024-03-26T20:00:00Z', {
        origin: { icao: 'EHAM', iata: 'AMS', scheduled: '2024-03-26T20:00:00Z', actual: '2024-03-26T22:00:00Z' },
      }),
    ];
    const fa = await provider(day, now);
    const answer = await fa.readBoardDay({ airport: 'AMS', board: 'departures', date: '2024-03-27' });
    expect(answer.outcome).toBe('hit');
    expect(rowsOf(answer).map((r) => [r.flightNumber, r.cancelled, r.actualAt])).toEqual([
      ['KL 1101', false, Date.parse('2024-03-27T07:05:00Z')],
      ['KL 1103', true, null],
      ['KL 1102', false, Date.parse('2024-03-28T02:10:00Z')],
    ]);
    expect(sent()).toEqual([
      ['/airports/EHAM/flights/departures', '2024-03-26T21:00:00Z', '2024-03-28T05:00:00Z', null],
      ['/airports/EHAM/flights/scheduled_departures', '2024-03-26T23:00:00Z', '2024-03-28T00:00:00Z', null],
    ]);
  });

  it('answers miss without a request between the live lists and the history (10 to 15 days ago), and for an airport it cannot name', async () => {
    const fa = await provider([KLM1395], now);
    const family: Record<string, string> = {};
    for (const date of ['2024-03-14', '2024-03-15', '2024-03-17', '2024-03-20', '2024-03-21']) {
      const before = fixture.requests.length;
      const answer = await fa.readBoardDay({ airport: 'AMS', board: 'departures', date });
      family[date] =
        answer.outcome === 'miss'
          ? 'miss'
          : fixture.requests[before]?.path.startsWith('/history/')
            ? 'history'
            : 'live';
    }
    // The 14th ends (with the runway hour) 15 days and 12 hours before noon of the 30th; the 21st
    // begins (with 2 early hours) 9 days and 15 hours before it.
    expect(family).toEqual({
      '2024-03-14': 'history',
      '2024-03-15': 'miss',
      '2024-03-17': 'miss',
      '2024-03-20': 'miss',
      '2024-03-21': 'live',
    });
    const sentBefore = fixture.requests.length;
    expect(await fa.readBoardDay({ airport: 'QQQ', board: 'arrivals', date: '2024-03-12' })).toEqual({
      outcome: 'miss',
    });
    expect(await fa.readBoardDay({ airport: 'AMS', board: 'arrivals', date: '12 March' })).toEqual({ outcome: 'miss' });
    expect(fixture.requests.length).toBe(sentBefore);
  });

  it('says a day is incomplete when a list is longer than its 100 pages', async () => {
    const busy = Array.from({ length: 1_501 }, (_, i) =>
      departing(2000 + i, new Date(Date.parse('2024-03-12T05:00:00Z') + i * 30_000).toISOString()),
    );
    const fa = await provider(busy, now, AEROAPI_KEY, 1_000);
    const answer = await fa.readBoardDay({ airport: 'AMS', board: 'departures', date: '2024-03-12' });
    expect(answer.outcome).toBe('incomplete');
    expect(rowsOf(answer)).toHaveLength(1_500);
    // 100 result sets of the first piece, then the runway hour's.
    expect(fixture.requests).toHaveLength(101);
  });
});
