// The operator API: off (404) without a token, constant-time Bearer token, accounts, plans, keys,
// usage; validation errors name the field; nothing half-written on a refusal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY } from '../src/clock.js';
import { describeEachDatabase } from './helpers/databases.js';
import { ADMIN_TOKEN, bearer, json, startTestApp, STATUS_URL, T0, type TestApp } from './helpers/app.js';

describe('operator API without a token', () => {
  it('does not exist: every /api/admin path is 404', async () => {
    const t = await startTestApp('sqlite', { adminToken: null });
    try {
      for (const [method, url] of [
        ['GET', '/api/admin/v1/accounts'],
        ['POST', '/api/admin/v1/accounts'],
        ['PATCH', '/api/admin/v1/keys/key_x'],
        ['DELETE', '/api/admin/v1/accounts/acme'],
      ] as const) {
        const response = await t.app.http.inject({ method, url, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
        expect(response.statusCode).toBe(404);
        expect(json(response).success).toBe(false);
      }
    } finally {
      await t.close();
    }
  });
});

describeEachDatabase('operator API', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(async () => t?.close());

  it('refuses a missing or wrong token with 401', async () => {
    for (const authorization of [
      undefined,
      'Bearer wrong-token-0123456789',
      `Basic ${ADMIN_TOKEN}`,
      `Bearer ${ADMIN_TOKEN}x`,
    ]) {
      const response = await t.app.http.inject({
        method: 'GET',
        url: '/api/admin/v1/accounts',
        headers: authorization ? { authorization } : {},
      });
      expect(response.statusCode).toBe(401);
      expect(json(response)).toMatchObject({ success: false, code: 'unauthorized' });
    }
  });

  it('creates an account with a plan whose first window starts now, then a key shown once', async () => {
    const created = await t.admin('POST', '/api/admin/v1/accounts', {
      slug: 'acme',
      name: 'Acme Claims',
      plan: { included: 1000, overage: true },
    });
    expect(created.statusCode).toBe(201);
    const account = json(created).data;
    expect(account).toMatchObject({
      id: expect.stringMatching(/^acct_[0-9A-Za-z]{20}$/),
      slug: 'acme',
      name: 'Acme Claims',
      unlimited: false,
      disabled: false,
      subscription: {
        status: 'active',
        plan: { included: 1000, overage: true },
        windowAnchor: new Date(t.clock.now()).toISOString(),
      },
      credits: {
        included: 1000,
        used: 0,
        remaining: 1000,
        overage: 0,
        periodEnd: new Date(t.clock.now() + 30 * DAY).toISOString(),
      },
      requestCount: 0,
      keys: [],
    });

    const key = await t.admin('POST', `/api/admin/v1/accounts/${account.id}/keys`, { name: 'production' });
    expect(key.statusCode).toBe(201);
    const keyData = json(key).data;
    expect(keyData).toMatchObject({
      keyId: expect.stringMatching(/^key_/),
      accountId: account.id,
      name: 'production',
      key: expect.stringMatching(/^flt_[0-9A-Za-z]{43}$/),
      keyPrefix: keyData.key.slice(0, 12),
      disabled: false,
    });
    expect((await t.get('/api/v1/account', bearer(keyData.key))).statusCode).toBe(200);

    const fetched = await t.admin('GET', '/api/admin/v1/accounts/acme');
    expect(fetched.statusCode).toBe(200);
    expect(json(fetched).data.keys).toEqual([
      {
        keyId: keyData.keyId,
        name: 'production',
        keyPrefix: keyData.keyPrefix,
        disabled: false,
        createdAt: expect.any(String),
      },
    ]);
    expect(fetched.body).not.toContain(keyData.key);
    expect(json(await t.admin('GET', `/api/admin/v1/accounts/${account.id}`)).data.slug).toBe('acme');
  });

  it('refuses a duplicate slug with 409 and bad bodies with 400 naming the field, writing nothing', async () => {
    await t.admin('POST', '/api/admin/v1/accounts', { slug: 'dup' });
    const before = (await t.app.accounts.listAccounts()).length;
    const cases: [unknown, number, RegExp][] = [
      [{ slug: 'dup' }, 409, /slug "dup" already exists/],
      [{}, 400, /body\.slug is required/],
      [{ slug: 'Bad Slug!' }, 400, /body\.slug has an invalid format/],
      [{ slug: 'ok-slug', colour: 'red' }, 400, /body has an unknown field "colour"/],
      [{ slug: 'ok-slug', plan: { included: '10' } }, 400, /body\.plan\.included must be an integer/],
      [{ slug: 'ok-slug', plan: { included: -1 } }, 400, /body\.plan\.included must be at least 0/],
      [{ slug: 'ok-slug', plan: {} }, 400, /body\.plan\.included is required/],
      [{ slug: 'ok-slug', unlimited: 'yes' }, 400, /body\.unlimited must be a boolean/],
    ];
    for (const [body, status, message] of cases) {
      const response = await t.admin('POST', '/api/admin/v1/accounts', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(status);
      expect(json(response).message).toMatch(message);
    }
    expect(await t.app.accounts.listAccounts()).toHaveLength(before);
  });

  it('patches state, subscription and plan; refuses an active subscription without a plan', async () => {
    const { accountId, key } = await t.account({ plan: null });
    expect((await t.get(STATUS_URL, bearer(key))).statusCode).toBe(402);

    const noPlan = await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, { subscriptionStatus: 'active' });
    expect(noPlan.statusCode).toBe(400);
    expect(json(noPlan).message).toMatch(/needs a plan/);
    expect((await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, {})).statusCode).toBe(400);

    t.clock.advance(DAY);
    const planned = await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, { plan: { included: 5 } });
    expect(json(planned).data.subscription).toEqual({
      status: 'active',
      plan: { included: 5, overage: false },
      planId: null,
      pendingPlan: null,
      windowAnchor: new Date(t.clock.now()).toISOString(),
      cancelAt: null,
    });
    expect((await t.get(STATUS_URL, bearer(key))).headers['x-credits-remaining']).toBe('4');

    for (const [patch, status] of [
      [{ subscriptionStatus: 'past_due' }, 402],
      [{ subscriptionStatus: 'active' }, 200],
      [{ disabled: true }, 403],
      [{ disabled: false }, 200],
      [{ subscriptionStatus: 'canceled' }, 402],
      [{ unlimited: true }, 200],
    ] as const) {
      expect((await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, patch)).statusCode).toBe(200);
      expect((await t.get(STATUS_URL, bearer(key))).statusCode, JSON.stringify(patch)).toBe(status);
    }
    const bad = await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, { subscriptionStatus: 'trialing' });
    expect(bad.statusCode).toBe(400);
    expect(json(bad).message).toMatch(/body\.subscriptionStatus must be one of|body\.subscriptionStatus/);
  });

  it('keeps the windows when a subscription lapses and resumes, and applies plan changes at once', async () => {
    const { accountId, key } = await t.account({ plan: { included: 100, overage: true } });
    const anchor = json(await t.admin('GET', `/api/admin/v1/accounts/${accountId}`)).data.subscription.windowAnchor;
    for (let i = 0; i < 3; i++) await t.get(STATUS_URL, bearer(key));
    t.clock.advance(DAY);
    for (const status of ['none', 'active', 'canceled', 'active', 'past_due', 'active'] as const) {
      const patched = json(
        await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, { subscriptionStatus: status }),
      ).data;
      expect(patched.subscription.windowAnchor).toBe(anchor);
      expect(patched.credits.used).toBe(3);
    }
    // A new allowance applies to the current window: 3 used of 2 leaves nothing; overage is kept.
    const lowered = json(await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, { plan: { included: 2 } })).data;
    expect(lowered.subscription.plan).toEqual({ included: 2, overage: true });
    expect(lowered.credits).toMatchObject({ included: 2, used: 3, remaining: 0, overage: 1 });
    const served = await t.get(STATUS_URL, bearer(key));
    expect(served.headers).toMatchObject({ 'x-credits-used': '4', 'x-credits-overage': '2' });
    // Overage switched off mid-window: it reports 0, and the next request is refused.
    const off = json(
      await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, { plan: { included: 2, overage: false } }),
    ).data;
    expect(off.credits).toMatchObject({ used: 4, remaining: 0, overage: 0 });
    const refused = await t.get(STATUS_URL, bearer(key));
    expect(refused.statusCode).toBe(429);
    expect(refused.headers).toMatchObject({ 'x-credits-used': '4', 'x-credits-overage': '0' });
    // Raising it gives the difference in this window.
    const raised = json(await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, { plan: { included: 10 } })).data;
    expect(raised.credits).toMatchObject({ included: 10, used: 4, remaining: 6 });
  });

  it('disables and re-enables a key; 404 for unknown accounts and keys', async () => {
    const { keyId, key } = await t.account();
    const disabled = await t.admin('PATCH', `/api/admin/v1/keys/${keyId}`, { disabled: true });
    expect(json(disabled).data).toMatchObject({ keyId, disabled: true });
    expect((await t.get('/api/v1/account', bearer(key))).statusCode).toBe(403);
    await t.admin('PATCH', `/api/admin/v1/keys/${keyId}`, { disabled: false });
    expect((await t.get('/api/v1/account', bearer(key))).statusCode).toBe(200);

    expect((await t.admin('PATCH', '/api/admin/v1/keys/key_nope', { disabled: true })).statusCode).toBe(404);
    expect((await t.admin('GET', '/api/admin/v1/accounts/nobody')).statusCode).toBe(404);
    expect((await t.admin('POST', '/api/admin/v1/accounts/nobody/keys', { name: 'x' })).statusCode).toBe(404);
    expect((await t.admin('POST', `/api/admin/v1/accounts/nobody/keys`, {})).statusCode).toBe(400);
  });

  it('reports metered requests per UTC day from the usage log', async () => {
    const { accountId, key } = await t.account({ plan: { included: 100 } });
    await t.get(STATUS_URL, bearer(key));
    await t.get('/api/v1/flights/status?flightNumber=X', bearer(key));
    t.clock.advance(DAY);
    await t.get(STATUS_URL, bearer(key));
    const response = await t.admin('GET', `/api/admin/v1/accounts/${accountId}/usage`);
    expect(response.statusCode).toBe(200);
    const data = json(response).data;
    expect(data.total).toBe(3);
    expect(data.days.slice(-2).map((d: { requests: number; byStatus: object }) => [d.requests, d.byStatus])).toEqual([
      [2, { '400': 1, '200': 1 }],
      [1, { '200': 1 }],
    ]);
    expect(new Date(T0).toISOString().slice(0, 10) <= data.days.at(-2).date).toBe(true);
    expect((await t.admin('GET', `/api/admin/v1/accounts/${accountId}/usage?from=2026-13-01`)).statusCode).toBe(400);
  });
});
