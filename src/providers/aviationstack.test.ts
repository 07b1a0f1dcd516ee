// The aviationstack adapter against a local fixture server speaking its documented shapes and quirks.
import { afterEach, describe, expect, it } from 'vitest';
import { loadReferenceAirports } from '../airports/index.js';
import { ManualClock } from '../clock.js';
import {
  AVIATIONSTACK_KEY,
  TR428,
  recordedAnswer,
  startAvsFixture,
  type AvsFixture,
  type AvsFlight,
} from '../../test/helpers/aviationstack-fixture.js';
import { AviationstackProvider } from './aviationstack.js';
import type { BoardRow, ProviderFlight } from './types.js';

let fixture: AvsFixture;
afterEach(() => fixture?.close());

async function provider(flights: AvsFlight[], key = AVIATIONSTACK_KEY, now = Date.parse('2020-02-10T00:00:00Z')) {
  fixture = await startAvsFixture(flights);
  return new AviationstackProvider(
    { key, url: fixture.url, requestsPerMinute: 100 },
    new ManualClock(now),
    loadReferenceAirports(),
  );
}
const legs = (answer: unknown) => (answer as { value: ProviderFlight[] }).value;
const status = (flight_status: string, extra: Partial<AvsFlight> = {}): AvsFlight => ({
  ...TR428,
  flight_status,
  ...extra,
});
/** TR428 as it looks before take-off (no actual times) or in the air (no arrival times). */
const noActuals = { actual: null, estimated_runway: null, actual_runway: null };
const beforeTakeOff = {
  departure: { ...TR428.departure, ...noActuals, delay: null },
  arrival: { ...TR428.arrival, ...noActuals },
};
const inTheAir = { arrival: { ...TR428.arrival, ...noActuals } };

