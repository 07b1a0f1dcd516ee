// Where a key may travel: only in its headers, once. A key in the URL is refused (and kept out of the
// logs); a key header sent twice, or different keys in different headers, is refused, never
// first-wins. None of these refusals takes a credit.
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, expect, it } from 'vitest';
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
      expect(json(response)).toEqual({ success: false, code: 'key_in_query', message: expect.stringMatching(/Authorization: Bearer/) });
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
    const paths = ['/api/v1/flights/status', '/api/v1/account', '/api/health', '/api/ready', '/dashboard', '/no/such/route'];
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
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(body), credits: res.headers['x-credits-used'] }));
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
      expect(answer.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/once|different API keys/) });
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
