// Webhook endpoints and signed, at-least-once delivery, through HTTP on both databases, on the
// manual clock, with real local receivers. Signatures are checked here by an implementation of the
// scheme written from spec 6.4 alone (not the service's code).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { createLogger } from '../src/logger.js';
import { describeEachDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';
import { observe } from './helpers/events.js';
import { startReceiver, type Answer, type Received, type Receiver } from './helpers/receiver.js';
import { apiFor, deliveryHarness, type Api } from './helpers/webhooks.js';

/** Spec 6.4, independently: HMAC-SHA256 over "<t>.<raw body>", hex, constant-time compare. */
function signedBy(received: Received, secret: string): boolean {
  // t=<seconds>, then one v1 per secret signing (two during a rotation's overlap): any may match.
  const header = String(received.headers['x-flight-signature'] ?? '');
  const match = /^t=(\d+)((?:,v1=[0-9a-f]{64})+)$/.exec(header);
  if (!match) return false;
  if (Math.abs(Date.now() / 1000 - Number(match[1])) > 300) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.concat([Buffer.from(`${match[1]}.`), received.raw]))
    .digest();
  return match[2]!
    .split(',v1=')
    .slice(1)
    .some((v1) => timingSafeEqual(expected, Buffer.from(v1, 'hex')));
}

const advance = async (t: TestApp, seconds: number) => {
  const moved = await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: seconds });
  expect(moved.statusCode).toBe(200);
  return json(moved).data;
};

