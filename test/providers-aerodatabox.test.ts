// FLIGHTSTATUS_PROVIDERS=aerodatabox as a new user runs it, with a local fixture server standing in
// for AeroDataBox: lookups through the API give the right verdicts for delayed, cancelled, diverted,
// on-time, unknown and failing flights; the poller turns the provider's boards into webhook events;
// the operator sees every call; and the key never reaches a log line or a response.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import {
  ADB_KEY,
  flightContract,
  KL1395,
  startAdbFixture,
  type AdbFixture,
  type AdbFlight,
} from './helpers/aerodatabox-fixture.js';
import { describeEachDatabase, itWithoutDatabase } from './helpers/databases.js';
import { ADMIN_TOKEN, bearer, json, startTestApp, T0, type TestApp } from './helpers/app.js';
import { runCli, startService } from './helpers/process.js';

const DATE = '2026-02-20';
const url = (query: Record<string, string>) => `/api/v1/flights/status?${new URLSearchParams(query)}`;

/** MAD (+01:00 in February) to WAW, scheduled 08:00–11:25 UTC; `over` sets the status and times. */
function madWaw(
  number: string,
  status: string,
  dep: { revised?: string } = {},
  arr: { revised?: string } = {},
): AdbFlight {
  return {
    ...KL1395,
    number,
    callSign: `IBE${number.replace(/\D/g, '')}`,
    status,
    airline: { name: 'Iberia', iata: 'IB', icao: 'IBE' },
    departure: { iata: 'MAD', icao: 'LEMD', offset: 60, scheduled: `${DATE}T08:00Z`, ...dep },
    arrival: { iata: 'WAW', icao: 'EPWA', offset: 60, scheduled: `${DATE}T11:25Z`, ...arr },
  };
}

const FLIGHTS: AdbFlight[] = [
  madWaw('IB 3110', 'Arrived', { revised: `${DATE}T11:20Z` }, { revised: `${DATE}T14:50Z` }), // 205 minutes late
  madWaw('IB 3112', 'Canceled'),
  madWaw('IB 3114', 'Diverted', { revised: `${DATE}T08:05Z` }),
  madWaw('IB 3116', 'Arrived', { revised: `${DATE}T08:04Z` }, { revised: `${DATE}T11:31Z` }), // 6 minutes late
  madWaw('IB 3118', 'CanceledUncertain'),
];

