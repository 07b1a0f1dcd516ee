// Idempotency-Key on POST (docs/idempotency.md), through HTTP on both databases, on the manual clock.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp, type App } from '../src/app.js';
import { createLogger } from '../src/logger.js';
import { describeEachDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';
import { startReceiver } from './helpers/receiver.js';

const BODY = { name: 'claims', url: 'http://127.0.0.1:9/hooks', airports: ['OTP'] };

describeEachDatabase('Idempotency-Key', (kind) => {
  let t: TestApp;
  let key: string;
  const post = (url: string, body: unknown, idempotencyKey?: string, apiKey = key, app: App = t.app) =>
    app.http.inject({
      method: 'POST',
      url,
      headers: { ...bearer(apiKey), ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }) },
      ...(body === undefined ? {} : { payload: body as object }),
    });
  const count = async (apiKey = key) =>
    json(await t.get('/api/v1/webhooks', bearer(apiKey))).data.webhooks.length as number;

  beforeAll(async () => {
    t = await startTestApp(kind);
    key = (await t.account()).key;
  });
  afterAll(async () => t?.close());

  it('answers a retry with the same key and body with the first response again, marked replayed', async () => {
    const first = await post('/api/v1/webhooks', BODY, 'create-1');
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post('/api/v1/webhooks', BODY, 'create-1');
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.body).toBe(first.body);
    expect(await count()).toBe(1);

    // An error answer is an answer too: the same 404, replayed.
    const missing = await post('/api/v1/webhooks/wh_missing/rotate', undefined, 'rotate-missing');
    expect(missing.statusCode).toBe(404);
    const missingAgain = await post('/api/v1/webhooks/wh_missing/rotate', undefined, 'rotate-missing');
    expect(missingAgain.statusCode).toBe(404);
    expect(missingAgain.headers['idempotent-replayed']).toBe('true');
    expect(missingAgain.body).toBe(missing.body);

    // Without a key, every POST runs.
    await post('/api/v1/webhooks', BODY);
    await post('/api/v1/webhooks', BODY);
    expect(await count()).toBe(3);
  });

  it('refuses the same key with another body, or on another path, with 409 in the envelope', async () => {
    const before = await count();
    expect((await post('/api/v1/webhooks', BODY, 'create-2')).statusCode).toBe(201);
    const other = await post('/api/v1/webhooks', { ...BODY, name: 'other' }, 'create-2');
    expect(other.statusCode).toBe(409);
    expect(json(other)).toEqual({
      success: false,
      code: 'conflict',
      message: expect.stringMatching(/Idempotency-Key was already used with another request/),
    });
    const id = json(await t.get('/api/v1/webhooks', bearer(key))).data.webhooks[0].id as string;
    const elsewhere = await post(`/api/v1/webhooks/${id}/disable`, undefined, 'create-2');
    expect(elsewhere.statusCode).toBe(409);
    expect(await count()).toBe(before + 1);
  });

  it('scopes keys per account', async () => {
    const other = (await t.account()).key;
    const mine = await post('/api/v1/webhooks', BODY, 'shared-key');
    const mineAgain = await post('/api/v1/webhooks', BODY, 'shared-key');
    expect(mineAgain.headers['idempotent-replayed']).toBe('true');
    const theirs = await post('/api/v1/webhooks', BODY, 'shared-key', other);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(json(theirs).data.id).not.toBe(json(mine).data.id);
    expect(await count(other)).toBe(1);
  });

  it('forgets a key 24 hours after its first use, on the service clock', async () => {
    const first = await post('/api/v1/webhooks', BODY, 'day-key');
    t.clock.advance(24 * 3600_000 - 1);
    const within = await post('/api/v1/webhooks', BODY, 'day-key');
    expect(within.headers['idempotent-replayed']).toBe('true');
    expect(within.body).toBe(first.body);
    t.clock.advance(1);
    const after = await post('/api/v1/webhooks', BODY, 'day-key');
    expect(after.statusCode).toBe(201);
    expect(after.headers['idempotent-replayed']).toBeUndefined();
    expect(json(after).data.id).not.toBe(json(first).data.id);
  });

  it('takes keys of 1 to 255 visible characters and refuses others with a 400 that says so', async () => {
    expect((await post('/api/v1/webhooks', BODY, 'k'.repeat(255))).statusCode).toBe(201);
    for (const bad of ['k'.repeat(256), 'with space']) {
      const refused = await post('/api/v1/webhooks', BODY, bad);
      expect(refused.statusCode).toBe(400);
      expect(json(refused)).toEqual({
        success: false,
        code: 'invalid_request',
        message: expect.stringMatching(/^Idempotency-Key must be 1 to 255/),
      });
    }
  });

  it('refuses a second request with the key while the first is still running (409), then replays the first', async () => {
    const receiver = await startReceiver(() => 'hang');
    try {
      const created = await post('/api/v1/webhooks', { ...BODY, url: `${receiver.url}/hooks` });
      const test = `/api/v1/webhooks/${json(created).data.id}/test`;
      const first = post(test, undefined, 'held-test');
      await receiver.waitFor(1);
      const second = await post(test, undefined, 'held-test');
      expect(second.statusCode).toBe(409);
      expect(json(second)).toEqual({
        success: false,
        code: 'conflict',
        message: expect.stringMatching(/still in progress/),
      });
      await receiver.close();
      const answered = await first;
      expect(answered.statusCode).toBe(200);
      const third = await post(test, undefined, 'held-test');
      expect(third.headers['idempotent-replayed']).toBe('true');
      expect(third.body).toBe(answered.body);
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('stores answers sealed, seals at start those an earlier version stored in clear, and prunes expired keys on schedule', async () => {
    const first = await post('/api/v1/webhooks', BODY, 'sealed-1');
    const stored = async (k: string) =>
      (
        await t.app.db.kysely
          .selectFrom('idempotency_keys')
          .select('body')
          .where('key', '=', k)
          .executeTakeFirstOrThrow()
      ).body!;
    expect(await stored('sealed-1')).toMatch(/^sealed:v1:/);
    expect(await stored('sealed-1')).not.toContain(json(first).data.secret.slice(6));

    // As a version before sealing left it: the answer in clear.
    const accountId = (
      await t.app.db.kysely
        .selectFrom('idempotency_keys')
        .select('account_id')
        .where('key', '=', 'sealed-1')
        .executeTakeFirstOrThrow()
    ).account_id;
    await t.app.db.kysely
      .updateTable('idempotency_keys')
      .set({ body: first.body })
      .where('key', '=', 'sealed-1')
      .execute();
    const restarted = await buildApp({ config: t.config, clock: t.clock, logger: createLogger('silent') });
    try {
      expect(await stored('sealed-1')).toMatch(/^sealed:v1:/);
      const replayed = await post('/api/v1/webhooks', BODY, 'sealed-1', key, restarted);
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(replayed.body).toBe(first.body);
    } finally {
      await restarted.close();
    }

    // Expired keys go with the hourly prune, not only when their account next sends a key.
    const before = await t.app.db.kysely
      .selectFrom('idempotency_keys')
      .select('key')
      .where('account_id', '=', accountId)
      .execute();
    expect(before.length).toBeGreaterThan(0);
    expect((await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 25 * 3600 })).statusCode).toBe(200);
    expect(await t.app.db.kysely.selectFrom('idempotency_keys').select('key').execute()).toEqual([]);
  });

  it('holds across service instances sharing the database (the key lives in the database)', async () => {
    const second = await buildApp({ config: t.config, clock: t.clock, logger: createLogger('silent') });
    try {
      const first = await post('/api/v1/webhooks', BODY, 'shared-instances');
      const elsewhere = await post('/api/v1/webhooks', BODY, 'shared-instances', key, second);
      expect(elsewhere.statusCode).toBe(201);
      expect(elsewhere.headers['idempotent-replayed']).toBe('true');
      expect(elsewhere.body).toBe(first.body);
    } finally {
      await second.close();
    }
  });
});
