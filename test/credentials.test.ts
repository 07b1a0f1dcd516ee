// Where a key may travel: only in its headers, once. A key in the URL is refused (and kept out of the
// logs); a key header sent twice, or different keys in different headers, is refused, never
// first-wins. None of these refusals takes a credit.
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { keyParametersIn } from '../src/auth/index.js';
import { newId } from '../src/ids.js';
import { createLogger } from '../src/logger.js';
import { describeEachDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, STATUS_URL, type TestApp } from './helpers/app.js';

describeEachDatabase('credentials in the URL and in repeated headers', (kind) => {
  let t: TestApp;
  let logged: string;
  beforeEach(async () => {
    logged = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logged += String(chunk);
        done();
      },
    });
    t = await startTestApp(kind, { logger: createLogger('debug', sink) });
  });
  afterEach(async () => t?.close());

  async function credits(accountId: string): Promise<number> {
    return t.app.metering.requestCount(accountId);
  }

  it('refuses a key in the query string with 400 key_in_query, takes no credit, and keeps it out of the logs', async () => {
    const { key, accountId } = await t.account({ plan: { included: 10 } });
    for (const name of ['api_key', 'apiKey', 'key', 'access_token', 'token', 'API-KEY']) {
      const response = await t.get(`${STATUS_URL}&${name}=${key}`, bearer(key));
      expect(response.statusCode).toBe(400);
      expect(json(response)).toEqual({
        success: false,
        code: 'key_in_query',
        message: expect.stringMatching(/Authorization: Bearer/),
      });
      expect(json(response).message).toContain(name);
      expect(response.headers['x-request-id']).toMatch(/^req_/);
      expect(response.headers['x-credits-used']).toBeUndefined();
    }
    // Any parameter whose value is a key, on any route, with or without a header.
    const asValue = await t.get(`/api/v1/flights/status?flightNumber=${encodeURIComponent(key)}&flightDate=2026-02-20`);
    expect(json(asValue).code).toBe('key_in_query');
    expect((await t.get(`/api/health?q=${key}`)).statusCode).toBe(400);
    expect(await credits(accountId)).toBe(0);

    expect(logged).toContain('incoming request'); // at debug level, each request was logged with its URL
    expect(logged).toContain('api_key=[redacted]');
    expect(logged).toContain('flightNumber=[redacted]');
    expect(logged).not.toContain(key);
    expect(logged).not.toContain(key.slice(4));
    // The same request without the key in its URL is served and charged.
    expect((await t.get(STATUS_URL, bearer(key))).headers['x-credits-used']).toBe('1');
  });

  it('refuses a key written as a parameter name, after a semicolon or inside a value, on every route, and logs none of it', async () => {
    const { key, accountId } = await t.account({ plan: { included: 10 } });
    const spellings = [
      `?${key}`,
      `?a=b&${key}`,
      `?a=b;${key}`,
      `?a=b;api_key=${key}`,
      `?${key}=1`,
      `?q=${key}`,
      `?q=Bearer%20${key}`,
      `?q=x,${key}`,
      `?${encodeURIComponent(key)}`,
      `?%66lt_${key.slice(4)}`,
    ];
    const paths = [
      '/api/v1/flights/status',
      '/api/v1/account',
      '/api/health',
      '/api/ready',
      '/dashboard',
      '/no/such/route',
    ];
    for (const path of paths) {
      for (const spelling of spellings) {
        const response = await t.get(`${path}${spelling}`, bearer(key));
        expect(response.statusCode, `${path}${spelling}`).toBe(400);
        expect(json(response).code).toBe('key_in_query');
        // The answer names the parameter, not the key written as its name.
        expect(response.body).not.toContain(key.slice(4, 24));
        expect(response.headers['x-credits-used']).toBeUndefined();
      }
    }
    expect(await credits(accountId)).toBe(0);
    expect(logged).toContain('incoming request');
    expect(logged).toContain('[redacted]');
    expect(logged).not.toContain(key.slice(4));
    expect(logged).not.toContain(key.slice(4, 24));
    // A key in the path is not a query parameter (the route answers 404), but its log line hides it too.
    expect((await t.get(`/api/v1/webhooks/${key}`, bearer(key))).statusCode).toBe(404);
    expect(logged).not.toContain(key.slice(4, 24));
    // Ordinary queries are untouched.
    expect(json(await t.get(`/api/v1/account?a=b;c&d=flt-x&e=FLT`, bearer(key))).code).not.toBe('key_in_query');
  });

  it('recognises a key whose prefix was altered, or its secret alone, however written, and logs none of it', async () => {
    const { key, accountId } = await t.account({ plan: { included: 10 } });
    const secret = key.slice(4);
    const twice = (text: string) => encodeURIComponent(encodeURIComponent(text));
    const spellings = [
      `?q=FLT_${secret}`,
      `?q=Flt_${secret}`,
      `?q=fLT_${secret}`,
      `?FLT_${secret}`,
      `?q=${secret}`,
      `?${secret}`,
      `?${secret}=1`,
      `?a=b;${secret}`,
      `?a=b;q=${secret}`,
      `?q=Bearer%20${secret}`,
      `?q=${[...secret].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}`,
      `?q=${twice(`FLT_${secret}`)}`,
      `?q=${twice(` ${secret}`)}`,
      `?${encodeURIComponent(`Flt_${secret}`)}`,
      `?q=flt-${secret}`,
      `?q=x_${secret}`,
      `?next=FLT_${secret}`,
    ];
    const paths = ['/api/v1/flights/status', '/api/v1/account', '/api/health', '/dashboard', '/dashboard/sign-in'];
    const answered: string[] = [];
    for (const path of paths) {
      for (const spelling of spellings) {
        const response = await t.get(`${path}${spelling}`, bearer(key));
        if (response.statusCode !== 400 || json(response).code !== 'key_in_query')
          answered.push(`${path}${spelling.slice(0, 30)}…: ${response.statusCode}`);
        expect(response.body).not.toContain(secret.slice(0, 20));
        expect(response.headers['x-credits-used']).toBeUndefined();
      }
    }
    expect(answered).toEqual([]);
    expect(await credits(accountId)).toBe(0);
    expect(logged).toContain('incoming request');
    expect(logged).toContain('[redacted]');
    expect(logged).not.toContain(secret.slice(0, 20));
    expect(logged).not.toContain(secret.slice(-20));
    // In a path, whatever its prefix: a 404 whose log line hides it.
    for (const segment of [`FLT_${secret}`, secret, encodeURIComponent(`Flt_${secret}`)]) {
      expect((await t.get(`/api/v1/webhooks/${segment}`, bearer(key))).statusCode).toBe(404);
    }
    expect(logged).not.toContain(secret.slice(0, 20));
  });

  it("refuses none of the service's own query parameters", async () => {
    const { key, accountId } = await t.account({ plan: { included: 100 } });
    // A form's CSRF token and a reset link's token are 43 characters of base64url, like a key's secret.
    const token = randomBytes(32).toString('base64url');
    const csrf = createHash('sha256').update('x').digest('base64url');
    const urls = [
      `${STATUS_URL}&origin=otp&destination=LTN&refresh=0&screenshot=no`,
      '/api/v1/flights/status?flight=W6%203101&date=2026-02-20T07:15:00Z&from=OTP&to=LTN',
      '/api/v1/compensation?origin=OTP&destination=LTN&airline=W6&outcome=delayed&arrivalDelayMinutes=200&divertedTo=BBU&flightDate=2026-02-20',
      `/api/v1/webhooks?limit=5&after=${newId('wh')}`,
      `/api/v1/webhooks/${newId('wh')}/deliveries?limit=5&state=failed&before=${newId('dlv')}&type=flight.delayed&flight=W6%203101&from=2026-02-01&to=2026-02-20`,
      `/api/v1/batches?limit=5&after=${newId('bat')}`,
      `/api/v1/batches/${newId('bat')}/results?limit=5&after=10&only=owed&format=csv`,
      `/api/v1/invoices?limit=5&before=${newId('inv')}`,
      '/api/v1/evidence/key?format=pem',
      `/api/admin/v1/accounts/${accountId}/usage?from=2026-02-01&to=2026-02-20`,
      `/api/admin/v1/invoices?account=${accountId}&state=open&kind=fee&month=2026-02&before=${newId('inv')}`,
      `/api/admin/v1/mail?account=${accountId}&state=queued&limit=5`,
      '/api/admin/v1/sim/flights?date=2026-02-20&airport=OTP&status=delayed&operation=scheduled&limit=5&offset=0',
      `/dashboard/sign-in?next=${encodeURIComponent(`/dashboard/reset-password/${token}`)}&expired=1&reset=1&signed-up=1`,
      `/dashboard/sign-in?next=${encodeURIComponent(`/dashboard/invite/${token}?x=1`)}`,
      `/dashboard/evidence?flightNumber=W63101&flightDate=2026-02-20&_csrf=${csrf}`,
      `/dashboard/evidence?flightNumber=W63101&flightDate=2026-02-20&_csrf=${'A1b2C3d4E5'.repeat(4)}xyz`,
      `/dashboard/keys?welcome=1&done=created`,
      `/dashboard/webhooks/${newId('wh')}?delivery=${newId('dlv')}&type=flight.delayed&flight=W63101&from=2026-02-01&to=2026-02-20&state=failed`,
      '/dashboard/assets/dashboard.css?v=0a1B2c3D',
      `/api/v1/account?id=${newId('acct')}&key=`.replace(
        '&key=',
        `&k=${newId('key')}&u=${newId('usr')}&e=${newId('evt')}&c=${newId('cn')}&m=${newId('mail')}&f=${newId('fl')}`,
      ),
    ];
    const refused: string[] = [];
    for (const url of urls) {
      const response = await t.get(
        url,
        url.startsWith('/api/admin/') ? { authorization: 'Bearer test-admin-token-0123456789abcdef' } : bearer(key),
      );
      if (response.statusCode === 400 && json(response).code === 'key_in_query') refused.push(url);
    }
    expect(refused).toEqual([]);
    // Nor any parameter the API document names, with values of every shape of ours.
    const doc = json(await t.get('/api/v1/openapi.json'));
    const operations = Object.values(
      doc.paths as Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>,
    ).flatMap((p) => Object.values(p));
    const names = [
      ...new Set(operations.flatMap((o) => (o.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name))),
    ];
    expect(names.length).toBeGreaterThan(20);
    const ids = (['acct', 'key', 'fl', 'evt', 'wh', 'dlv', 'usr', 'inv', 'cn', 'bat', 'mail'] as const).map((prefix) =>
      newId(prefix),
    );
    const values = [
      ...ids,
      '2026-02-20',
      '2026-02-20T07:15:00.123456789+05:30',
      'W6 3101',
      'flight.delayed',
      'csv',
      '1',
      '',
    ];
    expect(
      names.flatMap((name) =>
        values
          .filter((value) => keyParametersIn(`/x?${name}=${encodeURIComponent(value)}`).length > 0)
          .map((value) => `${name}=${value}`),
      ),
    ).toEqual([]);
    // The dashboard's own tokens are not refused, but they stay out of the logs like a key.
    expect(logged).toContain('incoming request');
    expect(logged).not.toContain(token);
    expect(logged).not.toContain(csrf);
  });

  it('refuses a key header sent twice, or different keys in different headers, with 400 and no credit', async () => {
    const first = await t.account({ plan: { included: 10 } });
    const second = await t.account({ plan: { included: 10 } });
    const address = await t.app.http.listen({ port: 0, host: '127.0.0.1' });
    // Node's client sends an array value as repeated headers, as a misconfigured proxy would.
    const send = (headers: Record<string, string | string[]>) =>
      new Promise<{ status: number; body: { code: string; message: string }; credits: unknown }>((resolve, reject) => {
        const req = httpRequest(`${address}${STATUS_URL}`, { headers }, (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode!, body: JSON.parse(body), credits: res.headers['x-credits-used'] }),
          );
        });
        req.on('error', reject);
        req.end();
      });

    const refusals: Record<string, string | string[]>[] = [
      { authorization: [`Bearer ${first.key}`, `Bearer ${second.key}`] },
      { authorization: [`Bearer ${first.key}`, `Bearer ${first.key}`] },
      { 'x-api-key': [first.key, second.key] },
      { 'x-service-api-key': [second.key, first.key] },
      { authorization: `Bearer ${first.key}`, 'x-api-key': second.key },
      { 'x-api-key': first.key, 'x-service-api-key': second.key },
    ];
    for (const headers of refusals) {
      const answer = await send(headers);
      expect(answer.status, JSON.stringify(Object.keys(headers))).toBe(400);
      expect(answer.body).toMatchObject({
        code: 'invalid_request',
        message: expect.stringMatching(/once|different API keys/),
      });
      expect(answer.credits).toBeUndefined();
    }
    expect(await credits(first.accountId)).toBe(0);
    expect(await credits(second.accountId)).toBe(0);

    // The same key in two headers names one key: served.
    const same = await send({ authorization: `Bearer ${first.key}`, 'x-api-key': first.key });
    expect(same.status).toBe(200);
    expect(await credits(first.accountId)).toBe(1);
  });
});
