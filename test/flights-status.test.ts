// GET /api/v1/flights/status: authorised, metered and validated exactly per spec 4.1, 4.6, 7 and 8,
// through HTTP on a real database (what it answers is test/flight-lookup.test.ts's).
import { afterEach, beforeEach, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DAY } from '../src/clock.js';
import type { FlightResolver } from '../src/flights/index.js';
import { describeEachDatabase } from './helpers/databases.js';
import { bearer, json, notFoundAnswer, startTestApp, STATUS_URL, type TestApp } from './helpers/app.js';

function credits(response: { headers: Record<string, unknown> }) {
  return {
    included: response.headers['x-credits-included'],
    used: response.headers['x-credits-used'],
    remaining: response.headers['x-credits-remaining'],
    overage: response.headers['x-credits-overage'],
    periodEnd: response.headers['x-credits-period-end'],
  };
}

describeEachDatabase('flight status metering', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp(kind);
  });
  afterEach(async () => t?.close());

  async function usageRows(accountId: string) {
    return t.app.db.kysely
      .selectFrom('usage_log')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute();
  }

  it('charges a valid query one credit and logs it against the key', async () => {
    const { key, accountId, keyId } = await t.account({ plan: { included: 10 } });
    const response = await t.get(STATUS_URL, bearer(key));
    expect(response.statusCode).toBe(200);
    expect(json(response)).toMatchObject({ success: true, data: { flightNumber: 'W63101', flightDate: '2026-02-20' } });
    expect(credits(response)).toEqual({
      included: '10',
      used: '1',
      remaining: '9',
      overage: '0',
      periodEnd: new Date(t.clock.now() + 30 * DAY).toISOString(),
    });
    const rows = await usageRows(accountId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      key_id: keyId,
      account_id: accountId,
      at: t.clock.now(),
      endpoint: 'GET /api/v1/flights/status',
      status: 200,
      query: 'flightNumber=W63101&flightDate=2026-02-20',
    });
    expect(rows[0]!.duration_ms).toBeGreaterThan(0);
  });

  it('charges a 400, names the field, and logs it against the key', async () => {
    const { key, accountId, keyId } = await t.account({ plan: { included: 10 } });
    const response = await t.get('/api/v1/flights/status?flight=W63101&date=2026-02-30', bearer(key));
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({
      success: false,
      message: 'Invalid query: flightDate is not a calendar date (got "2026-02-30")',
      code: 'invalid_request',
    });
    expect(credits(response)).toMatchObject({ used: '1', remaining: '9' });
    const missing = await t.get('/api/v1/flights/status', bearer(key));
    expect(json(missing).message).toMatch(/flightNumber is required.*flightDate is required/);
    const rows = await usageRows(accountId);
    expect(rows.map((r) => [r.status, r.key_id, r.query])).toEqual([
      [400, keyId, 'flight=W63101&date=2026-02-30'],
      [400, keyId, ''],
    ]);
  });

  it('counts Remaining down to 0 one request before the 429, which takes nothing', async () => {
    const { key, accountId } = await t.account({ plan: { included: 3 } });
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push(credits(await t.get(STATUS_URL, bearer(key))));
    expect(seen.map((c) => [c.used, c.remaining])).toEqual([
      ['1', '2'],
      ['2', '1'],
      ['3', '0'],
    ]);
    for (let i = 0; i < 2; i++) {
      const refused = await t.get(STATUS_URL, bearer(key));
      expect(refused.statusCode).toBe(429);
      expect(json(refused)).toMatchObject({
        success: false,
        code: 'credits_exhausted',
        message: expect.stringMatching(/allowance of 3/),
      });
      expect(credits(refused)).toMatchObject({ included: '3', used: '3', remaining: '0', overage: '0' });
    }
    // A 429 with a bad query is still a 429: nothing is taken, nothing is logged.
    expect((await t.get('/api/v1/flights/status', bearer(key))).statusCode).toBe(429);
    expect(await usageRows(accountId)).toHaveLength(3);
    expect(json(await t.get('/api/v1/account', bearer(key))).data).toMatchObject({
      requestCount: 3,
      credits: { used: 3, remaining: 0 },
    });
  });

  it('says in Retry-After how many whole seconds are left until the window ends, rounded up, by the service clock', async () => {
    const { key } = await t.account({ plan: { included: 1 } });
    const windowEnd = t.clock.now() + 30 * DAY;
    expect((await t.get(STATUS_URL, bearer(key))).statusCode).toBe(200);
    t.clock.advance(1500); // 2,591,998.5 s left: rounded up, never promising a reset that has not happened
    const refused = await t.get(STATUS_URL, bearer(key));
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe(String(Math.ceil((windowEnd - t.clock.now()) / 1000)));
    expect(refused.headers['retry-after']).toBe('2591999');
    t.clock.advance(30 * DAY - 1500 - 1); // 1 ms before the window ends
    expect((await t.get(STATUS_URL, bearer(key))).headers['retry-after']).toBe('1');
    t.clock.advance(1);
    const renewed = await t.get(STATUS_URL, bearer(key));
    expect(renewed.statusCode).toBe(200);
    expect(renewed.headers['retry-after']).toBeUndefined();
  });

  it('serves past the allowance with overage, counting X-Credits-Overage', async () => {
    const { key } = await t.account({ plan: { included: 2, overage: true } });
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(credits(await t.get(STATUS_URL, bearer(key))));
    expect(seen.map((c) => [c.used, c.remaining, c.overage])).toEqual([
      ['1', '1', '0'],
      ['2', '0', '0'],
      ['3', '0', '1'],
      ['4', '0', '2'],
    ]);
  });

  it('reports unlimited on internal accounts', async () => {
    const { key } = await t.account({ plan: null, unlimited: true });
    const response = await t.get(STATUS_URL, bearer(key));
    expect(response.statusCode).toBe(200);
    expect(credits(response)).toMatchObject({ included: 'unlimited', used: '1', remaining: 'unlimited', overage: '0' });
    const account = json(await t.get('/api/v1/account', bearer(key))).data;
    expect(account).toMatchObject({ unlimited: true, credits: null, requestCount: 1 });
  });

  it('resets the allowance when the window rolls 30 days after the previous one started', async () => {
    const { key } = await t.account({ plan: { included: 2 } });
    const start = t.clock.now();
    await t.get(STATUS_URL, bearer(key));
    await t.get(STATUS_URL, bearer(key));
    expect((await t.get(STATUS_URL, bearer(key))).statusCode).toBe(429);
    t.clock.advance(30 * DAY - 60_000);
    expect((await t.get(STATUS_URL, bearer(key))).statusCode).toBe(429);
    t.clock.advance(60_000);
    const fresh = await t.get(STATUS_URL, bearer(key));
    expect(fresh.statusCode).toBe(200);
    expect(credits(fresh)).toMatchObject({
      used: '1',
      remaining: '1',
      periodEnd: new Date(start + 60 * DAY).toISOString(),
    });
    // Ninety idle days later the window still rolls from the anchor: 30-day steps, not the first request.
    t.clock.advance(95 * DAY);
    const later = credits(await t.get(STATUS_URL, bearer(key)));
    expect(later).toMatchObject({ used: '1', periodEnd: new Date(start + 150 * DAY).toISOString() });
  });

  it('hands the parsed query to a configured resolver', async () => {
    await t.close();
    const seen: unknown[] = [];
    const resolver: FlightResolver = {
      async resolve(query) {
        seen.push(query);
        return notFoundAnswer(query);
      },
    };
    t = await startTestApp(kind, { resolver });
    const { key } = await t.account();
    const response = await t.get(
      '/api/v1/flights/status?number=%20w6%203101%20&date=2026-02-20T23:10:00Z&from=otp&dest=Ltn&refresh=yes',
      bearer(key),
    );
    expect(response.statusCode).toBe(200);
    expect(json(response).data).toMatchObject({
      flightNumber: 'W6 3101',
      flightDate: '2026-02-20',
      originIata: 'OTP',
      destinationIata: 'LTN',
    });
    expect(seen).toEqual([
      {
        flightNumber: 'W6 3101',
        designator: 'W63101',
        flightDate: '2026-02-20',
        dateBasis: 'utc',
        origin: 'OTP',
        destination: 'LTN',
        refresh: true,
        screenshot: false,
      },
    ]);
    expect(response.headers['x-credits-used']).toBe('1');
  });
});

