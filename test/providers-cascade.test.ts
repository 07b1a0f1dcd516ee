// FLIGHTSTATUS_PROVIDERS=aerodatabox,aeroapi (and aeroapi, and aviationstack, alone; and
// aerodatabox,opensky) through the service, each provider a
// local fixture server: a settled answer ends the cascade, an incomplete one is completed by the next
// provider field by field, agreement and disagreement are said in the verdict, and a failing first
// provider is passed over.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { ADB_KEY, KL1395, startAdbFixture, type AdbFixture, type AdbFlight } from './helpers/aerodatabox-fixture.js';
import { AEROAPI_KEY, KLM1395, startAeroFixture, type AeroFixture, type AeroLeg } from './helpers/aeroapi-fixture.js';
import { AVIATIONSTACK_KEY, TR428, startAvsFixture, type AvsFixture } from './helpers/aviationstack-fixture.js';
import {
  OPENSKY_CLIENT_ID,
  OPENSKY_CLIENT_SECRET,
  startOpenSkyFixture,
  type OpenSkyFixture,
} from './helpers/opensky-fixture.js';
import { describeEachDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, T0, type TestApp } from './helpers/app.js';

const DATE = '2026-02-20';
const url = (flightNumber: string) =>
  `/api/v1/flights/status?${new URLSearchParams({ flightNumber, flightDate: DATE })}`;

const adb = (number: string, status: string, dep?: string, arr?: string): AdbFlight => ({
  ...KL1395,
  number: `KL ${number}`,
  callSign: `KLM${number}`,
  status,
  departure: { iata: 'AMS', icao: 'EHAM', offset: 60, scheduled: `${DATE}T07:15Z`, ...(dep ? { revised: dep } : {}) },
  arrival: { iata: 'WAW', icao: 'EPWA', offset: 60, scheduled: `${DATE}T09:10Z`, ...(arr ? { revised: arr } : {}) },
});
const fa = (number: string, status: string, out?: string, inn?: string, extra: Partial<AeroLeg> = {}): AeroLeg => ({
  ...KLM1395,
  ident_iata: `KL${number}`,
  ident_icao: `KLM${number}`,
  fa_flight_id: `KLM${number}-${DATE}`,
  status,
  origin: { icao: 'EHAM', iata: 'AMS', scheduled: `${DATE}T07:15:00Z`, actual: out },
  destination: { icao: 'EPWA', iata: 'WAW', scheduled: `${DATE}T09:10:00Z`, actual: inn },
  ...extra,
});