describeEachDatabase('webhook endpoints', (kind) => {
  let t: TestApp;
  let api: Api;
  let other: Api;

  beforeAll(async () => {
    t = await startTestApp(kind);
    api = apiFor(t, (await t.account()).key);
    other = apiFor(t, (await t.account()).key);
  });
  afterAll(() => t.close());

  it('creates an endpoint with its secret, normalising airports (aliases, case, duplicates)', async () => {
    const created = await api('POST', '/api/v1/webhooks', {
      name: ' claims ',
      url: 'http://127.0.0.1:9/hooks',
      airports: ['otp', 'KIV', 'RMO', 'eap'],
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      name: 'claims',
      url: 'http://127.0.0.1:9/hooks',
      airports: ['OTP', 'RMO', 'BSL'],
      enabled: true,
      consecutiveFailures: 0,
      disabledAt: null,
      createdAt: '2026-03-01T12:00:00.000Z',
    });
    expect(created.body.data.id).toMatch(/^wh_[0-9A-Za-z]{20}$/);
    expect(created.body.data.secret).toMatch(/^whsec_[0-9A-Za-z]{43}$/);

    const listed = await api('GET', '/api/v1/webhooks');
    expect(listed.status).toBe(200);
    expect(listed.body.data.webhooks).toHaveLength(1);
    expect(listed.body.data.webhooks[0].secret).toBeUndefined();
    const one = await api('GET', `/api/v1/webhooks/${created.body.data.id}`);
    expect(one.body.data).toEqual(listed.body.data.webhooks[0]);
  });

  it('refuses bad input with a 400 that names the field and the value, and stores nothing', async () => {
    const cases: [unknown, RegExp][] = [
      [
        { name: 'x', url: 'https://example.com/h', airports: ['OTP', 'XYZ'] },
        /airports: "XYZ" is not a catalogue airport/,
      ],
      [{ name: 'x', url: 'example.com/h', airports: ['OTP'] }, /url must be an absolute URL/],
      [{ name: 'x', url: 'ftp://example.com/h', airports: ['OTP'] }, /url must use https \(got "ftp"\)/],
      [
        { name: 'x', url: 'https://user:pw@example.com/h', airports: ['OTP'] },
        /url must not contain a user name or password/,
      ],
      [{ name: '', url: 'https://example.com/h', airports: ['OTP'] }, /body.name must be at least 1 characters/],
      [{ name: 'x', url: 'https://example.com/h' }, /body.airports is required/],
      [{ name: 'x', url: 'https://example.com/h', airports: ['OTP'], colour: 'red' }, /unknown field "colour"/],
      [{ name: 'x', url: 'https://example.com/h', airports: 'OTP' }, /body.airports must be an array/],
    ];
    for (const [body, message] of cases) {
      const response = await api('POST', '/api/v1/webhooks', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body).toMatchObject({ success: false, code: 'invalid_request' });
      expect(response.body.message).toMatch(message);
    }
    const malformed = await t.app.http.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: { ...bearer((await t.account()).key), 'content-type': 'application/json' },
      payload: '{"name": "x", "url": ',
    });
    expect(malformed.statusCode).toBe(400);
    expect(json(malformed).message).not.toMatch(/at .*\.js/);
    expect((await api('GET', '/api/v1/webhooks')).body.data.webhooks).toHaveLength(1);
  });

  it('changes name, url and airports; rotates the secret; deletes', async () => {
    const { data } = (
      await api('POST', '/api/v1/webhooks', { name: 'a', url: 'http://127.0.0.1:9/a', airports: ['MAD'] })
    ).body;
    const patched = await api('PATCH', `/api/v1/webhooks/${data.id}`, { airports: ['MAD', 'BCN'], name: 'b' });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ name: 'b', airports: ['MAD', 'BCN'], url: 'http://127.0.0.1:9/a' });
    expect((await api('PATCH', `/api/v1/webhooks/${data.id}`, {})).body.message).toMatch(/at least 1 field/);
    expect((await api('PATCH', `/api/v1/webhooks/${data.id}`, { airports: ['ZZZ'] })).status).toBe(400);

    const rotated = await api('POST', `/api/v1/webhooks/${data.id}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(data.secret);

    expect((await api('DELETE', `/api/v1/webhooks/${data.id}`)).body.data).toEqual({ id: data.id, deleted: true });
    expect((await api('GET', `/api/v1/webhooks/${data.id}`)).status).toBe(404);
    expect((await api('DELETE', `/api/v1/webhooks/${data.id}`)).status).toBe(404);
  });

  it("hides one account's endpoints from another (404, as if they did not exist)", async () => {
    const { data } = (
      await api('POST', '/api/v1/webhooks', { name: 'mine', url: 'http://127.0.0.1:9/m', airports: ['MAD'] })
    ).body;
    expect((await other('GET', '/api/v1/webhooks')).body.data.webhooks).toEqual([]);
    for (const [method, path] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/rotate'],
      ['POST', '/test'],
      ['POST', '/enable'],
      ['POST', '/disable'],
      ['GET', '/deliveries'],
    ] as const) {
      const response = await other(
        method,
        `/api/v1/webhooks/${data.id}${path}`,
        method === 'PATCH' ? { name: 'stolen' } : undefined,
      );
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    expect((await api('GET', `/api/v1/webhooks/${data.id}`)).body.data.name).toBe('mine');
    const anonymous = await t.app.http.inject({ method: 'GET', url: '/api/v1/webhooks' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('allows at most 100 endpoints per account', async () => {
    const own = apiFor(t, (await t.account()).key);
    for (let i = 0; i < 100; i++)
      expect(
        (await own('POST', '/api/v1/webhooks', { name: `n${i}`, url: 'http://127.0.0.1:9/x', airports: ['OTP'] }))
          .status,
      ).toBe(201);
    const refused = await own('POST', '/api/v1/webhooks', {
      name: 'one more',
      url: 'http://127.0.0.1:9/x',
      airports: ['OTP'],
    });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/100 webhook endpoints/);
  });
});

describeEachDatabase('webhook endpoint cap under concurrent creates', (kind) => {
  it('stores exactly 100 endpoints when 300 creates of one account arrive at once on two service instances; the rest get 409', async () => {
    const t = await startTestApp(kind);
    // A second service on the same database, as a second process would be (its own connections).
    const second = await buildApp({ config: t.config, clock: t.clock, logger: createLogger('silent') });
    try {
      const { key, accountId } = await t.account();
      const responses = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          (i % 2 === 0 ? t.app : second).http.inject({
            method: 'POST',
            url: '/api/v1/webhooks',
            headers: bearer(key),
            payload: { name: `c${i}`, url: 'http://127.0.0.1:9/x', airports: ['OTP'] },
          }),
        ),
      );
      const statuses = responses.map((r) => r.statusCode);
      expect(statuses.filter((s) => s === 201)).toHaveLength(100);
      expect(statuses.filter((s) => s === 409)).toHaveLength(200);
      for (const refused of responses.filter((r) => r.statusCode === 409)) {
        expect(json(refused)).toMatchObject({
          success: false,
          code: 'conflict',
          message: expect.stringMatching(/already has 100 webhook endpoints/),
        });
      }
      const stored = await t.app.db.kysely
        .selectFrom('endpoints')
        .select('id')
        .where('account_id', '=', accountId)
        .execute();
      expect(stored).toHaveLength(100);
    } finally {
      await second.close();
      await t.close();
    }
  });
});

describe('webhook targets with the production policy', () => {
  let t: TestApp;
  let api: Api;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp('sqlite', { webhooks: { allowHttp: false, allowPrivate: false } });
    api = apiFor(t, (await t.account()).key);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('refuses http, and private, loopback, link-local and metadata addresses in any spelling', async () => {
    const refused: [string, RegExp][] = [
      ['http://example.com/h', /url must use https \(plain http is accepted only when/],
      ['https://127.0.0.1/h', /127\.0\.0\.1 is a loopback address/],
      ['https://0x7f.1/h', /127\.0\.0\.1 is a loopback address/],
      ['https://2130706433/h', /127\.0\.0\.1 is a loopback address/],
      ['https://[::1]/h', /::1 is a loopback address/],
      ['https://[::ffff:127.0.0.1]/h', /loopback address/],
      ['https://[::7f00:1]/h', /::7f00:1 is a deprecated IPv4-compatible address of 127\.0\.0\.1, a loopback address/],
      ['https://[::127.0.0.1]/h', /IPv4-compatible address of 127\.0\.0\.1, a loopback address/],
      ['https://[64:ff9b::a9fe:a9fe]/h', /NAT64 address of 169\.254\.169\.254, a linkLocal address/],
      ['https://[64:ff9b:1::808:808]/h', /local-use NAT64/],
      ['https://[2002:a00:1::1]/h', /6to4 address of 10\.0\.0\.1, a private address/],
      ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/h', /Teredo address of 127\.0\.0\.1, a loopback address/],
      ['https://10.1.2.3/h', /private address/],
      ['https://192.168.0.10:8443/h', /private address/],
      ['https://169.254.169.254/latest/meta-data', /linkLocal address/],
      ['https://[fd00:ec2::254]/h', /uniqueLocal address/],
      ['https://100.100.100.200/h', /carrierGradeNat address/],
      ['https://0.0.0.0/h', /unspecified address/],
      ['https://localhost:8080/h', /localhost is loopback/],
      ['https://hooks.localhost/h', /loopback/],
    ];
    for (const [url, message] of refused) {
      const response = await api('POST', '/api/v1/webhooks', { name: 'x', url, airports: ['OTP'] });
      expect(response.status, url).toBe(400);
      expect(response.body.message, url).toMatch(message);
    }
    expect((await api('GET', '/api/v1/webhooks')).body.data.webhooks).toEqual([]);
  });

  it('checks the connected address again at send time, so a stored private target gets nothing', async () => {
    // As if the name had resolved publicly at registration and to loopback later (DNS rebinding).
    const { accountId, key } = await t.account();
    const now = t.clock.now();
    await t.app.db.kysely
      .insertInto('endpoints')
      .values({
        id: 'wh_rebound00000000000',
        account_id: accountId,
        name: 'rebound',
        url: `https://127.0.0.1:${new URL(receiver.url).port}/h`,
        airports: JSON.stringify(['OTP']),
        enabled: 1,
        secret: 'whsec_x',
        consecutive_failures: 0,
        created_at: now,
        updated_at: now,
        disabled_at: null,
        disabled_reason: null,
      })
      .execute();
    await observe(t, 'OTP', 1);
    await advance(t, 120);
    const test = await apiFor(t, key)('POST', '/api/v1/webhooks/wh_rebound00000000000/test');
    expect(test.body.data).toMatchObject({ delivered: false, statusCode: null });
    expect(test.body.data.error).toBe(
      'refused: url must not point at a private address (127.0.0.1 is a loopback address)',
    );
    const deliveries = (await apiFor(t, key)('GET', '/api/v1/webhooks/wh_rebound00000000000/deliveries')).body.data
      .deliveries;
    // Newest first: the test send (failed for good, never retried), then the board change's delivery.
    expect(deliveries).toHaveLength(2);
    expect(deliveries[0]).toMatchObject({
      id: test.body.data.deliveryId,
      type: 'webhook.test',
      state: 'failed',
      attempts: 1,
      lastStatusCode: null,
      lastError: test.body.data.error,
    });
    expect(deliveries[1]).toMatchObject({ state: 'retrying', attempts: 1, lastStatusCode: null });
    expect(deliveries[1].lastError).toBe(test.body.data.error);
    expect(receiver.received).toHaveLength(0);
  });
});