describeEachDatabase('real flights from AeroDataBox', (kind) => {
  let fixture: AdbFixture;
  let t: TestApp;
  let key: string;
  let logs = '';
  const lookup = async (flightNumber: string) => {
    const response = await t.get(url({ flightNumber, flightDate: DATE }), bearer(key));
    expect(response.body).not.toContain(ADB_KEY);
    return response;
  };

  beforeAll(async () => {
    fixture = await startAdbFixture([...FLIGHTS]);
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logs += String(chunk);
        done();
      },
    });
    t = await startTestApp(kind, {
      providerNames: ['aerodatabox'],
      upstream: { aerodatabox: { key: ADB_KEY, url: fixture.url, requestsPerMinute: 1000 } },
      logger: createLogger('debug', sink),
      // The board test below runs its poll itself.
      webhooks: { intervalMs: 365 * 24 * 3600_000 },
    });
    key = (await t.account()).key;
  });
  afterAll(async () => {
    await t?.close();
    await fixture?.close();
  });

  it('gives the verdicts of delayed, cancelled, diverted and on-time flights, and names the provider', async () => {
    const delayed = json(await lookup('IB3110')).data;
    expect(delayed).toMatchObject({
      originIata: 'MAD',
      destinationIata: 'WAW',
      selected: {
        found: true,
        complete: true,
        status: 'delayed',
        delayMinutes: 205,
        departureDelayMinutes: 200,
        statusRaw: 'Arrived',
      },
      flightDelay: { disruption: { type: 'delay', confidence: 'high', sources: ['aerodatabox'] } },
      meta: { source: 'aerodatabox', persisted: true },
    });
    expect(delayed.sources).toEqual([
      expect.objectContaining({
        provider: 'aerodatabox',
        outcome: 'hit',
        error: null,
        fields: expect.arrayContaining(['actualArrival', 'scheduledDeparture']),
      }),
    ]);
    expect(delayed.compensation.eu261).toMatchObject({ amountEur: 400 });

    const cancelled = json(await lookup('IB3112')).data;
    expect(cancelled.selected).toMatchObject({
      status: 'cancelled',
      isCancelled: true,
      statusRaw: 'Canceled',
      complete: true,
    });
    const diverted = json(await lookup('IB3114')).data;
    expect(diverted.selected).toMatchObject({ status: 'diverted', isDiverted: true, statusRaw: 'Diverted' });
    const onTime = json(await lookup('IB3116')).data;
    expect(onTime.selected).toMatchObject({ status: 'on_time', delayMinutes: 6, complete: true });
    // "Probably cancelled" is not a cancellation: the record stays incomplete and says nothing it does not know.
    const uncertain = json(await lookup('IB3118')).data;
    expect(uncertain.selected).toMatchObject({ isCancelled: false, complete: false, statusRaw: 'CanceledUncertain' });
    expect(uncertain.meta.persisted).toBe(false);
  });

  it('answers an unknown flight with selected null, and a failing provider with a 500 that is safe to retry', async () => {
    const unknown = json(await lookup('IB9999')).data;
    expect(unknown).toMatchObject({ selected: null, sources: [{ provider: 'aerodatabox', outcome: 'miss' }] });

    fixture.script.push({ status: 503, body: { message: 'upstream down' } }, { status: 503 }, { status: 503 });
    const failing = await lookup('IB3116');
    expect(failing.statusCode).toBe(500);
    expect(json(failing).message).toMatch(/aerodatabox: failed \(unavailable\).*retried safely/);
    expect(json(failing).sources).toEqual([expect.objectContaining({ provider: 'aerodatabox', outcome: 'error' })]);
  });

  it('replays a settled record without calling the provider again', async () => {
    const before = fixture.requests.length;
    const again = json(await lookup('IB3110')).data;
    expect(again.meta.cached).toBe(true);
    expect(again.selected.delayMinutes).toBe(205);
    expect(fixture.requests.length).toBe(before);
  });

  it('shows the operator every call, by kind and outcome, and never the key', async () => {
    const response = await t.admin('GET', '/api/admin/v1/providers');
    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain(ADB_KEY);
    const [adb] = json(response).data.providers;
    expect(adb).toMatchObject({
      name: 'aerodatabox',
      position: 1,
      url: fixture.url,
      requestsPerMinute: 1000,
      circuit: 'closed',
      requests: fixture.requests.length,
      calls: { flight: { outcomes: { hit: 4, incomplete: 1, miss: 1, 'error:unavailable': 1 } } },
      lastError: { kind: 'unavailable' },
    });
    expect(adb.calls.flight.latencyMs.p99).toBeGreaterThan(0);
  });

  it("turns the provider's boards into webhook events", async () => {
    const now = T0;
    const at = (minutes: number) => new Date(now + minutes * 60_000).toISOString();
    // At MAD around the test clock's now: one flight 4 hours late, one cancelled, one on time.
    fixture.flights.push(
      {
        ...madWaw('IB 3200', 'Delayed'),
        departure: { iata: 'MAD', icao: 'LEMD', offset: 60, scheduled: at(60), revised: at(300) },
        arrival: { iata: 'WAW', icao: 'EPWA', offset: 60, scheduled: at(265) },
      },
      {
        ...madWaw('IB 3202', 'Canceled'),
        departure: { iata: 'MAD', icao: 'LEMD', offset: 60, scheduled: at(90) },
        arrival: { iata: 'WAW', icao: 'EPWA', offset: 60, scheduled: at(295) },
      },
      {
        ...madWaw('IB 3204', 'Expected'),
        departure: { iata: 'MAD', icao: 'LEMD', offset: 60, scheduled: at(120), revised: at(122) },
        arrival: { iata: 'WAW', icao: 'EPWA', offset: 60, scheduled: at(325) },
      },
    );
    const { accountId } = await t.account();
    await t.app.db.kysely
      .insertInto('endpoints')
      .values({
        id: 'wh_adbboard01',
        account_id: accountId,
        name: 'MAD',
        url: 'https://example.com/hook',
        airports: JSON.stringify(['MAD']),
        enabled: 1,
        secret: 'whsec_test',
        consecutive_failures: 0,
        created_at: t.clock.now(),
        updated_at: t.clock.now(),
        disabled_at: null,
        disabled_reason: null,
      })
      .execute();
    const report = await t.app.poller.pass(t.clock.now());
    expect(report).toMatchObject({ airports: 1, boards: 2, failedBoards: [] });
    const events = await t.app.db.kysely.selectFrom('board_events').select(['type', 'data', 'board']).execute();
    const of = (number: string) =>
      events.filter((e) => JSON.parse(e.data).flight.flightNumber === number).map((e) => e.type);
    expect(of('IB 3200')).toEqual(expect.arrayContaining(['flight.tracked', 'flight.delayed', 'flight.qualifying']));
    expect(of('IB 3202')).toEqual(expect.arrayContaining(['flight.tracked', 'flight.cancelled']));
    expect(of('IB 3204')).toEqual(['flight.tracked']);
    const boardRequests = fixture.requests.filter((r) => r.path.startsWith('/flights/airports/iata/MAD/'));
    // Two boards of a 15-hour window, two pieces each.
    expect(boardRequests).toHaveLength(4);
  });

  it('shares one provider call between identical lookups in flight at the same moment', async () => {
    const before = fixture.requests.length;
    const calls = async () =>
      json(await t.admin('GET', '/api/admin/v1/providers')).data.providers[0].calls.flight.calls as number;
    const callsBefore = await calls();
    // The provider takes 300 ms to answer: the three lookups overlap.
    fixture.script.push({ status: 200, body: [flightContract(FLIGHTS[3]!)], delayMs: 300 });
    const responses = await Promise.all(
      [0, 1, 2].map(() => t.get(url({ flightNumber: 'IB3116', flightDate: DATE, origin: 'MAD' }), bearer(key))),
    );
    for (const response of responses)
      expect(json(response).data.selected).toMatchObject({ status: 'on_time', delayMinutes: 6 });
    expect(fixture.requests.length - before).toBe(1);
    expect((await calls()) - callsBefore).toBe(1);
  });

  it('never writes the key to a log line', () => {
    expect(logs).toContain('provider lookup failed');
    expect(logs).not.toContain(ADB_KEY);
  });
});