describeEachDatabase('the provider cascade', (kind) => {
  let adbFixture: AdbFixture;
  let faFixture: AeroFixture;
  let t: TestApp;
  let key: string;
  const lookup = async (number: string) => json(await t.get(url(number), bearer(key))).data;

  beforeAll(async () => {
    adbFixture = await startAdbFixture([
      adb('100', 'Arrived', `${DATE}T10:20Z`, `${DATE}T12:30Z`), // settled at AeroDataBox
      adb('200', 'Arrived', `${DATE}T10:20Z`), // arrived, but no arrival time: incomplete
      adb('300', 'EnRoute', `${DATE}T10:20Z`), // in the air when asked
      adb('500', 'Arrived', `${DATE}T07:20Z`, `${DATE}T09:12Z`),
      // Landed (runway 09:20) 8 minutes after it reached its gate (revised 09:12): it contradicts itself, and
      // a reading (the landing right, a taxi-in after it) makes it more than 15 minutes late: it cannot settle.
      {
        ...adb('600', 'Arrived', `${DATE}T07:20Z`),
        arrival: {
          iata: 'WAW',
          icao: 'EPWA',
          offset: 60,
          scheduled: `${DATE}T09:10Z`,
          revised: `${DATE}T09:12Z`,
          runway: `${DATE}T09:20Z`,
        },
      },
      {
        ...adb('700', 'Arrived', `${DATE}T07:20Z`),
        arrival: {
          iata: 'WAW',
          icao: 'EPWA',
          offset: 60,
          scheduled: `${DATE}T09:10Z`,
          revised: `${DATE}T09:12Z`,
          runway: `${DATE}T09:20Z`,
        },
      },
    ]);
    faFixture = await startAeroFixture(
      [
        fa('100', 'Arrived', `${DATE}T10:21:00Z`, `${DATE}T12:31:00Z`),
        fa('200', 'Arrived / Gate Arrival', `${DATE}T10:22:00Z`, `${DATE}T12:40:00Z`),
        fa('300', 'Arrived', `${DATE}T10:45:00Z`, `${DATE}T12:50:00Z`), // 25 minutes later off-block than AeroDataBox saw
        fa('500', 'Arrived', `${DATE}T07:20:00Z`, `${DATE}T09:12:00Z`),
        fa('600', 'Arrived', `${DATE}T07:21:00Z`, `${DATE}T09:13:00Z`),
      ],
      T0,
    );
    t = await startTestApp(kind, {
      providerNames: ['aerodatabox', 'aeroapi'],
      upstream: {
        aerodatabox: { key: ADB_KEY, url: adbFixture.url, requestsPerMinute: 1000 },
        aeroapi: { key: AEROAPI_KEY, url: faFixture.url, requestsPerMinute: 1000 },
      },
      webhooks: { intervalMs: 365 * 24 * 3600_000 },
    });
    key = (await t.account()).key;
  });
  afterAll(async () => {
    await t?.close();
    await adbFixture?.close();
    await faFixture?.close();
  });

  it('stops at a settled answer: the next provider is skipped and never called', async () => {
    const data = await lookup('KL100');
    expect(data.sources.map((s: { provider: string; outcome: string }) => [s.provider, s.outcome])).toEqual([
      ['aerodatabox', 'hit'],
      ['aeroapi', 'skipped'],
    ]);
    expect(data.selected).toMatchObject({ status: 'delayed', delayMinutes: 200, source: 'aerodatabox' });
    expect(faFixture.requests).toHaveLength(0);
  });

  it('completes an incomplete answer from the next provider, field by field, and says they agree', async () => {
    const data = await lookup('KL200');
    expect(data.sources.map((s: { provider: string; outcome: string }) => [s.provider, s.outcome])).toEqual([
      ['aerodatabox', 'incomplete'],
      ['aeroapi', 'hit'],
    ]);
    expect(data.selected).toMatchObject({ complete: true, status: 'delayed', delayMinutes: 210, source: 'aeroapi' });
    const fields = Object.fromEntries(
      data.sources.map((s: { provider: string; fields: string[] }) => [s.provider, s.fields]),
    );
    expect(fields.aeroapi).toEqual(expect.arrayContaining(['actualArrival', 'actualDeparture']));
    // AeroDataBox's actual departure (10:20) is within 5 minutes of AeroAPI's (10:22).
    expect(data.flightDelay.disruption).toMatchObject({
      confidence: 'high',
      sources: expect.arrayContaining(['aeroapi', 'aerodatabox']),
    });
    expect(data.flightDelay.disruption.rationale.join(' ')).toMatch(
      /aeroapi and aerodatabox agree within 5 minutes on .*actualDeparture/,
    );
  });

  it('says when the providers disagree on what happened, and lowers the confidence', async () => {
    const data = await lookup('KL300');
    expect(data.selected).toMatchObject({ complete: true, source: 'aeroapi' });
    expect(data.flightDelay.disruption.confidence).toBe('medium');
    expect(data.flightDelay.disruption.rationale.join(' ')).toMatch(
      /disagree by more than 5 minutes on actualDeparture/,
    );
  });

  it('does not stop at a settled answer that contradicts itself: the next provider settles it', async () => {
    const data = await lookup('KL600');
    expect(data.sources.map((s: { provider: string; outcome: string }) => [s.provider, s.outcome])).toEqual([
      ['aerodatabox', 'incomplete'],
      ['aeroapi', 'hit'],
    ]);
    // AeroAPI's runway and block times are the record's: AeroDataBox's contradiction is not its concern.
    expect(data.selected).toMatchObject({ complete: true, source: 'aeroapi', status: 'on_time', delayMinutes: 3 });
    const aeroapi = data.sources.find((s: { provider: string }) => s.provider === 'aeroapi');
    expect(aeroapi.times).toEqual(
      expect.arrayContaining([
        { field: 'actualArrival', kind: 'block', at: `${DATE}T09:13:00.000Z` },
        { field: 'takeOff', kind: 'runway', at: `${DATE}T07:33:00.000Z` },
        { field: 'scheduledDeparture', kind: 'scheduled', at: `${DATE}T07:15:00.000Z` },
      ]),
    );
    expect(data.flightDelay.disruption.rationale.join(' ')).not.toMatch(/aerodatabox: The landing/);
  });

  it('gives the verdict of a picture that contradicts itself, unsettled, with the contradiction and lowered confidence', async () => {
    const data = await lookup('KL700'); // AeroAPI does not know it
    expect(data.sources.map((s: { provider: string; outcome: string }) => [s.provider, s.outcome])).toEqual([
      ['aerodatabox', 'incomplete'],
      ['aeroapi', 'miss'],
    ]);
    expect(data.selected).toMatchObject({ complete: false, status: 'on_time', delayMinutes: 2 });
    expect(data.compensation).toBeNull();
    expect(data.flightDelay.disruption.confidence).toBe('medium');
    const rationale = data.flightDelay.disruption.rationale.join(' ');
    expect(rationale).toContain('aerodatabox: The landing (09:20 UTC) is after the on-block time (09:12 UTC).');
    expect(rationale).toContain(
      'could be anything from 2 to 30 minutes, across the 15-minute limit, so the record is not settled',
    );
  });

  it('goes past a failing first provider and reports its failure', async () => {
    adbFixture.script.push({ status: 503 }, { status: 503 }, { status: 503 });
    const data = await lookup('KL500');
    expect(data.sources).toEqual([
      expect.objectContaining({
        provider: 'aerodatabox',
        outcome: 'error',
        error: { kind: 'unavailable', message: 'aerodatabox answered HTTP 503' },
      }),
      expect.objectContaining({ provider: 'aeroapi', outcome: 'hit' }),
    ]);
    expect(data.selected).toMatchObject({ status: 'on_time', delayMinutes: 2 });
  });

  it('answers 500 naming every provider, with sources, when one fails and the others do not know the flight', async () => {
    adbFixture.script.push({ status: 503 }, { status: 503 }, { status: 503 });
    const response = await t.get(url('KL998'), bearer(key));
    expect(response.statusCode).toBe(500);
    const body = json(response);
    expect(body).toMatchObject({ success: false, code: 'internal' });
    expect(body.message).toMatch(/\(aerodatabox: failed \(unavailable\), aeroapi: not found\).*retried safely/);
    expect(body.sources).toEqual([
      expect.objectContaining({
        provider: 'aerodatabox',
        outcome: 'error',
        error: { kind: 'unavailable', message: 'aerodatabox answered HTTP 503' },
      }),
      expect.objectContaining({ provider: 'aeroapi', outcome: 'miss', error: null }),
    ]);
    expect(response.headers['x-credits-used']).toBeDefined();
  });

  it('answers selected null when no provider knows the flight', async () => {
    const data = await lookup('KL999');
    expect(data.selected).toBeNull();
    expect(data.sources.map((s: { outcome: string }) => s.outcome)).toEqual(['miss', 'miss']);
  });
});