/**
 * A test app with an account, and helpers that start receivers (closed after the suite) and register
 * endpoints pointing at them. Call inside a describe block: it installs beforeAll and afterAll.
 */
describeEachDatabase('webhook delivery of board changes', (kind) => {
  const h = deliveryHarness(kind);
  const { receiver, endpoint, deliveries } = h;
  const api: Api = (...args) => h.api(...args);

  it('sends a board change to exactly the endpoints that select its airport, signed and with the 6.3 body', async () => {
    const [a, b, c] = [await receiver(), await receiver(), await receiver()];
    const otp = await endpoint(a, ['OTP'], 'otp only');
    const mad = await endpoint(b, ['MAD'], 'mad only');
    const both = await endpoint(c, ['MAD', 'OTP'], 'both');
    const disabled = await endpoint(await receiver(), ['OTP'], 'paused');
    await api('POST', `/api/v1/webhooks/${disabled.id}/disable`);

    // The next half hour's board poll observes OTP and MAD; the delivery cycle of the same minute sends.
    const runs = (await advance(h.t, 30 * 60)).runs.map((r: { job: string }) => r.job);
    expect(runs.filter((job: string) => !job.startsWith('watch-')).slice(-2)).toEqual([
      'board-poll',
      'webhook-deliver',
    ]);
    const events = await h.t.app.db.kysely.selectFrom('board_events').selectAll().execute();
    const at = (airport: string) => events.filter((e) => e.airport === airport);
    expect(at('OTP').length).toBeGreaterThan(10);
    expect(at('MAD').length).toBeGreaterThan(10);

    expect(a.received.map((r) => r.body.event).sort()).toEqual(
      at('OTP')
        .map((e) => e.id)
        .sort(),
    );
    expect(b.received.map((r) => r.body.event).sort()).toEqual(
      at('MAD')
        .map((e) => e.id)
        .sort(),
    );
    expect(c.received.map((r) => r.body.event).sort()).toEqual([...at('OTP'), ...at('MAD')].map((e) => e.id).sort());
    expect(h.receivers[3]!.received).toEqual([]);

    for (const [r, hook] of [
      [a, otp],
      [b, mad],
      [c, both],
    ] as const) {
      for (const got of r.received) {
        expect(signedBy(got, hook.secret)).toBe(true);
        expect(signedBy(got, otp === hook ? mad.secret : otp.secret)).toBe(false);
        const event = events.find((e) => e.id === got.body.event)!;
        expect(got.headers).toMatchObject({
          'content-type': 'application/json',
          'x-flight-event': event.id,
          'x-flight-event-type': event.type,
          'x-flight-delivery': got.body.id,
          'x-flight-webhook': hook.id,
          'x-flight-attempt': '1',
        });
        expect(got.body).toEqual({
          id: got.body.id,
          event: event.id,
          type: event.type,
          createdAt: new Date(Number(event.created_at)).toISOString(),
          webhook: { id: hook.id, name: hook.name, airports: hook.airports },
          airport: expect.objectContaining({
            iata: event.airport,
            timezone: expect.any(String),
            city: expect.any(String),
          }),
          data: JSON.parse(event.data),
        });
        expect(got.body.id).toMatch(/^dlv_/);
      }
    }
    // One event id for every subscriber; one delivery id per endpoint.
    const cOtp = c.received.filter((r) => r.body.airport.iata === 'OTP');
    expect(new Set(cOtp.map((r) => r.body.event))).toEqual(new Set(a.received.map((r) => r.body.event)));
    expect(new Set([...a.received, ...c.received].map((r) => r.body.id)).size).toBe(
      a.received.length + c.received.length,
    );

    const listed = await deliveries(otp.id, '?limit=5');
    expect(listed).toHaveLength(5);
    expect(listed[0]).toMatchObject({
      state: 'delivered',
      attempts: 1,
      lastStatusCode: 204,
      lastError: null,
      nextAttemptAt: null,
    });
  });
});