describeEachDatabase('flight status when the usage log cannot be written', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp(kind);
  });
  afterEach(async () => t?.close());

  /** A real write fault, as a full disk gives: a trigger that fails every INSERT or UPDATE of usage_log. */
  async function failUsage(on: 'INSERT' | 'UPDATE'): Promise<() => Promise<void>> {
    const db = t.app.db.kysely;
    if (kind === 'sqlite') {
      await sql
        .raw(
          `CREATE TRIGGER usage_fault BEFORE ${on} ON usage_log BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`,
        )
        .execute(db);
      return async () => void (await sql.raw('DROP TRIGGER usage_fault').execute(db));
    }
    await sql
      .raw(
        `CREATE FUNCTION usage_fault() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$`,
      )
      .execute(db);
    await sql
      .raw(`CREATE TRIGGER usage_fault BEFORE ${on} ON usage_log FOR EACH ROW EXECUTE FUNCTION usage_fault()`)
      .execute(db);
    return async () => void (await sql.raw('DROP TRIGGER usage_fault ON usage_log').execute(db));
  }

  async function ledger(accountId: string) {
    const rows = await t.app.db.kysely
      .selectFrom('usage_log')
      .select(['status'])
      .where('account_id', '=', accountId)
      .execute();
    const windows = await t.app.db.kysely
      .selectFrom('credit_windows')
      .select(['used'])
      .where('account_id', '=', accountId)
      .execute();
    return { rows: rows.map((r) => r.status), credits: windows.reduce((sum, w) => sum + Number(w.used), 0) };
  }

  it('takes no credit and answers 503 in the envelope when the usage row cannot be written', async () => {
    const { key, accountId } = await t.account({ plan: { included: 10 } });
    expect((await t.get(STATUS_URL, bearer(key))).statusCode).toBe(200);
    const restore = await failUsage('INSERT');
    const refused = await Promise.all(Array.from({ length: 8 }, () => t.get(STATUS_URL, bearer(key))));
    for (const response of refused) {
      expect(response.statusCode).toBe(503);
      expect(json(response)).toEqual({
        success: false,
        code: 'unavailable',
        message: expect.stringMatching(/no credit was taken/),
      });
      expect(response.headers['x-request-id']).toMatch(/^req_/);
      expect(response.headers['x-credits-used']).toBeUndefined();
    }
    expect(await ledger(accountId)).toEqual({ rows: [200], credits: 1 });
    await restore();
    const next = await t.get(STATUS_URL, bearer(key));
    expect(next.statusCode).toBe(200);
    expect(next.headers['x-credits-used']).toBe('2');
    expect(await ledger(accountId)).toEqual({ rows: [200, 200], credits: 2 });
  });

  it('withholds an answer whose usage row cannot record it, and takes back its credit', async () => {
    const { key, accountId } = await t.account({ plan: { included: 10 } });
    expect((await t.get(STATUS_URL, bearer(key))).statusCode).toBe(200);
    const restore = await failUsage('UPDATE');
    const withheld = await t.get(STATUS_URL, bearer(key));
    expect(withheld.statusCode).toBe(503);
    expect(json(withheld)).toMatchObject({
      success: false,
      code: 'unavailable',
      message: expect.stringMatching(/no credit was taken/),
    });
    expect(withheld.headers['x-credits-used']).toBeUndefined();
    expect(await ledger(accountId)).toEqual({ rows: [200], credits: 1 });
    await restore();
    expect((await t.get(STATUS_URL, bearer(key))).headers['x-credits-used']).toBe('2');
  });
});