describeEachDatabase('real flights from AeroAPI alone', (kind) => {
  let fixture: AeroFixture;
  let t: TestApp;
  let key: string;
  const lookup = async (number: string) => json(await t.get(url(number), bearer(key))).data;

  beforeAll(async () => {
    fixture = await startAeroFixture(
      [
        fa('610', 'Arrived / Delayed', `${DATE}T10:45:00Z`, `${DATE}T12:52:00Z`),
        fa('620', 'Cancelled', undefined, undefined, { cancelled: true }),
        fa('630', 'Diverted', `${DATE}T07:20:00Z`, `${DATE}T09:40:00Z`, {
          diverted: true,
          destination: { icao: 'EPKT', iata: 'KTW', scheduled: `${DATE}T09:10:00Z`, actual: `${DATE}T09:40:00Z` },
        }),
        fa('630', 'Arrived', `${DATE}T11:00:00Z`, `${DATE}T11:50:00Z`, {
          origin: { icao: 'EPKT', iata: 'KTW', scheduled: `${DATE}T10:50:00Z`, actual: `${DATE}T11:00:00Z` },
        }),
        fa('640', 'Arrived', `${DATE}T07:16:00Z`, `${DATE}T09:05:00Z`),
      ],
      T0,
    );
    t = await startTestApp(kind, {
      providerNames: ['aeroapi'],
      upstream: { aeroapi: { key: AEROAPI_KEY, url: fixture.url, requestsPerMinute: 1000 } },
    });
    key = (await t.account()).key;
  });
  afterAll(async () => {
    await t?.close();
    await fixture?.close();
  });

  it('gives the verdicts of delayed, cancelled, diverted and on-time flights', async () => {
    expect((await lookup('KL610')).selected).toMatchObject({
      status: 'delayed',
      delayMinutes: 222,
      statusRaw: 'Arrived / Delayed',
      complete: true,
    });
    expect((await lookup('KL620')).selected).toMatchObject({ status: 'cancelled', isCancelled: true, complete: true });
    const diverted = await lookup('KLM630');
    expect(diverted.selected).toMatchObject({
      status: 'diverted',
      isDiverted: true,
      destinationIata: 'WAW',
      complete: true,
    });
    expect(diverted.flightDelay.disruption.rationale.join(' ')).toMatch(/diverted to KTW/);
    expect((await lookup('KL640')).selected).toMatchObject({ status: 'on_time', delayMinutes: -5 });
  });
});