// Delivery mechanics on changes stored through the board store; the board poll is kept out of the way.
describeEachDatabase('webhook delivery', (kind) => {
  const h = deliveryHarness(kind, { webhooks: { timeoutMs: 300 }, pollIntervalMs: 365 * 24 * 3600_000 });
  const { receiver, endpoint, deliveries } = h;
  const api: Api = (...args) => h.api(...args);

  it('does not backfill: a new endpoint, or an airport added later, gets only what is observed afterwards', async () => {
    const r = await receiver();
    const hook = await endpoint(r, ['VIE']);
    await observe(h.t, 'BCN', 3);
    await api('PATCH', `/api/v1/webhooks/${hook.id}`, { airports: ['VIE', 'BCN'] });
    await advance(h.t, 120);
    expect(r.received).toEqual([]);
    const later = await observe(h.t, 'BCN', 2);
    await advance(h.t, 120);
    expect(r.received.map((x) => x.body.event).sort()).toEqual(later.map((e) => e.id).sort());
  });

  it('retries after 1, 5, 20 and 60 minutes, re-sending the same id and bytes, then fails for good', async () => {
    const r = await receiver(() => 500);
    const hook = await endpoint(r, ['LIS']);
    const [event] = await observe(h.t, 'LIS', 1);
    const observedAt = h.t.clock.now();
    // The wait after an attempt at `at` is the schedule's step within ±10 % (jitter); returns when the next is due.
    const expectNext = async (attempts: number, at: number, stepMinutes: number | null) => {
      const d = (await deliveries(hook.id))[0]!;
      expect(d).toMatchObject({
        event: event!.id,
        attempts,
        lastStatusCode: 500,
        lastAttemptAt: new Date(at).toISOString(),
      });
      if (stepMinutes === null) {
        expect(d.nextAttemptAt).toBeNull();
        return { d, due: 0 };
      }
      const wait = Date.parse(d.nextAttemptAt!) - at;
      expect(wait).toBeGreaterThanOrEqual(stepMinutes * 60_000 * 0.9);
      expect(wait).toBeLessThanOrEqual(stepMinutes * 60_000 * 1.1);
      return { d, due: at + wait };
    };
    // Attempt 1 at the first cycle (the next even minute), then each retry at the first cycle on or after its due time.
    const first = Math.ceil((observedAt + 1) / 120_000) * 120_000;
    await advance(h.t, (first - h.t.clock.now()) / 1000);
    let { due } = await expectNext(1, first, 1);
    for (const [attempt, wait] of [
      [2, 5],
      [3, 20],
      [4, 60],
    ] as const) {
      const cycle = Math.ceil(due / 120_000) * 120_000;
      await advance(h.t, (cycle - h.t.clock.now()) / 1000);
      ({ due } = await expectNext(attempt, cycle, wait));
    }
    const last = Math.ceil(due / 120_000) * 120_000;
    await advance(h.t, (last - h.t.clock.now()) / 1000);
    const { d: final } = await expectNext(5, last, null);
    expect(final.state).toBe('failed');
    expect(final.lastError).toMatch(/receiver answered 500/);
    await advance(h.t, 3 * 3600);
    expect(r.received.map((x) => x.headers['x-flight-attempt'])).toEqual(['1', '2', '3', '4', '5']);
    expect(new Set(r.received.map((x) => x.body.id)).size).toBe(1);
    expect(new Set(r.received.map((x) => x.raw.toString())).size).toBe(1);
  });

  it('counts redirects and slow receivers as failures and follows nothing', async () => {
    const elsewhere = await receiver();
    const redirecting = await receiver(() => ({ status: 302, headers: { location: `${elsewhere.url}/x` } }));
    const slow = await receiver(() => ({ status: 200, delayMs: 1000 }));
    const r1 = await endpoint(redirecting, ['NAP']);
    const r2 = await endpoint(slow, ['NAP']);
    await observe(h.t, 'NAP', 1);
    await advance(h.t, 120);
    expect((await deliveries(r1.id))[0]).toMatchObject({ state: 'retrying', attempts: 1, lastStatusCode: 302 });
    expect((await deliveries(r1.id))[0]!.lastError).toMatch(/redirect 302 not followed/);
    expect((await deliveries(r2.id))[0]).toMatchObject({ state: 'retrying', attempts: 1, lastStatusCode: null });
    expect((await deliveries(r2.id))[0]!.lastError).toMatch(/no answer within 0.3 s/);
    expect(elsewhere.received).toEqual([]);
    expect((await api('GET', `/api/v1/webhooks/${r1.id}`)).body.data.consecutiveFailures).toBe(1);
  });

  it('disables an endpoint after 25 consecutive failures made under its backoff, stops its queue, and resumes it on enable', async () => {
    let status = 503;
    const r = await receiver(() => status);
    const hook = await endpoint(r, ['ALC']);
    const endpointNow = async () => (await api('GET', `/api/v1/webhooks/${hook.id}`)).body.data;
    await observe(h.t, 'ALC', 40);
    // The queue is not burnt through in one cycle: the first attempts (in flight together) count as one
    // failure, and the endpoint then gets one probe per pause, the pause at most one cycle.
    await advance(h.t, 120);
    expect(await endpointNow()).toMatchObject({ enabled: true, consecutiveFailures: 1 });
    expect(r.received.length).toBeLessThanOrEqual(8);
    const burst = r.received.length;
    // 23 more cycles (46 minutes): still enabled, one probe each.
    await advance(h.t, 23 * 120);
    expect(await endpointNow()).toMatchObject({ enabled: true, consecutiveFailures: 24 });
    expect(r.received.length).toBe(burst + 23);
    // The 25th counted failure, 48 minutes after the first, disables it (spec 3.4).
    await advance(h.t, 120);
    const after = await endpointNow();
    expect(after).toMatchObject({
      enabled: false,
      consecutiveFailures: 25,
      disabledReason: '25 consecutive failed deliveries',
    });
    const sent = r.received.length;
    expect(sent).toBe(burst + 24);
    const waiting = (await deliveries(hook.id, '?limit=200')).filter((d: { state: string }) => d.state !== 'delivered');
    expect(waiting.every((d: { nextAttemptAt: string | null }) => d.nextAttemptAt === null)).toBe(true);

    await advance(h.t, 2 * 3600); // the queue has stopped: nothing more is sent
    expect(r.received).toHaveLength(sent);

    status = 204;
    const enabled = await api('POST', `/api/v1/webhooks/${hook.id}/enable`);
    expect(enabled.body.data).toMatchObject({
      enabled: true,
      consecutiveFailures: 0,
      disabledAt: null,
      resumedDeliveries: 40,
    });
    await advance(h.t, 120);
    const all = await deliveries(hook.id, '?limit=200');
    expect(all).toHaveLength(40);
    expect(all.every((d: { state: string }) => d.state === 'delivered')).toBe(true);
    expect(new Set(r.received.map((x) => x.body.id)).size).toBe(40);
  });

  it('resets the failure counter on any 2xx, a test send included; a failed test send does not count', async () => {
    let status = 500;
    const r = await receiver(() => status);
    const hook = await endpoint(r, ['CTA']);
    await observe(h.t, 'CTA', 3);
    await advance(h.t, 120);
    // Three attempts in flight together when the receiver failed: one failure of the receiver.
    expect((await api('GET', `/api/v1/webhooks/${hook.id}`)).body.data.consecutiveFailures).toBe(1);
    await advance(h.t, 120); // one probe (the endpoint is paused after a failure), failed: counted
    expect((await api('GET', `/api/v1/webhooks/${hook.id}`)).body.data.consecutiveFailures).toBe(2);

    const failedTest = (await api('POST', `/api/v1/webhooks/${hook.id}/test`)).body.data;
    expect(failedTest).toMatchObject({ delivered: false, statusCode: 500 });
    expect((await api('GET', `/api/v1/webhooks/${hook.id}`)).body.data.consecutiveFailures).toBe(2);

    status = 200;
    const test = (await api('POST', `/api/v1/webhooks/${hook.id}/test`)).body.data;
    expect(test).toMatchObject({ delivered: true, statusCode: 200, error: null });
    const got = r.received[r.received.length - 1]!;
    expect(got.body).toMatchObject({
      id: test.deliveryId,
      event: test.event,
      type: 'webhook.test',
      webhook: { id: hook.id },
      airport: { iata: 'CTA' },
    });
    expect(signedBy(got, hook.secret)).toBe(true);
    expect((await api('GET', `/api/v1/webhooks/${hook.id}`)).body.data.consecutiveFailures).toBe(0);

    status = 500;
    await observe(h.t, 'CTA', 2);
    await advance(h.t, 120);
    // The two new deliveries and the due retries of the first three went out together (the counter was
    // reset, so the endpoint was not paused) and failed together: one failure.
    expect((await api('GET', `/api/v1/webhooks/${hook.id}`)).body.data.consecutiveFailures).toBe(1);
    status = 202;
    await advance(h.t, 120); // the due retries succeed
    expect((await api('GET', `/api/v1/webhooks/${hook.id}`)).body.data.consecutiveFailures).toBe(0);
  });

  it('signs board deliveries with both secrets during a rotation overlap, and switches at once with none', async () => {
    const r = await receiver();
    const hook = await endpoint(r, ['BRI']);
    await observe(h.t, 'BRI', 1);
    await advance(h.t, 120);
    const overlapped = (await api('POST', `/api/v1/webhooks/${hook.id}/rotate`)).body.data; // a day by default
    await observe(h.t, 'BRI', 1);
    await advance(h.t, 120);
    const rotated = (await api('POST', `/api/v1/webhooks/${hook.id}/rotate`, { overlapSeconds: 0 })).body.data;
    await observe(h.t, 'BRI', 1);
    await advance(h.t, 120);
    const test = (await api('POST', `/api/v1/webhooks/${hook.id}/test`)).body.data;
    expect(test.delivered).toBe(true);
    const [before, during, afterRotation, testSend] = r.received;
    expect(signedBy(before!, hook.secret)).toBe(true);
    expect([signedBy(during!, overlapped.secret), signedBy(during!, hook.secret)]).toEqual([true, true]);
    for (const got of [afterRotation!, testSend!]) {
      expect(signedBy(got, rotated.secret)).toBe(true);
      expect(signedBy(got, overlapped.secret)).toBe(false);
      expect(signedBy(got, hook.secret)).toBe(false);
    }
  });

  it('drops the queue of a deleted endpoint', async () => {
    const r = await receiver(() => 500);
    const hook = await endpoint(r, ['PSA']);
    await observe(h.t, 'PSA', 2);
    await advance(h.t, 120);
    expect(r.received).toHaveLength(2);
    await api('DELETE', `/api/v1/webhooks/${hook.id}`);
    await advance(h.t, 3600);
    expect(r.received).toHaveLength(2);
    expect(
      await h.t.app.db.kysely.selectFrom('deliveries').selectAll().where('endpoint_id', '=', hook.id).execute(),
    ).toEqual([]);
  });
});