describe('aviationstack flights', () => {
  it("reads the local times labelled +00:00 in the airports' zones", async () => {
    const avs = await provider([TR428]);
    const answer = await avs.lookupFlight({ designator: 'TR428', flightDate: '2020-02-04', origin: 'SIN' });
    expect(answer.outcome).toBe('hit');
    expect(legs(answer)[0]).toMatchObject({
      provider: 'aviationstack',
      flightIata: 'TR428',
      flightIcao: 'TGW428',
      airline: { name: 'Scoot', iata: 'TR', icao: 'TGW' },
      statusRaw: 'landed',
      phase: 'landed',
      settled: true,
      aircraft: { registration: '9V-TAU', icao24: '76D035', typeIcao: 'A320', typeIata: 'A320' },
      // 20:25 in Singapore (UTC+8) is 12:25 UTC, whatever the label says.
      departure: {
        airport: { iata: 'SIN', icao: 'WSSS' },
        scheduled: Date.parse('2020-02-04T12:25:00Z'),
        actual: Date.parse('2020-02-04T12:38:00Z'),
      },
      arrival: {
        airport: { iata: 'PEN', icao: 'WMKP' },
        scheduled: Date.parse('2020-02-04T13:50:00Z'),
        actual: Date.parse('2020-02-04T13:33:00Z'),
      },
    });
    const [request] = fixture.requests;
    expect(request!.path).toBe('/flights');
    expect(request!.query.get('access_key')).toBe(AVIATIONSTACK_KEY);
    expect(request!.query.get('flight_iata')).toBe('TR428');
    expect(request!.query.get('flight_date')).toBe('2020-02-04');
    expect(fixture.requests).toHaveLength(1);
  });

  it('finds a flight filed under the next local date when it leaves before 08:00 in Singapore', async () => {
    // 07:30 on the 5th in Singapore is 23:30 UTC on the 4th.
    const early: AvsFlight = {
      ...TR428,
      flight_date: '2020-02-05',
      departure: { ...TR428.departure, scheduled: '2020-02-05T07:30:00+00:00', actual: '2020-02-05T07:41:00+00:00' },
      arrival: { ...TR428.arrival, scheduled: '2020-02-05T08:55:00+00:00', actual: '2020-02-05T08:50:00+00:00' },
    };
    const avs = await provider([early]);
    const answer = await avs.lookupFlight({ designator: 'TR428', flightDate: '2020-02-04', origin: 'SIN' });
    expect(legs(answer).map((f) => f.departure.scheduled)).toEqual([Date.parse('2020-02-04T23:30:00Z')]);
    expect(fixture.requests.map((r) => r.query.get('flight_date'))).toEqual(['2020-02-04', '2020-02-05']);
  });

  it('maps every status, and a codeshare row to its operating flight', async () => {
    // Each status with the times that go with it (docs/providers.md: a status the times contradict is a doubt).
    const expected: Record<string, [Partial<AvsFlight>, ProviderFlight['phase'], boolean, boolean, boolean]> = {
      scheduled: [beforeTakeOff, 'scheduled', false, false, false],
      active: [inTheAir, 'departed', false, false, false],
      landed: [{}, 'landed', false, false, true],
      cancelled: [{}, 'cancelled', true, false, true],
      diverted: [{}, 'diverted', false, true, true],
      incident: [inTheAir, 'unknown', false, false, false],
    };
    const avs = await provider([]);
    for (const [value, [times, phase, cancelled, diverted, settled]] of Object.entries(expected)) {
      fixture.flights.splice(0, fixture.flights.length, status(value, times));
      const answer = await avs.lookupFlight({ designator: 'TR428', flightDate: '2020-02-04', origin: 'SIN' });
      expect(answer.outcome, value).toBe(settled ? 'hit' : 'incomplete');
      expect(legs(answer)[0], value).toMatchObject({ phase, cancelled, diverted, statusRaw: value });
      expect(legs(answer)[0]!.doubts, value).toBeUndefined();
    }
    fixture.flights.splice(0, 1, {
      ...TR428,
      airline: { name: 'Singapore Airlines', iata: 'SQ', icao: 'SIA' },
      flight: {
        number: '5428',
        iata: 'SQ5428',
        icao: 'SIA5428',
        codeshared: {
          airline_name: 'scoot',
          airline_iata: 'tr',
          airline_icao: 'tgw',
          flight_number: '428',
          flight_iata: 'tr428',
          flight_icao: 'tgw428',
        },
      },
    });
    const shared = await avs.lookupFlight({ designator: 'SQ5428', flightDate: '2020-02-04', origin: 'SIN' });
    expect(legs(shared)[0]).toMatchObject({
      flightIata: 'SQ5428',
      operating: { flightIata: 'TR428', flightIcao: 'TGW428', airline: { iata: 'TR', icao: 'TGW' } },
    });
  });

  it("gives a codeshare the operating flight's status and times, from its own row (one more request)", async () => {
    // The marketing row lags (still `active`, no arrival, no aircraft); the operator's row has landed.
    const marketingRow: AvsFlight = {
      ...TR428,
      flight_status: 'active',
      arrival: { ...TR428.arrival, ...noActuals },
      aircraft: null,
      airline: { name: 'Singapore Airlines', iata: 'SQ', icao: 'SIA' },
      flight: {
        number: '5428',
        iata: 'SQ5428',
        icao: 'SIA5428',
        codeshared: {
          airline_name: 'scoot',
          airline_iata: 'tr',
          airline_icao: 'tgw',
          flight_number: '428',
          flight_iata: 'tr428',
          flight_icao: 'tgw428',
        },
      },
    };
    const avs = await provider([marketingRow, TR428]);
    const answer = await avs.lookupFlight({ designator: 'SQ5428', flightDate: '2020-02-04', origin: 'SIN' });
    expect(answer.outcome).toBe('hit');
    expect(legs(answer)[0]).toMatchObject({
      flightIata: 'SQ5428',
      flightIcao: 'SIA5428',
      airline: { name: 'Singapore Airlines', iata: 'SQ', icao: 'SIA' },
      operating: { flightIata: 'TR428', airline: { name: 'Scoot', iata: 'TR', icao: 'TGW' } },
      phase: 'landed',
      settled: true,
      statusRaw: 'landed',
      aircraft: { icao24: '76D035' },
      arrival: { actual: Date.parse('2020-02-04T13:33:00Z'), actualKind: 'runway' },
    });
    expect(fixture.requests.map((r) => [r.query.get('flight_iata'), r.query.get('flight_date')])).toEqual([
      ['SQ5428', '2020-02-04'],
      ['TR428', '2020-02-04'],
    ]);
  });

  it('reads the phase from the times when the status is missing or contradicts them, and settles only on an arrival time', async () => {
    // [status, times, phase, settled, doubt]
    const cases: [string | null, Partial<AvsFlight>, ProviderFlight['phase'], boolean, RegExp | null][] = [
      [null, {}, 'landed', true, null],
      [null, inTheAir, 'departed', false, null],
      // before take-off, the clock (2020-02-10) after the schedule: nothing is known
      [null, beforeTakeOff, 'unknown', false, null],
      ['unknown', {}, 'landed', true, null],
      ['scheduled', inTheAir, 'departed', false, /status says scheduled while a departure at 12:38 UTC/],
      ['active', {}, 'landed', false, /status says active while an arrival at 13:33 UTC/],
      ['active', beforeTakeOff, 'unknown', false, /no departure time/],
      ['landed', inTheAir, 'landed', false, /no arrival time/],
    ];
    const avs = await provider([]);
    for (const [value, times, phase, settled, doubt] of cases) {
      fixture.flights.splice(0, fixture.flights.length, { ...status('', times), flight_status: value as string });
      const answer = await avs.lookupFlight({ designator: 'TR428', flightDate: '2020-02-04', origin: 'SIN' });
      const [leg] = legs(answer);
      expect(leg, String(value)).toMatchObject({ phase, settled, statusRaw: value });
      if (doubt) expect(leg!.doubts?.join(' '), String(value)).toMatch(doubt);
      else expect(leg!.doubts, String(value)).toBeUndefined();
    }
  });

  it('drops an arrival estimate that copies the schedule while the delay field says 13 minutes, and says so', async () => {
    const avs = await provider([status('active', { arrival: { ...TR428.arrival, ...noActuals, delay: 13 } })]);
    const [leg] = legs(await avs.lookupFlight({ designator: 'TR428', flightDate: '2020-02-04', origin: 'SIN' }));
    expect(leg).toMatchObject({
      phase: 'departed',
      settled: false,
      arrival: { scheduled: Date.parse('2020-02-04T13:50:00Z'), estimated: null, actual: null },
    });
    expect(leg!.doubts).toEqual([
      'The arrival estimate equals the schedule (13:50 UTC) while the delay field says 13 minutes late; no expected arrival time is given.',
    ]);
  });

  it("reads a zone written as an offset, else the reference airports' zone first", async () => {
    // Unknown airport (no reference zone): "+8" is used as a fixed offset; SIN is known: Asia/Singapore wins over a wrong "+3".
    const row = (iata: string, timezone: string) => ({
      ...TR428,
      departure: { ...TR428.departure, iata, icao: null, timezone },
    });
    const avs = await provider([row('ZZQ', '+8'), row('SIN', '+3')]);
    const answer = await avs.lookupFlight({ designator: 'TR428', flightDate: '2020-02-04' });
    expect(legs(answer).map((f) => [f.departure.airport.iata, f.departure.scheduled])).toEqual([
      ['ZZQ', Date.parse('2020-02-04T12:25:00Z')],
      ['SIN', Date.parse('2020-02-04T12:25:00Z')],
    ]);
    const zone = avs.zone.bind(avs);
    expect([
      zone({ timezone: '+05:45' }, null),
      zone({ timezone: 'UTC-3:30' }, null),
      zone({ timezone: null }, 'FYJ'),
      zone({ timezone: null }, 'GBW'),
    ]).toEqual([345, -210, 'Asia/Shanghai', null]);
  });

  it('lists the codeshare rows of a flight asked by its operating number as its codeshares, its own row winning', async () => {
    const avs = await provider([]);
    const codeshareRow = {
      ...TR428,
      flight_status: 'active',
      flight: {
        number: '5428',
        iata: 'SQ5428',
        icao: 'SIA5428',
        codeshared: { flight_iata: 'tr428', flight_icao: 'tgw428', airline_iata: 'tr' },
      },
    };
    // A list answer, as the recorded ones: the codeshare row first, other numbers too.
    fixture.recorded.push(
      recordedAnswer(
        JSON.stringify({
          pagination: {},
          data: [codeshareRow, { ...TR428, flight: { ...TR428.flight, iata: 'TR999' } }, TR428],
        }),
      ),
    );
    const answer = await avs.lookupFlight({ designator: 'TR428', flightDate: '2020-02-04', origin: 'SIN' });
    expect(legs(answer)).toHaveLength(1);
    expect(legs(answer)[0]).toMatchObject({
      flightIata: 'TR428',
      operating: null,
      codeshares: ['SQ5428'],
      statusRaw: 'landed',
      settled: true,
    });
    expect(fixture.requests).toHaveLength(1);
  });

  it('answers miss for empty data after asking both neighbouring dates', async () => {
    const avs = await provider([TR428]);
    expect(await avs.lookupFlight({ designator: 'TR999', flightDate: '2020-02-04' })).toEqual({ outcome: 'miss' });
    // The UTC date's file first, then both neighbours at once.
    expect(fixture.requests[0]!.query.get('flight_date')).toBe('2020-02-04');
    expect(fixture.requests.map((r) => r.query.get('flight_date')).sort()).toEqual([
      '2020-02-03',
      '2020-02-04',
      '2020-02-05',
    ]);
  });

  it('names a refused key without the key, and reads an error in a 200 as what it says', async () => {
    const wrong = await provider([TR428], 'not-the-avs-key');
    const answer = await wrong.lookupFlight({ designator: 'TR428', flightDate: '2020-02-04', origin: 'SIN' });
    expect(answer).toMatchObject({
      outcome: 'error',
      error: {
        kind: 'unavailable',
        message: 'aviationstack refused the credentials (HTTP 401): You have not supplied a valid API Access Key.',
      },
    });
    expect(JSON.stringify(answer)).not.toContain('not-the-avs-key');
    await fixture.close();

    const avs = await provider([TR428]);
    fixture.script.push({
      status: 200,
      body: { error: { code: 'usage_limit_reached', message: 'Your monthly usage limit has been reached.' } },
    });
    expect(await avs.lookupFlight({ designator: 'TR428', flightDate: '2020-02-04', origin: 'SIN' })).toMatchObject({
      outcome: 'error',
      error: {
        kind: 'rate_limited',
        message: 'aviationstack: Your monthly usage limit has been reached. (usage_limit_reached)',
      },
    });
    fixture.script.push({
      status: 403,
      body: {
        error: {
          code: 'function_access_restricted',
          message: 'Your current subscription plan does not support this API function.',
        },
      },
    });
    expect(await avs.lookupFlight({ designator: 'TR428', flightDate: '2020-02-04', origin: 'SIN' })).toMatchObject({
      outcome: 'error',
      error: { kind: 'unavailable' },
    });
  });
});