describeEachDatabase('real flights from aviationstack alone', (kind) => {
  let fixture: AvsFixture;
  let t: TestApp;
  let key: string;
  let logs = '';

  beforeAll(async () => {
    // MAD → WAW, local times (UTC+1 both in February) labelled +00:00: 3 h 20 min late at the gate.
    fixture = await startAvsFixture([
      {
        ...TR428,
        flight_date: DATE,
        flight_status: 'landed',
        departure: {
          timezone: 'Europe/Madrid',
          iata: 'MAD',
          icao: 'LEMD',
          scheduled: `${DATE}T09:00:00+00:00`,
          actual: `${DATE}T12:15:00+00:00`,
        },
        arrival: {
          timezone: 'Europe/Warsaw',
          iata: 'WAW',
          icao: 'EPWA',
          scheduled: `${DATE}T12:25:00+00:00`,
          actual: `${DATE}T15:45:00+00:00`,
        },
        airline: { name: 'Iberia', iata: 'IB', icao: 'IBE' },
        flight: { number: '3110', iata: 'IB3110', icao: 'IBE3110', codeshared: null },
      },
    ]);
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logs += String(chunk);
        done();
      },
    });
    t = await startTestApp(kind, {
      providerNames: ['aviationstack'],
      upstream: { aviationstack: { key: AVIATIONSTACK_KEY, url: fixture.url, requestsPerMinute: 1000 } },
      logger: createLogger('debug', sink),
    });
    key = (await t.account()).key;
  });
  afterAll(async () => {
    await t?.close();
    await fixture?.close();
  });

  it('gives the verdict of a delayed flight from local times, and its access_key reaches no log line or response', async () => {
    const response = await t.get(url('IB3110'), bearer(key));
    const data = json(response).data;
    expect(data.selected).toMatchObject({
      status: 'delayed',
      delayMinutes: 200,
      departureDelayMinutes: 195,
      complete: true,
      source: 'aviationstack',
    });
    expect(data.selected.scheduledDeparture).toBe(`${DATE}T08:00:00.000Z`);
    expect(data.compensation.eu261).toMatchObject({ amountEur: 400 });
    fixture.script.push(
      { status: 500, body: { error: { code: 'internal_error', message: `boom ${AVIATIONSTACK_KEY}` } } },
      { status: 500 },
      { status: 500 },
    );
    const failing = await t.get(url('IB3999'), bearer(key));
    expect(failing.statusCode).toBe(500);
    for (const text of [response.body, failing.body, logs, (await t.admin('GET', '/api/admin/v1/providers')).body])
      expect(text).not.toContain(AVIATIONSTACK_KEY);
    expect(logs).toContain('provider lookup failed');
  });
});

