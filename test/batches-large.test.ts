// A 10,000-row CSV on the simulated world (issue 29): duplicates, bad rows, many flights of the same
// airports and days. The rows' answers equal single lookups of the same rows (every fourth row and
// every repeat compared), and the credits are exactly one per valid row.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { groundTruth, type TruthFlight } from '../src/sim/index.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';
import { expectSameAsSingle, waitForBatch } from './helpers/batches.js';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp('sqlite', { batches: { concurrency: 32, perBatch: 16 } });
  key = (await t.account({ plan: { included: 100_000, overage: false } })).key;
});
afterAll(() => t?.close());

it('answers a 10,000-row CSV row by row as single lookups do, with one credit per valid row', async () => {
  const days = ['2026-02-18', '2026-02-19', '2026-02-20'];
  const flights: TruthFlight[] = days
    .flatMap((d) => groundTruth(t.app.sim!, d))
    .filter((f) => f.operation === 'passenger');
  const distinct = flights.slice(0, 8_500);
  expect(distinct.length).toBe(8_500);
  const lines: string[] = [];
  for (let i = 0; i < 10_000; i++) {
    if (i % 100 === 99) {
      lines.push(`${i % 200 === 99 ? '' : 'W6 1'},${i % 200 === 99 ? '2026-02-20' : '20.02.2026'},,bad-${i}`);
      continue;
    }
    // About one row in nine repeats a flight of the rows before it.
    const f = i % 9 === 8 ? distinct[(i * 7) % Math.min(i, distinct.length)]! : distinct[i % distinct.length]!;
    lines.push(`${f.flightNumber},${f.flightDate},${i % 3 === 0 ? '' : f.origin},"ref ${i + 1}, ""quoted"""`);
  }
  const csv = `\uFEFFflightNumber,flightDate,origin,reference\r\n${lines.join('\r\n')}\r\n`;

  const before = Number((await t.get('/api/v1/account', bearer(key))).headers['x-credits-used']);
  const response = await t.app.http.inject({
    method: 'POST',
    url: '/api/v1/batches?skipInvalid=1',
    headers: { ...bearer(key), 'content-type': 'text/csv' },
    payload: csv,
  });
  expect(response.statusCode).toBe(202);
  const submitted = json(response).data;
  expect(submitted.rows).toBe(10_000);
  // Rows of one airport and day are read from its departures, fewer requests than lookups.
  expect(submitted.providerCalls.planned).toBeLessThan(submitted.lookups);
  const done = await waitForBatch(t, key, submitted.id, undefined, 240_000);
  expect(done.counts.byState).toMatchObject({ done: 9_900, invalid: 100, pending: 0, refused: 0 });
  expect(done.credits).toBe(9_900);
  expect(Number((await t.get('/api/v1/account', bearer(key))).headers['x-credits-used'])).toBe(before + 9_900);

  const results: any[] = [];
  for (let after = 0; ;) {
    const page = json(
      await t.get(`/api/v1/batches/${submitted.id}/results?limit=1000&after=${after}`, bearer(key)),
    ).data;
    results.push(...page.results);
    if (!page.hasMore) break;
    after = page.nextAfter;
  }
  expect(results.map((r) => r.row)).toEqual(Array.from({ length: 10_000 }, (_, i) => i + 1));
  expect(results[0].reference).toBe('ref 1, "quoted"');
  // Every fourth row, and every repeated flight, against a single lookup of the same row (a quarter of
  // the rows keeps the test's CPU from starving the suite's timing tests on two cores).
  const asked = new Map<string, any>();
  for (const row of results) {
    if (row.state === 'invalid') {
      expect(row.error).toMatch(/flightNumber|spreadsheet/);
      continue;
    }
    if (row.row % 4 !== 0 && (row.row - 1) % 9 !== 8) continue;
    const query = {
      flightNumber: row.flightNumber,
      flightDate: row.flightDate,
      ...(row.origin && lines[row.row - 1]!.split(',')[2] ? { origin: row.origin } : {}),
    };
    const id = new URLSearchParams(query).toString();
    let single = asked.get(id);
    if (!single) {
      single = json(await t.get(`/api/v1/flights/status?${id}`, bearer(key))).data;
      asked.set(id, single);
    }
    expectSameAsSingle(row, single, id);
  }
}, 600_000);