itWithoutDatabase(
  'flightstatus providers check asks the running service, whose providers lookups use, and says so',
  async () => {
    const fixture = await startAdbFixture([]);
    const service = await startService({
      FLIGHTSTATUS_PROVIDERS: 'aerodatabox,sim',
      FLIGHTSTATUS_AERODATABOX_URL: fixture.url,
      FLIGHTSTATUS_AERODATABOX_KEY: ADB_KEY,
      FLIGHTSTATUS_ADMIN_TOKEN: ADMIN_TOKEN,
      DATABASE_URL: 'sqlite::memory:',
    });
    try {
      // Another shell, as the docs show it: none of the service's provider settings, only the token.
      const port = new URL(service.url).port;
      const asked = await runCli(['providers', 'check'], { FLIGHTSTATUS_ADMIN_TOKEN: ADMIN_TOKEN, PORT: port });
      expect(asked.code, asked.stderr).toBe(0);
      expect(asked.stderr).toContain(`checked the providers of the service at http://127.0.0.1:${port}`);
      const data = JSON.parse(asked.stdout).data;
      expect(data.checked).toEqual({ target: 'service', url: `http://127.0.0.1:${port}` });
      expect(data.providers).toEqual([
        {
          provider: 'aerodatabox',
          ok: true,
          message: expect.stringMatching(/the key works/),
          durationMs: expect.any(Number),
        },
        { provider: 'sim', ok: true, message: expect.any(String), durationMs: 0 },
      ]);
      // Without the token it cannot ask, and says how to go on.
      const refused = await runCli(['providers', 'check', '--url', service.url], {});
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        /set FLIGHTSTATUS_ADMIN_TOKEN as the service has it to check its providers, or run providers check --local/,
      );
      // --local checks this shell's configuration, and says that is what it checked.
      const local = await runCli(['providers', 'check', '--local'], { PORT: port });
      expect(local.code).toBe(0);
      expect(JSON.parse(local.stdout).data.checked).toEqual({ target: 'configuration', providers: 'sim' });
      expect(local.stderr).toContain("checked this shell's configuration (FLIGHTSTATUS_PROVIDERS=sim)");
    } finally {
      await service.stop();
      await fixture.close();
    }
  },
);

itWithoutDatabase(
  'flightstatus providers check, where no service answers, calls each provider of this shell once and says whether its key works',
  async () => {
    const fixture = await startAdbFixture([]);
    try {
      // PORT 1: nothing listens there.
      const env = {
        FLIGHTSTATUS_PROVIDERS: 'aerodatabox,sim',
        FLIGHTSTATUS_AERODATABOX_URL: fixture.url,
        FLIGHTSTATUS_ADMIN_TOKEN: ADMIN_TOKEN,
        PORT: '1',
      };
      const good = await runCli(['providers', 'check'], { ...env, FLIGHTSTATUS_AERODATABOX_KEY: ADB_KEY });
      expect(good.code).toBe(0);
      expect(good.stderr).toContain(
        "no service answered at http://127.0.0.1:1; checking this shell's configuration instead",
      );
      expect(JSON.parse(good.stdout).data.checked).toEqual({ target: 'configuration', providers: 'aerodatabox,sim' });
      expect(JSON.parse(good.stdout).data.providers).toEqual([
        {
          provider: 'aerodatabox',
          ok: true,
          message: expect.stringMatching(/the key works/),
          durationMs: expect.any(Number),
        },
        { provider: 'sim', ok: true, message: expect.any(String), durationMs: 0 },
      ]);
      const bad = await runCli(['providers', 'check'], { ...env, FLIGHTSTATUS_AERODATABOX_KEY: 'wrong-key-123' });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('flightstatus: aerodatabox: aerodatabox refused the credentials (HTTP 401)');
      expect(bad.stdout + bad.stderr).not.toContain('wrong-key-123');
      // A listed provider without its key stops the command, naming the variable.
      const missing = await runCli(['providers', 'check'], env);
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toContain('FLIGHTSTATUS_AERODATABOX_KEY must be set');
    } finally {
      await fixture.close();
    }
  },
);