describe('aviationstack timetable and airplanes', () => {
  // 06:00 UTC on 2024-08-16: 09:00 in Bucharest (UTC+3); the poll window starts at 03:00 UTC.
  const now = Date.parse('2024-08-16T06:00:00Z');
  const row = (number: string, scheduled: string, extra: Record<string, unknown> = {}) => ({
    type: 'departure',
    status: 'active',
    departure: {
      iataCode: 'otp',
      icaoCode: 'lrop',
      terminal: '1',
      gate: '12',
      delay: '25',
      scheduledTime: scheduled,
      estimatedTime: scheduled,
      actualTime: null,
    },
    arrival: {
      iataCode: 'muc',
      icaoCode: 'eddm',
      terminal: '2',
      gate: null,
      baggage: null,
      scheduledTime: '2024-08-16T15:05:00.000',
    },
    airline: { name: 'Lufthansa', iataCode: 'LH', icaoCode: 'DLH' },
    flight: { number: number.slice(2), iataNumber: number, icaoNumber: `DLH${number.slice(2)}` },
    codeshared: null,
    ...extra,
  });

  it("reads the current day's board in the airport's zone, folding codeshares into the operating row", async () => {
    const avs = await provider([], AVIATIONSTACK_KEY, now);
    fixture.timetable.push(
      row('LH1661', '2024-08-16T06:05:00.000', {
        status: 'active',
        departure: {
          iataCode: 'OTP',
          icaoCode: 'LROP',
          delay: '25',
          scheduledTime: '2024-08-16T06:05:00.000',
          estimatedTime: '2024-08-16T06:30:00.000',
          actualTime: '2024-08-16T06:30:00.000',
        },
      }),
      row('UA9123', '2024-08-16T06:05:00.000', {
        airline: { name: 'United', iataCode: 'UA', icaoCode: 'UAL' },
        codeshared: {
          airline: { name: 'lufthansa', iataCode: 'lh', icaoCode: 'dlh' },
          flight: { number: '1661', iataNumber: 'lh1661', icaoNumber: 'dlh1661' },
        },
      }),
      row('LH1663', '2024-08-16T13:10:00.000', { status: 'cancelled' }),
      row('LH1665', '2024-08-16T02:00:00.000', { status: 'landed' }), // before the window
    );
    const from = now - 3 * 3_600_000;
    const answer = await avs.readBoard({ airport: 'OTP', board: 'departures', from, to: now + 12 * 3_600_000 });
    const rows = (answer as { value: BoardRow[] }).value;
    expect(rows.map((r) => [r.flightNumber, r.status, r.cancelled, r.codeshares])).toEqual([
      ['LH 1661', 'active', false, ['UA9123']],
      ['LH 1663', 'cancelled', true, []],
    ]);
    // 06:05 in Bucharest is 03:05 UTC.
    expect(rows[0]).toMatchObject({
      scheduledAt: Date.parse('2024-08-16T03:05:00Z'),
      actualAt: Date.parse('2024-08-16T03:30:00Z'),
      destination: { iata: 'MUC', icao: 'EDDM' },
    });
    expect(fixture.requests[0]!.query.get('iataCode')).toBe('OTP');
    expect(fixture.requests[0]!.query.get('type')).toBe('departure');
  });

  it('looks an airplane up by registration, and checks the key with one call', async () => {
    const avs = await provider([TR428], AVIATIONSTACK_KEY, now);
    fixture.airplanes.push({
      registration_number: '9V-TAU',
      iata_type_code: 'A320',
      model_name: 'A320-232',
      model_code: 'A320-232',
      icao_code_hex: '76D035',
    });
    expect(await avs.lookupAircraft('9v-tau')).toEqual({
      outcome: 'hit',
      value: {
        registration: '9V-TAU',
        icao24: '76D035',
        typeIcao: null,
        typeIata: 'A320',
        label: 'A320-232',
        airline: null,
        operation: 'passenger',
        seats: null,
      },
    });
    expect(await avs.lookupAircraft('9V-XXX')).toEqual({ outcome: 'miss' });
    expect(await avs.check()).toMatchObject({ ok: true });
  });
});
