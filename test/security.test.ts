// One security suite run against every protected route of the OpenAPI document: missing, malformed
// and unknown keys, the three key headers, disabled keys and accounts, lapsed plans. Refusals never
// take a credit; 401 carries no credit headers, 402 and 403 do.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';

const CREDIT_HEADERS = [
  'x-credits-included',
  'x-credits-used',
  'x-credits-remaining',
  'x-credits-overage',
  'x-credits-period-end',
];

interface Request {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: string;
  body?: object;
  /** What an admitted request may answer (an endpoint id of no account's answers 404). */
  admitted: number[];
  /** Invoices: open to any subscription state (a past-due account must see what it owes). */
  billing?: true;
}

/** A valid request to each secured path (queries and bodies filled in where required). */
const get = (url: string): Request => ({ method: 'GET', url, admitted: [200, 500] });
const hook = (method: Request['method'], path = '', body?: object): Request => ({
  method,
  url: `/api/v1/webhooks/wh_00000000000000000000${path}`,
  body,
  admitted: [404],
});
const REQUESTS: Record<string, Request> = {
  '/api/v1/account': get('/api/v1/account'),
  '/api/v1/airports': get('/api/v1/airports'),
  '/api/v1/compensation': get('/api/v1/compensation?origin=OTP&destination=LTN&airline=W6&outcome=cancelled'),
  '/api/v1/flights/status': get('/api/v1/flights/status?flightNumber=W63101&flightDate=2026-02-20'),
  // A flight not found is a 404 (nothing to attest); the credit is taken as on the status endpoint.
  '/api/v1/flights/evidence': {
    method: 'GET',
    url: '/api/v1/flights/evidence?flightNumber=W63101&flightDate=2026-02-20',
    admitted: [200, 404, 500],
  },
  '/api/v1/webhooks': get('/api/v1/webhooks'),
  '/api/v1/webhooks/{id}': hook('PATCH', '', { name: 'renamed' }),
  '/api/v1/webhooks/{id}/rotate': hook('POST', '/rotate'),
  '/api/v1/webhooks/{id}/test': hook('POST', '/test'),
  '/api/v1/webhooks/{id}/enable': hook('POST', '/enable'),
  '/api/v1/webhooks/{id}/disable': hook('POST', '/disable'),
  '/api/v1/webhooks/{id}/deliveries': hook('GET', '/deliveries'),
  '/api/v1/webhooks/{id}/deliveries/resend': hook('POST', '/deliveries/resend', { since: '2026-01-01' }),
  '/api/v1/webhooks/{id}/deliveries/{delivery}/resend': hook('POST', '/deliveries/dlv_00000000000000000000/resend'),
  '/api/v1/batches': {
    method: 'POST',
    url: '/api/v1/batches',
    body: [{ flightNumber: 'W63101', flightDate: '2026-02-20' }],
    admitted: [202],
  },
  '/api/v1/batches/{id}': { method: 'GET', url: '/api/v1/batches/bat_00000000000000000000', admitted: [404] },
  '/api/v1/batches/{id}/results': {
    method: 'GET',
    url: '/api/v1/batches/bat_00000000000000000000/results',
    admitted: [404],
  },
  // An endpoint of no account: admitted, the request is refused for it (400), nothing written.
  '/api/v1/watches': {
    method: 'POST',
    url: '/api/v1/watches',
    body: { flightNumber: 'W63101', flightDate: '2026-02-20', endpoints: ['wh_00000000000000000000'] },
    admitted: [400],
  },
  '/api/v1/watches/{id}': { method: 'GET', url: '/api/v1/watches/wch_00000000000000000000', admitted: [404] },
  '/api/v1/invoices': { ...get('/api/v1/invoices'), billing: true },
  '/api/v1/invoices/{id}': {
    method: 'GET',
    url: '/api/v1/invoices/inv_00000000000000000000',
    admitted: [404],
    billing: true,
  },
  '/api/v1/invoices/{id}/html': {
    method: 'GET',
    url: '/api/v1/invoices/inv_00000000000000000000/html',
    admitted: [404],
    billing: true,
  },
  '/api/v1/invoices/{id}/pdf': {
    method: 'GET',
    url: '/api/v1/invoices/inv_00000000000000000000/pdf',
    admitted: [404],
    billing: true,
  },
  '/api/v1/credit-notes/{id}/pdf': {
    method: 'GET',
    url: '/api/v1/credit-notes/cn_00000000000000000000/pdf',
    admitted: [404],
    billing: true,
  },
};