describeEachDatabase('webhooks of a disabled account', (kind) => {
  it('queue nothing new while the operator keeps the account disabled', async () => {
    const t = await startTestApp(kind, { pollIntervalMs: 365 * 24 * 3600_000 });
    const r = await startReceiver();
    try {
      const { key, accountId } = await t.account();
      const api = apiFor(t, key);
      const hook = (await api('POST', '/api/v1/webhooks', { name: 'x', url: `${r.url}/h`, airports: ['VCE'] })).body
        .data;
      await t.app.accounts.updateAccount(accountId, { disabled: true });
      await observe(t, 'VCE', 2);
      await advance(t, 120);
      expect(r.received).toEqual([]);
      expect(
        await t.app.db.kysely.selectFrom('deliveries').selectAll().where('endpoint_id', '=', hook.id).execute(),
      ).toEqual([]);
      await t.app.accounts.updateAccount(accountId, { disabled: false });
      const later = await observe(t, 'VCE', 1);
      await advance(t, 120);
      expect(r.received.map((x) => x.body.event)).toEqual([later[0]!.id]);
    } finally {
      await t.close();
      await r.close();
    }
  });
});

describeEachDatabase('webhook delivery concurrency', (kind) => {
  it('keeps at most the per-endpoint bound in flight to one endpoint, and the overall bound in all', async () => {
    const t = await startTestApp(kind, {
      pollIntervalMs: 365 * 24 * 3600_000,
      webhooks: { concurrency: 4, perEndpoint: 3 },
    });
    const inFlight = new Map<string, number>();
    let most = new Map<string, number>();
    let total = 0;
    let mostTotal = 0;
    const r = await startReceiver((got) => {
      inFlight.set(got.path, (inFlight.get(got.path) ?? 0) + 1);
      most.set(got.path, Math.max(most.get(got.path) ?? 0, inFlight.get(got.path)!));
      mostTotal = Math.max(mostTotal, ++total);
      setTimeout(() => {
        inFlight.set(got.path, inFlight.get(got.path)! - 1);
        total--;
      }, 50);
      return { status: 204, delayMs: 50 };
    });
    try {
      const api = apiFor(t, (await t.account()).key);
      // One endpoint with a queue of 12: three at a time, never four, though four would fit overall.
      await api('POST', '/api/v1/webhooks', { name: 'one', url: `${r.url}/one`, airports: ['WRO'] });
      await observe(t, 'WRO', 12);
      await advance(t, 120);
      expect(r.received).toHaveLength(12);
      expect(most.get('/one')).toBe(3);
      expect(mostTotal).toBe(3);

      // Five endpoints with four each: four at a time in all.
      most = new Map();
      mostTotal = 0;
      for (let i = 0; i < 5; i++)
        await api('POST', '/api/v1/webhooks', { name: `c${i}`, url: `${r.url}/e${i}`, airports: ['POZ'] });
      await observe(t, 'POZ', 4);
      await advance(t, 120);
      expect(r.received).toHaveLength(32);
      expect(mostTotal).toBe(4);
    } finally {
      await t.close();
      await r.close();
    }
  });
});

