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
    expect(json(missing)).toMatchObject({
      success: false,
      code: 'not_found',
      message: expect.stringContaining('/api/v1/flights'),
    });
    expect((await t.get('/index.html')).statusCode).toBe(404);
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
    expect(json(badUrl)).toMatchObject({
      success: false,
      code: 'invalid_request',
      message: expect.stringMatching(/URL path/),
    });
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
    const rows = await t.app.db.kysely
      .selectFrom('credit_windows')
      .select('used')
      .where('account_id', '=', accountId)
      .execute();
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
      [
        JSON.stringify({ slug: 'x'.repeat(5000) }),
        admin,
        413,
        /larger than this route's limit of 2048 bytes \(2 KiB\)/,
      ],
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
    // However the path is written, the route it reaches decides: an account answer is never cached.
    const { key } = await t.account();
    for (const path of ['/%61pi/v1/account', '/api/v1/%61ccount', '/%41pi/v1/account']) {
      const spelled = await t.get(path, { authorization: `Bearer ${key}` });
      if (spelled.statusCode === 404) continue; // not a route under this spelling (the router is case-sensitive)
      expect(spelled.statusCode, path).toBe(200);
      expect(spelled.headers['cache-control'], path).toBe('no-store');
    }
    expect((await t.get('/%61pi/v1/account', { authorization: `Bearer ${key}` })).statusCode).toBe(200);
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

  /** The app on a real port (listening once for the whole file). */
  async function listening(): Promise<number> {
    if (!t.app.http.server.listening) await t.app.http.listen({ port: 0, host: '127.0.0.1' });
    return (t.app.http.server.address() as { port: number }).port;
  }

  /** Sends raw bytes on a real socket and resolves with everything the server wrote before closing. */
  async function rawExchange(port: number, bytes: string): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
      let data = '';
      socket.on('data', (chunk) => (data += chunk));
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
    });
  }

  function parseRaw(raw: string) {
    const [head = '', ...rest] = raw.split('\r\n\r\n');
    const headers = Object.fromEntries(
      head
        .split('\r\n')
        .slice(1)
        .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    return { status: Number(head.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
  }

  it('takes no credit and writes no usage row for a lookup whose body the HTTP parser rejects, answering 400 in the envelope with a request id', async () => {
    const { key, accountId } = await t.account({ plan: { included: 10 } });
    const port = await listening();
    const raw = await rawExchange(
      port,
      `GET ${STATUS_URL} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n`,
    );
    // One answer on the wire, and it is the parser's 400.
    expect(raw.match(/HTTP\/1\.1 \d{3}/g)).toHaveLength(1);
    const answer = parseRaw(raw);
    expect(answer.status).toBe(400);
    expect(answer.headers['x-request-id']).toMatch(/^req_/);
    expect(answer.headers['x-credits-used']).toBeUndefined();
    expect(JSON.parse(answer.body)).toEqual({
      success: false,
      code: 'invalid_request',
      message: expect.stringMatching(/Malformed HTTP request/),
    });

    // The next lookup is the account's first: nothing was taken, nothing logged.
    const next = await t.get(STATUS_URL.replace('W63101', 'W6310'), bearer(key));
    expect(next.headers['x-credits-used']).toBe('1');
    await t.app.metering.drain();
    const rows = await t.app.db.kysely
      .selectFrom('usage_log')
      .select(['status'])
      .where('account_id', '=', accountId)
      .execute();
    expect(rows.map((r) => r.status)).toEqual([next.statusCode]);
  });

  it('refuses a lookup that sends a body before authentication, taking no credit (a lookup has no body)', async () => {
    const { key, accountId } = await t.account({ plan: { included: 10 } });
    const response = await t.app.http.inject({
      method: 'GET',
      url: STATUS_URL,
      headers: { ...bearer(key), 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(response.statusCode).toBe(400);
    expect(json(response)).toMatchObject({
      success: false,
      code: 'invalid_request',
      message: expect.stringMatching(/no request body/),
    });
    expect(response.headers['x-credits-used']).toBeUndefined();
    const rows = await t.app.db.kysely
      .selectFrom('credit_windows')
      .select('used')
      .where('account_id', '=', accountId)
      .execute();
    expect(rows).toEqual([]);
  });

  it("answers a pipelined good lookup before the parser's 400 for a malformed request after it, each accounted for", async () => {
    const { key, accountId } = await t.account({ plan: { included: 10 } });
    const port = await listening();
    const raw = await rawExchange(
      port,
      `GET ${STATUS_URL.replace('W63101', 'W6310')} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n` +
        'NOT HTTP AT ALL\r\n\r\n',
    );
    const statuses = raw.match(/HTTP\/1\.1 (\d{3})/g);
    expect(statuses).toEqual([expect.stringMatching(/ 500$/), 'HTTP/1.1 400']);
    await t.app.metering.drain();
    const rows = await t.app.db.kysely
      .selectFrom('usage_log')
      .select(['status'])
      .where('account_id', '=', accountId)
      .execute();
    expect(rows.map((r) => r.status)).toEqual([500]);
  });

  it("puts a request id on the parser's own answers (431, 400)", async () => {
    const port = await listening();
    const long = parseRaw(
      await rawExchange(port, `GET /api/health?x=${'A'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
    );
    expect(long.status).toBe(431);
    expect(long.headers['x-request-id']).toMatch(/^req_/);
    const garbage = parseRaw(await rawExchange(port, 'NOT HTTP AT ALL\r\n\r\n'));
    expect(garbage.status).toBe(400);
    expect(garbage.headers['x-request-id']).toMatch(/^req_/);
    expect(JSON.parse(garbage.body)).toMatchObject({ success: false, code: 'invalid_request' });
  });
});
