// A provider that does not answer within FLIGHTSTATUS_PROVIDER_TIMEOUT_MS, through the service: the
// lookup's sources say `timeout`, and so do the operator's counters, /metrics and the providers API
// (the lookup's own deadline fires first and aborts the provider's call; that abort is a deadline,
// not a caller that went away).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADB_KEY, KL1395, startAdbFixture, type AdbFixture } from './helpers/aerodatabox-fixture.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';
import { describeEachDatabase } from './helpers/databases.js';

const TIMEOUT_MS = 300;

describeEachDatabase('a provider past its deadline', (kind) => {
  let fixture: AdbFixture;
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    fixture = await startAdbFixture([KL1395]);
    t = await startTestApp(kind, {
      providerNames: ['aerodatabox'],
      upstream: { aerodatabox: { key: ADB_KEY, url: fixture.url, requestsPerMinute: 1000 } },
      providerTimeoutMs: TIMEOUT_MS,
      webhooks: { intervalMs: 365 * 24 * 3600_000 },
    });
    key = (await t.account()).key;
  });
  afterAll(async () => {
    await t?.close();
    await fixture?.close();
  });

  it('is counted as a timeout in /metrics and in the providers API, as the lookup says', async () => {
    // Every request the lookup may send hangs well past the deadline.
    for (let i = 0; i < 4; i++) fixture.script.push({ status: 200, body: [], delayMs: 5000 });
    const answer = await t.get('/api/v1/flights/status?flightNumber=KL1395&flightDate=2024-03-12', bearer(key));
    expect(answer.statusCode, answer.body).toBe(500);
    expect(json(answer).message).toContain('aerodatabox: failed (timeout)');

    const metrics = await t.admin('GET', '/metrics');
    expect(metrics.statusCode).toBe(200);
    const calls = metrics.body.split('\n').filter((line) => line.startsWith('flightstatus_provider_calls_total{'));
    expect(calls).toEqual([
      expect.stringMatching(/^flightstatus_provider_calls_total\{.*outcome="error:timeout".*\} 1$/),
    ]);
    expect(calls[0]).toContain('provider="aerodatabox"');

    const [provider] = json(await t.admin('GET', '/api/admin/v1/providers')).data.providers;
    expect(provider.calls.flight.outcomes).toEqual({ 'error:timeout': 1 });
    expect(provider.lastError).toMatchObject({ kind: 'timeout', message: `no answer within ${TIMEOUT_MS} ms` });
  }, 30_000);
});
