// Every response is JSON in the envelope: unknown routes, wrong methods, malformed and oversized
// requests, internal failures. No stack trace or internal detail reaches a client.
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, STATUS_URL, type TestApp } from './helpers/app.js';

describeEachDatabase('errors and the envelope', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, {
      bodyLimit: 2048,
      resolver: {
        async resolve() {
          throw new Error('connect ECONNREFUSED 10.0.0.7:5432 password=hunter2');
        },
      },
    });
  });
  afterAll(async () => t?.close());

  it('answers unknown routes with 404 and wrong methods with 405 and an Allow header', async () => {
    const missing = await t.get('/api/v1/flights');
    expect(missing.statusCode).toBe(404);
    expect(json(missing)).toMatchObject({ success: false, code: 'not_found', message: expect.stringContaining('/api/v1/flights') });
    expect((await t.get('/')).statusCode).toBe(404);
    expect((await t.get('/api/v2/account')).statusCode).toBe(404);

    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH'] as const) {
      const wrong = await t.app.http.inject({ method, url: '/api/v1/account' });
      expect(wrong.statusCode).toBe(405);
      expect(json(wrong)).toMatchObject({ success: false, code: 'method_not_allowed' });
      expect(wrong.headers.allow).toBe('GET, HEAD');
    }
    const post = await t.app.http.inject({ method: 'POST', url: '/api/health' });
    expect(post.statusCode).toBe(405);
    // Parametric routes too.
    const put = await t.app.http.inject({ method: 'PUT', url: '/api/admin/v1/accounts/acme' });
    expect(put.statusCode).toBe(405);
    expect(put.headers.allow).toBe('GET, HEAD, PATCH');
  });

  it('answers unroutable URLs in the envelope too', async () => {
    const badUrl = await t.get('/api/v1/flights/status/%E0%A4%A');
    expect(badUrl.statusCode).toBe(400);
    expect(json(badUrl)).toMatchObject({ success: false, code: 'invalid_request', message: expect.stringMatching(/URL path/) });
    expect(badUrl.headers['x-request-id']).toMatch(/^req_/);
    const longParam = await t.admin('GET', `/api/admin/v1/accounts/${'a'.repeat(300)}`);
    expect(longParam.statusCode).toBe(414);
    expect(json(longParam)).toMatchObject({ success: false, code: 'uri_too_long' });
  });

  it('does not meter HEAD on the flight lookup (405), while HEAD works on free routes', async () => {
    const { key, accountId } = await t.account();
    const head = await t.app.http.inject({ method: 'HEAD', url: STATUS_URL, headers: bearer(key) });
    expect(head.statusCode).toBe(405);
    expect(head.headers.allow).toBe('GET');
    const rows = await t.app.db.kysely.selectFrom('credit_windows').select('used').where('account_id', '=', accountId).execute();
    expect(rows).toEqual([]);
    expect((await t.app.http.inject({ method: 'HEAD', url: '/api/health' })).statusCode).toBe(200);
  });

  it('hides internal failures behind a generic 500 and logs nothing to the client', async () => {
    const { key } = await t.account();
    const response = await t.get(STATUS_URL, bearer(key));
    expect(response.statusCode).toBe(500);
    const body = json(response);
    expect(body).toEqual({ success: false, code: 'internal', message: expect.stringMatching(/retried safely/) });
    expect(response.body).not.toMatch(/hunter2|ECONNREFUSED|at .*\.js|stack/);
    // Still metered (spec 7: 500 carries credit headers and is safe to retry).
    expect(response.headers['x-credits-used']).toBe('1');
  });

  it('refuses malformed, hostile and oversized bodies with 400, 413 and 415', async () => {
    const admin = { authorization: 'Bearer test-admin-token-0123456789abcdef', 'content-type': 'application/json' };
    const accountsBefore = (await t.app.accounts.listAccounts()).length;
    const cases: [string | Buffer, Record<string, string>, number, RegExp][] = [
      ['{"slug": "acme",', admin, 400, /not valid JSON/],
      ['', admin, 400, /empty/],
      ['{"slug":"a","__proto__":{"x":1}}', admin, 400, /forbidden key/],
      ['[1,2,3]', admin, 400, /body must be a JSON object/],
      [JSON.stringify({ slug: 'x'.repeat(5000) }), admin, 413, /larger than the limit of 2048 bytes/],
      ['slug=acme', { ...admin, 'content-type': 'application/x-www-form-urlencoded' }, 415, /Content-Type/],
    ];
    for (const [payload, headers, status, message] of cases) {
      const response = await t.app.http.inject({ method: 'POST', url: '/api/admin/v1/accounts', headers, payload });
      expect(response.statusCode, String(payload).slice(0, 40)).toBe(status);
      expect(json(response)).toMatchObject({ success: false, message: expect.stringMatching(message) });
    }
    expect(await t.app.accounts.listAccounts()).toHaveLength(accountsBefore);
  });

  it('returns a request id on every response, keeping a sane incoming one', async () => {
    const generated = await t.get('/api/health');
    expect(generated.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
    const kept = await t.get('/api/health', { 'x-request-id': 'client-trace-12345' });
    expect(kept.headers['x-request-id']).toBe('client-trace-12345');
    const replaced = await t.get('/api/health', { 'x-request-id': 'bad id\u0001' });
    expect(replaced.headers['x-request-id']).toMatch(/^req_/);
    const error = await t.get('/nowhere');
    expect(error.headers['x-request-id']).toMatch(/^req_/);
  });

  it('sends no-store and nosniff on API responses', async () => {
    const response = await t.get('/api/health');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(json(response)).toEqual({ ok: true, service: 'flight-status-service' });
  });

  it('answers an over-long request line with 431 in the envelope, on a real socket', async () => {
    const address = await t.app.http.listen({ port: 0, host: '127.0.0.1' });
    const port = Number(new URL(address).port);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(`GET /api/v1/flights/status?flightNumber=${'A'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
      });
      let data = '';
      socket.on('data', (chunk) => (data += chunk));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1.1 431/);
    const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    expect(body).toMatchObject({ success: false, code: 'header_too_large' });

    const garbage = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let data = '';
      socket.on('data', (chunk) => (data += chunk));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(garbage).toMatch(/^HTTP\/1.1 400/);
    expect(garbage).toMatch(/"success":false/);
  });
});
