// A batch through the AeroDataBox adapter (issue 29): the simulated world's true flights served by a
// stand-in speaking AeroDataBox's schema (bench/sim-adb.mjs). The plan reads a past day of an
// airport whole (both boards, kept) where five or more lookups depart it, every row answers what a
// single lookup of it answers, and the requests the batch says it made are the requests the stand-in
// received. And the
// board poll reading the stand-in's boards with legs: a flight to an airport nobody watches is then
// answered from its origin's departures row, with no request for the flight.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSimWorld, groundTruth, type TruthFlight } from '../src/sim/index.js';
import { loadReferenceAirports } from '../src/airports/index.js';
import { offsetMinutes } from '../src/providers/zones.js';
import { adbFlights, startSimAdb } from '../bench/sim-adb.mjs';
import { HOUR, ManualClock } from '../src/clock.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';
import { expectSameAsSingle, waitForBatch } from './helpers/batches.js';
import { insertEndpoint } from './helpers/endpoints.js';

const KEY = 'adb-batch-key-29';
const DATE = '2026-02-20';
let t: TestApp;
let key: string;
let fixture: Awaited<ReturnType<typeof startSimAdb>>;
let day: TruthFlight[];

beforeAll(async () => {
  const world = createSimWorld('flightstatus');
  day = [...groundTruth(world, DATE), ...groundTruth(world, '2026-02-19'), ...groundTruth(world, '2026-02-21')].filter(
    (f) => f.operation === 'passenger',
  );
  const airports = loadReferenceAirports();
  fixture = await startSimAdb(
    adbFlights(day, (iata: string) => airports.find(iata), offsetMinutes),
    KEY,
  );
  t = await startTestApp('sqlite', {
    providerNames: ['aerodatabox'],
    upstream: { aerodatabox: { key: KEY, url: fixture.url, requestsPerMinute: 100_000 } },
  });
  key = (await t.account({ plan: { included: 100_000, overage: false } })).key;
});
afterAll(async () => {
  await t?.close();
  await fixture?.close();
});

it('reads busy days of departures whole, answers each row as a single lookup would, and counts the requests it made', async () => {
  const today = day.filter((f) => f.flightDate === DATE && f.scheduledDeparture.slice(0, 10) === DATE);
  const byOrigin = new Map<string, TruthFlight[]>();
  for (const f of today) byOrigin.set(f.origin, [...(byOrigin.get(f.origin) ?? []), f]);
  const [busy, other, third] = [...byOrigin.values()].sort((a, b) => b.length - a.length);
  // Ten flights out of each of two busy airports, two out of a third (alone: 1 each). The day is over,
  // so each busy airport's day is read with both boards and kept (4 requests: src/boards/days.ts); the
  // rows are then answered from the kept rows.
  const chosen = [...busy!.slice(0, 10), ...other!.slice(0, 10), ...third!.slice(0, 2)];
  const rows = chosen.map((f, i) => ({
    flightNumber: f.flightNumber,
    flightDate: DATE,
    origin: f.origin,
    reference: `r${i + 1}`,
  }));
  rows.push({ ...rows[0]!, reference: 'again' }, { ...rows[11]!, reference: 'again' });

  const before = fixture.total();
  const response = await t.app.http.inject({
    method: 'POST',
    url: '/api/v1/batches',
    headers: { ...bearer(key), 'content-type': 'application/json' },
    payload: JSON.stringify(rows),
  });
  expect(response.statusCode).toBe(202);
  const submitted = json(response).data;
  expect(submitted.lookups).toBe(22);
  // Two airport-days (4 requests each) and two flights alone (1 each).
  expect(submitted.providerCalls.planned).toBe(10);
  const boards = fixture.requests.board;
  const done = await waitForBatch(t, key, submitted.id);
  expect(done.counts.byState.done).toBe(rows.length);
  const made = fixture.total() - before;
  expect(done.providerCalls.made).toBe(made);
  // Fewer than one request per distinct flight (the naive plan asks each at least once).
  // Each airport's coverage asked once (its feeds), then each board of its day read in two 12-hour windows.
  expect(fixture.requests.coverage).toBe(2);
  expect(fixture.requests.board - boards).toBe(8);
  expect(made).toBeLessThan(22);

  // Each row against a single lookup of it, now.
  const results = json(await t.get(`/api/v1/batches/${submitted.id}/results?limit=100`, bearer(key))).data.results;
  for (const row of results) {
    const single = json(
      await t.get(
        `/api/v1/flights/status?${new URLSearchParams({ flightNumber: row.flightNumber, flightDate: DATE, origin: row.origin })}`,
        bearer(key),
      ),
    ).data;
    expect(single.selected, row.flightNumber).not.toBeNull();
    expectSameAsSingle(row, single, row.flightNumber);
  }
});