describeEachDatabase('security of protected routes', (kind) => {
  let t: TestApp;
  let secured: string[];
  beforeAll(async () => {
    t = await startTestApp(kind);
    const doc = t.app.http.swagger() as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    secured = Object.entries(doc.paths)
      .filter(([, operations]) => Object.values(operations).some((op) => (op.security ?? []).length > 0))
      .map(([path]) => path);
  });
  afterAll(async () => t?.close());

  it('covers every secured operation of the API description', () => {
    expect(secured.sort()).toEqual(Object.keys(REQUESTS).sort());
  });

  /** All credits taken and usage rows written so far. */
  async function everything(): Promise<[number, number]> {
    const usage = await t.app.db.kysely.selectFrom('usage_log').select('id').execute();
    const credits = await t.app.db.kysely.selectFrom('credit_windows').select('used').execute();
    return [usage.length, credits.reduce((sum, r) => sum + r.used, 0)];
  }

  /**
   * Waits until no batch is queued or running: the batches the tests of POST /api/v1/batches submit
   * take their credits in the background, and would land between a test's two counts.
   */
  async function batchesIdle(): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (
      (await t.app.db.kysely.selectFrom('batches').select('id').where('state', 'in', ['queued', 'running']).execute())
        .length > 0
    ) {
      if (Date.now() > deadline) throw new Error('batches still running after 30 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Credits taken plus usage rows written: a refusal must leave both at zero. */
  async function usedBy(accountId: string): Promise<number> {
    const rows = await t.app.db.kysely
      .selectFrom('credit_windows')
      .select('used')
      .where('account_id', '=', accountId)
      .execute();
    const usage = await t.app.db.kysely
      .selectFrom('usage_log')
      .select('id')
      .where('account_id', '=', accountId)
      .execute();
    return rows.reduce((sum, r) => sum + r.used, 0) + usage.length;
  }

  for (const [path, request] of Object.entries(REQUESTS)) {
    const send = (headers: Record<string, string>) =>
      t.app.http.inject({
        method: request.method,
        url: request.url,
        headers,
        ...(request.body ? { payload: request.body } : {}),
      });
    it(`${path}: missing, malformed and unknown keys get 401 without credit headers, writing nothing`, async () => {
      await batchesIdle();
      const before = await everything();
      const cases: Record<string, string>[] = [
        {},
        { authorization: 'Bearer' },
        { authorization: 'Bearer nonsense' },
        { authorization: 'Bearer flt_' + 'A'.repeat(43) },
        { 'x-api-key': 'flt_' + 'B'.repeat(43) },
        { 'x-service-api-key': 'not-a-key' },
        { 'x-api-key': "flt_' OR 1=1 --" },
      ];
      for (const headers of cases) {
        const response = await send(headers);
        expect(response.statusCode, JSON.stringify(headers)).toBe(401);
        expect(json(response)).toMatchObject({ success: false, message: expect.stringMatching(/API key/) });
        expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
        for (const header of CREDIT_HEADERS) expect(response.headers[header]).toBeUndefined();
      }
      expect(await everything()).toEqual(before);
    });

    it(`${path}: accepts the key in Authorization: Bearer, X-Api-Key and the legacy X-Service-Api-Key`, async () => {
      const { key } = await t.account();
      const variants: Record<string, string>[] = [
        bearer(key),
        { authorization: `bearer ${key}` },
        { 'x-api-key': key },
        { 'x-service-api-key': key },
      ];
      for (const headers of variants) {
        const response = await send(headers);
        expect(request.admitted).toContain(response.statusCode);
        expect(response.headers['x-credits-included']).toBe('1000');
      }
    });

    it(`${path}: a disabled key or account gets 403 with credit headers and takes nothing`, async () => {
      const a = await t.account();
      await t.app.accounts.setKeyDisabled(a.keyId, true);
      const byKey = await send(bearer(a.key));
      expect(byKey.statusCode).toBe(403);
      expect(json(byKey)).toEqual({ success: false, message: 'This API key is disabled', code: 'forbidden' });
      for (const header of CREDIT_HEADERS) expect(byKey.headers[header]).toBeDefined();

      const b = await t.account();
      await t.app.accounts.updateAccount(b.accountId, { disabled: true });
      const byAccount = await send(bearer(b.key));
      expect(byAccount.statusCode).toBe(403);
      expect(json(byAccount).message).toBe('This account is disabled');
      expect(byAccount.headers['x-credits-used']).toBe('0');
      expect(await usedBy(a.accountId)).toBe(0);
      expect(await usedBy(b.accountId)).toBe(0);
    });

    it(`${path}: no plan, a canceled or a past-due subscription gets 402 (invoices: an answer) with credit headers and takes nothing`, async () => {
      const none = await t.account({ plan: null });
      const canceled = await t.account();
      await t.app.accounts.updateAccount(canceled.accountId, { subscriptionStatus: 'canceled' });
      const pastDue = await t.account();
      await t.app.accounts.updateAccount(pastDue.accountId, { subscriptionStatus: 'past_due' });
      const expected: [typeof none, RegExp][] = [
        [none, /no active plan/],
        [canceled, /canceled/],
        [pastDue, /past due/],
      ];
      for (const [account, message] of expected) {
        const response = await send(bearer(account.key));
        // Invoices stay readable whatever the subscription's state, and take nothing either.
        expect(response.statusCode).toBe(request.billing ? request.admitted[0] : 402);
        if (!request.billing)
          expect(json(response)).toMatchObject({ success: false, message: expect.stringMatching(message) });
        for (const header of CREDIT_HEADERS) expect(response.headers[header]).toBeDefined();
        expect(await usedBy(account.accountId)).toBe(0);
      }
      expect((await send(bearer(none.key))).headers['x-credits-included']).toBe('0');
    });

    it(`${path}: a disabled account outranks a lapsed plan, and an unlimited account needs no plan`, async () => {
      const lapsed = await t.account({ plan: null });
      await t.app.accounts.updateAccount(lapsed.accountId, { disabled: true });
      expect((await send(bearer(lapsed.key))).statusCode).toBe(403);

      const internal = await t.account({ plan: null, unlimited: true });
      const response = await send(bearer(internal.key));
      expect(request.admitted).toContain(response.statusCode);
      expect(response.headers['x-credits-included']).toBe('unlimited');
    });

    it(`${path}: re-enabling restores access at once`, async () => {
      const a = await t.account();
      await t.app.accounts.setKeyDisabled(a.keyId, true);
      expect((await send(bearer(a.key))).statusCode).toBe(403);
      await t.app.accounts.setKeyDisabled(a.keyId, false);
      expect(request.admitted).toContain((await send(bearer(a.key))).statusCode);
    });
  }

  it('stores keys only as SHA-256 hashes', async () => {
    const { key, keyId } = await t.account();
    const row = await t.app.db.kysely
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', keyId)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(key);
    expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.prefix).toBe(key.slice(0, 12));
  });
});