describeEachDatabase('OpenSky corroborating AeroDataBox', (kind) => {
  let adbFixture: AdbFixture;
  let osky: OpenSkyFixture;
  let t: TestApp;
  let key: string;
  const lookup = async (number: string) => json(await t.get(url(number), bearer(key))).data;
  const s = (iso: string) => Date.parse(iso) / 1000;
  const withRunways = (number: string, modeS: string): AdbFlight => {
    const f = adb(number, 'Arrived', `${DATE}T07:20Z`, `${DATE}T09:15Z`);
    return {
      ...f,
      aircraft: { reg: 'PH-EXD', modeS, model: 'Embraer 175' },
      departure: { ...f.departure, runway: `${DATE}T07:32Z` },
      arrival: { ...f.arrival, runway: `${DATE}T09:08Z` },
    };
  };

  beforeAll(async () => {
    adbFixture = await startAdbFixture([
      withRunways('700', '4851F4'),
      withRunways('710', '48AE21'),
      withRunways('720', '3C6444'),
    ]);
    osky = await startOpenSkyFixture([
      {
        icao24: '4851f4',
        firstSeen: s(`${DATE}T07:34:00Z`),
        lastSeen: s(`${DATE}T09:07:00Z`),
        estDepartureAirport: 'EHAM',
        estArrivalAirport: 'EPWA',
        callsign: 'KLM700  ',
      },
      {
        icao24: '48ae21',
        firstSeen: s(`${DATE}T08:10:00Z`),
        lastSeen: s(`${DATE}T09:40:00Z`),
        estDepartureAirport: 'EHAM',
        estArrivalAirport: 'EPWA',
        callsign: 'KLM710  ',
      },
    ]);
    t = await startTestApp(kind, {
      providerNames: ['aerodatabox', 'opensky'],
      upstream: {
        aerodatabox: { key: ADB_KEY, url: adbFixture.url, requestsPerMinute: 1000 },
        opensky: {
          clientId: OPENSKY_CLIENT_ID,
          clientSecret: OPENSKY_CLIENT_SECRET,
          url: osky.apiUrl,
          authUrl: osky.authUrl,
          requestsPerMinute: 1000,
        },
      },
    });
    key = (await t.account()).key;
  });
  afterAll(async () => {
    await t?.close();
    await adbFixture?.close();
    await osky?.close();
  });

  it('is asked after a settled answer and says when ADS-B corroborates the runway times', async () => {
    const data = await lookup('KL700');
    expect(
      data.sources.map((x: { provider: string; outcome: string; fields: string[] }) => [
        x.provider,
        x.outcome,
        x.fields,
      ]),
    ).toEqual([
      ['aerodatabox', 'hit', expect.arrayContaining(['actualArrival'])],
      ['opensky', 'incomplete', ['takeOff', 'landing']],
    ]);
    // OpenSky supplies evidence only: the record, its status and its times are AeroDataBox's.
    expect(data.selected).toMatchObject({
      source: 'aerodatabox',
      status: 'on_time',
      delayMinutes: 5,
      actualDeparture: `${DATE}T07:20:00.000Z`,
    });
    expect(data.flightDelay.disruption.confidence).toBe('high');
    const rationale = data.flightDelay.disruption.rationale.join(' ');
    expect(rationale).toContain(
      "opensky saw it take off at 07:34 UTC by ADS-B, 2 minutes from aerodatabox's runway time: it corroborates it.",
    );
    expect(rationale).toContain(
      "opensky saw it land at 09:07 UTC by ADS-B, 1 minutes from aerodatabox's runway time: it corroborates it.",
    );
  });

  it('lowers the confidence when ADS-B contradicts the runway times', async () => {
    const data = await lookup('KL710');
    expect(data.flightDelay.disruption.confidence).toBe('medium');
    expect(data.flightDelay.disruption.rationale.join(' ')).toMatch(
      /take off at 08:10 UTC by ADS-B, 38 minutes from aerodatabox's runway time \(07:32 UTC\): one of them is wrong/,
    );
  });

  it('is skipped when nothing was found, and finds nothing for an aircraft it never saw', async () => {
    const unknown = await lookup('KL999');
    expect(unknown.sources.map((x: { outcome: string }) => x.outcome)).toEqual(['miss', 'skipped']);
    const unseen = await lookup('KL720'); // an aircraft OpenSky has no flight of
    expect(unseen.sources.map((x: { outcome: string }) => x.outcome)).toEqual(['hit', 'miss']);
    expect(unseen.flightDelay.disruption.confidence).toBe('high');
  });
});