it("reads no day outside the airport's stored flights: the lookups are asked one by one", async () => {
  // The stand-in stores 2026-02-19 to 2026-02-21; a day before is past its coverage.
  const rows = ['W61001', 'W61002', 'W61003', 'W61004'].map((flightNumber) => ({
    flightNumber,
    flightDate: '2026-02-10',
    origin: 'OTP',
  }));
  const boards = fixture.requests.board;
  const flights = fixture.requests.flight;
  const response = await t.app.http.inject({
    method: 'POST',
    url: '/api/v1/batches',
    headers: { ...bearer(key), 'content-type': 'application/json' },
    payload: JSON.stringify(rows),
  });
  const submitted = json(response).data;
  expect(submitted.providerCalls.planned).toBe(2);
  const done = await waitForBatch(t, key, submitted.id);
  expect(done.counts.byOutcome.not_found).toBe(4);
  expect(fixture.requests.board).toBe(boards);
  expect(fixture.requests.flight - flights).toBeGreaterThanOrEqual(4);
});

it("answers flights to airports nobody watches from the poll's departures rows, read with legs, with no request for the flight", async () => {
  // A service of its own, its clock at noon of the stand-in's last day.
  const now = Date.parse('2026-02-21T12:00:00Z');
  const app = await startTestApp('sqlite', {
    clock: new ManualClock(now),
    providerNames: ['aerodatabox'],
    upstream: { aerodatabox: { key: KEY, url: fixture.url, requestsPerMinute: 100_000 } },
  });
  try {
    const account = await app.account({ plan: { included: 100_000, overage: false } });
    // Only Madrid is watched: every flight leaving it lands at an airport whose board nobody reads.
    await insertEndpoint(app, {
      accountId: account.accountId,
      airports: ['MAD'],
      url: 'https://receiver.example/hook',
    });
    const report = await app.app.poller.pass(now);
    expect(report).toMatchObject({ airports: 1, boards: 2, failedBoards: [] });
    expect(report.observed).toBeGreaterThan(0);
    // Left Madrid within the poll's 3-hour look-back, and landed (or were cancelled) an hour before it.
    const seen = day.filter((f) => {
      const left = Date.parse(f.scheduledDeparture);
      return (
        f.origin === 'MAD' &&
        f.status !== 'diverted' &&
        left >= now - 3 * HOUR &&
        left < now &&
        Date.parse(f.actualArrival ?? f.scheduledArrival) + HOUR <= now
      );
    });
    expect(seen.length).toBeGreaterThan(5);
    const rows = seen.map((f, i) => ({
      flightNumber: f.flightNumber,
      flightDate: f.flightDate,
      origin: 'MAD',
      reference: `m${i + 1}`,
    }));
    const flights = fixture.requests.flight;
    const boards = fixture.requests.board;
    const response = await app.app.http.inject({
      method: 'POST',
      url: '/api/v1/batches',
      headers: { ...bearer(account.key), 'content-type': 'application/json' },
      payload: JSON.stringify(rows),
    });
    expect(response.statusCode).toBe(202);
    const done = await waitForBatch(app, account.key, json(response).data.id);
    expect(done.counts.byState.done).toBe(rows.length);
    // Not one flight asked, nor a day of departures: only the aircraft's days of disrupted flights.
    expect(fixture.requests.flight).toBe(flights);
    expect(fixture.requests.board).toBe(boards);

    const results = json(await app.get(`/api/v1/batches/${done.id}/results?limit=100`, bearer(account.key))).data
      .results;
    for (const [i, row] of results.entries()) {
      const single = json(
        await app.get(
          `/api/v1/flights/status?${new URLSearchParams({ flightNumber: rows[i]!.flightNumber, flightDate: rows[i]!.flightDate, origin: 'MAD', refresh: 'true' })}`,
          bearer(account.key),
        ),
      ).data;
      const what = `${row.reference} ${row.flightNumber}`;
      expect(
        single.sources.map((s: { provider: string }) => s.provider),
        what,
      ).toEqual(['aerodatabox']);
      expect(single.selected, what).not.toBeNull();
      expectSameAsSingle(row, single, what);
    }
  } finally {
    await app.close();
  }
});