describeEachDatabase('webhook secrets at rest', (kind) => {
  it('are sealed with the configured key, still sign, and stop the start when the key is missing or wrong', async () => {
    const key = Buffer.alloc(32, 9);
    const t = await startTestApp(kind, { webhooks: { secretKey: key } });
    const r = await startReceiver();
    try {
      const api = apiFor(t, (await t.account()).key);
      const hook = (await api('POST', '/api/v1/webhooks', { name: 's', url: `${r.url}/s`, airports: ['KRK'] })).body
        .data;
      const row = await t.app.db.kysely
        .selectFrom('endpoints')
        .select('secret')
        .where('id', '=', hook.id)
        .executeTakeFirstOrThrow();
      expect(row.secret).toMatch(/^sealed:v1:/);
      expect(row.secret).not.toContain(hook.secret.slice(6));
      expect((await api('POST', `/api/v1/webhooks/${hook.id}/test`)).body.data.delivered).toBe(true);
      expect(signedBy(r.received[0]!, hook.secret)).toBe(true);

      for (const secretKey of [null, Buffer.alloc(32, 7)]) {
        const config = { ...t.config, webhooks: { ...t.config.webhooks, secretKey } };
        await expect(buildApp({ config, clock: t.clock, logger: createLogger('silent') })).rejects.toThrow(
          // Without the key: on SQLite no key file exists to open them, on PostgreSQL the key is required.
          secretKey
            ? /does not open with FLIGHTSTATUS_WEBHOOK_SECRET_KEY/
            : /FLIGHTSTATUS_WEBHOOK_SECRET_KEY (is not set and the key file .* is missing|must be set when the database is PostgreSQL)/,
        );
      }
    } finally {
      await t.close();
      await r.close();
    }
  });
});

