// Fairness between accounts (issue 29): one account's big batch does not hold back another's small
// one, and the batch API stays answered while a batch runs.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { groundTruth } from '../src/sim/index.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';
import { waitForBatch } from './helpers/batches.js';

let t: TestApp;
beforeAll(async () => {
  // Every flight lookup takes 20 ms, as a real provider's would take longer: a batch of 1,500 runs for seconds.
  t = await startTestApp('sqlite', {
    sim: { latency: { flight: { min: 20, max: 20 } } },
    batches: { concurrency: 16, perBatch: 8 },
  });
});
afterAll(() => t?.close());

it("answers another account's 10 rows while one account's 1,500 are still running", async () => {
  const big = await t.account({ plan: { included: 100_000, overage: false } });
  const small = await t.account();
  const flights = groundTruth(t.app.sim!, '2026-02-20').filter((f) => f.operation === 'passenger');
  const submit = (key: string, rows: unknown[]) =>
    t.app.http.inject({
      method: 'POST',
      url: '/api/v1/batches',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: JSON.stringify(rows),
    });
  const bigRows = flights.slice(0, 1_500).map((f) => ({ flightNumber: f.flightNumber, flightDate: f.flightDate }));
  const bigId = json(await submit(big.key, bigRows)).data.id;
  // The big batch is under way before the small one comes.
  await waitForBatch(t, big.key, bigId, (b) => b.progress.finished >= 50);
  const smallId = json(
    await submit(
      small.key,
      flights.slice(1_500, 1_510).map((f) => ({ flightNumber: f.flightNumber, flightDate: f.flightDate })),
    ),
  ).data.id;
  const smallDone = await waitForBatch(t, small.key, smallId);
  expect(smallDone.counts.byState.done).toBe(10);
  const bigNow = json(await t.get(`/api/v1/batches/${bigId}`, bearer(big.key))).data;
  expect(bigNow.state).toBe('running');
  expect(bigNow.progress.percent).toBeLessThan(90);
  await waitForBatch(t, big.key, bigId, undefined, 120_000);
}, 180_000);