describeEachDatabase('webhook test sends and listings', (kind) => {
  let t: TestApp;
  let api: Api;
  const receivers: Receiver[] = [];
  const receiver = async (answer?: (r: Received) => Answer) => {
    const r = await startReceiver(answer);
    receivers.push(r);
    return r;
  };
  beforeEach(async () => {
    t = await startTestApp(kind, { pollIntervalMs: 365 * 24 * 3600_000 });
    api = apiFor(t, (await t.account()).key);
  });
  afterEach(async () => {
    await t.close();
    for (const r of receivers.splice(0)) await r.close();
  });
  const create = async (r: Receiver, name: string) => {
    const created = await api('POST', '/api/v1/webhooks', { name, url: `${r.url}/${name}`, airports: ['OTP'] });
    expect(created.status).toBe(201);
    return created.body.data as { id: string; secret: string };
  };

  it('lists a test send among the deliveries as webhook.test, delivered or failed, and never retries it', async () => {
    let status = 204;
    const r = await receiver(() => status);
    const hook = await create(r, 'tested');
    const ok = (await api('POST', `/api/v1/webhooks/${hook.id}/test`)).body.data;
    status = 500;
    const failed = (await api('POST', `/api/v1/webhooks/${hook.id}/test`)).body.data;
    const listed = (await api('GET', `/api/v1/webhooks/${hook.id}/deliveries`)).body.data;
    expect(listed.deliveries).toEqual([
      expect.objectContaining({
        id: failed.deliveryId,
        event: failed.event,
        type: 'webhook.test',
        state: 'failed',
        attempts: 1,
        lastStatusCode: 500,
        nextAttemptAt: null,
        deliveredAt: null,
      }),
      expect.objectContaining({
        id: ok.deliveryId,
        event: ok.event,
        type: 'webhook.test',
        state: 'delivered',
        attempts: 1,
        lastStatusCode: 204,
        lastError: null,
        nextAttemptAt: null,
      }),
    ]);
    expect(listed.deliveries[0].lastError).toMatch(/receiver answered 500/);
    expect(
      (await api('GET', `/api/v1/webhooks/${hook.id}/deliveries?state=failed`)).body.data.deliveries.map(
        (d: { id: string }) => d.id,
      ),
    ).toEqual([failed.deliveryId]);
    await advance(t, 2 * 3600);
    expect(r.received).toHaveLength(2);
  });

  it('limits test sends to 5 a minute per endpoint and 20 per account, across service instances, with Retry-After from the service clock', async () => {
    const r = await receiver();
    const { key } = await t.account();
    const own = apiFor(t, key);
    const hooks: { id: string }[] = [];
    for (let i = 0; i < 5; i++)
      hooks.push(
        (await own('POST', '/api/v1/webhooks', { name: `l${i}`, url: `${r.url}/l${i}`, airports: ['OTP'] })).body.data,
      );
    // A second service on the same database, as a second process would be: the budget is shared.
    const second = await buildApp({ config: t.config, clock: t.clock, logger: createLogger('silent') });
    try {
      const send = (id: string, app = t.app) =>
        app.http.inject({ method: 'POST', url: `/api/v1/webhooks/${id}/test`, headers: bearer(key) });
      for (let i = 0; i < 5; i++) expect((await send(hooks[0]!.id, i % 2 === 0 ? t.app : second)).statusCode).toBe(200);
      const sixth = await send(hooks[0]!.id, second);
      expect(sixth.statusCode).toBe(429);
      expect(sixth.headers['retry-after']).toBe('60');
      expect(json(sixth)).toEqual({
        success: false,
        code: 'rate_limited',
        message: 'Test sends are limited to 5 per minute per endpoint; try again in 60 s',
      });

      await advance(t, 30);
      for (const hook of hooks.slice(1, 4))
        for (let i = 0; i < 5; i++) expect((await send(hook.id)).statusCode).toBe(200);
      const overAccount = await send(hooks[4]!.id, second);
      expect(overAccount.statusCode).toBe(429);
      expect(overAccount.headers['retry-after']).toBe('30');
      expect(json(overAccount).message).toBe('Test sends are limited to 20 per minute per account; try again in 30 s');
      expect(r.received).toHaveLength(20);
      // Another account has its own budget.
      expect((await api('POST', `/api/v1/webhooks/${(await create(r, 'other')).id}/test`)).status).toBe(200);

      await advance(t, 30);
      expect((await send(hooks[4]!.id)).statusCode).toBe(200);
      expect((await send(hooks[0]!.id, second)).statusCode).toBe(200);
      expect(r.received).toHaveLength(23);
    } finally {
      await second.close();
    }
  });

  it('pages the endpoint list with limit, after and hasMore, oldest first', async () => {
    const r = await receiver();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create(r, `p${i}`)).id);
    // Created in the same millisecond of the manual clock: oldest first, ties in id order.
    const all = (await api('GET', '/api/v1/webhooks')).body.data;
    const order = all.webhooks.map((w: { id: string }) => w.id);
    expect([...order].sort()).toEqual([...ids].sort());
    expect(all).toMatchObject({ hasMore: false, nextAfter: null });

    const seen: string[] = [];
    let query = '?limit=2';
    const pages: boolean[] = [];
    for (;;) {
      const page = (await api('GET', `/api/v1/webhooks${query}`)).body.data;
      seen.push(...page.webhooks.map((w: { id: string }) => w.id));
      pages.push(page.hasMore);
      if (!page.hasMore) {
        expect(page.nextAfter).toBeNull();
        break;
      }
      expect(page.nextAfter).toBe(seen[seen.length - 1]);
      query = `?limit=2&after=${page.nextAfter}`;
    }
    expect(seen).toEqual(order);
    expect(pages).toEqual([true, true, false]);

    const other = apiFor(t, (await t.account()).key);
    const foreign = (await other('POST', '/api/v1/webhooks', { name: 'x', url: `${r.url}/x`, airports: ['OTP'] })).body
      .data.id;
    for (const [q, message] of [
      ['?limit=0', /^query\.limit must be at least 1$/],
      ['?limit=101', /^query\.limit must be at most 100$/],
      ['?limit=two', /^query\.limit must be an integer$/],
      ['?limit=2.5', /^query\.limit must be an integer$/],
      ['?after=wh_nothere', /after: no webhook endpoint "wh_nothere" in this account/],
      [`?after=${foreign}`, /after: no webhook endpoint/],
    ] as const) {
      const response = await api('GET', `/api/v1/webhooks${q}`);
      expect(response.status, q).toBe(400);
      expect(response.body).toMatchObject({ success: false, code: 'invalid_request' });
      expect(response.body.message, q).toMatch(message);
    }
  });

  it('says whether more deliveries follow (hasMore) and pages them with before', async () => {
    const r = await receiver();
    const hook = await create(r, 'paged');
    await observe(t, 'OTP', 5);
    const seen: string[] = [];
    const more: boolean[] = [];
    let query = '?limit=2';
    for (;;) {
      const page = (await api('GET', `/api/v1/webhooks/${hook.id}/deliveries${query}`)).body.data;
      seen.push(...page.deliveries.map((d: { id: string }) => d.id));
      more.push(page.hasMore);
      if (!page.hasMore) {
        expect(page.nextBefore).toBeNull();
        break;
      }
      query = `?limit=2&before=${page.nextBefore}`;
    }
    expect(more).toEqual([true, true, false]);
    expect(new Set(seen).size).toBe(5);
    const whole = (await api('GET', `/api/v1/webhooks/${hook.id}/deliveries?limit=5`)).body.data;
    expect(whole).toMatchObject({ hasMore: false, nextBefore: null });
    expect(whole.deliveries.map((d: { id: string }) => d.id)).toEqual(seen);
  });
});
