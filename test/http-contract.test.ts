// What every route shares on the wire: bodies are JSON or refused with 415, and answers over 1 KB
// are compressed for clients that accept it.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groundTruth } from '../src/sim/index.js';
import { ADMIN_TOKEN, bearer, json, routesOf, startTestApp, type TestApp } from './helpers/app.js';

describe('bodies and encodings on every route', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    key = (await t.account({ unlimited: true, plan: null })).key;
  });
  afterAll(async () => t?.close());

  it('refuses a body that is not JSON on every POST and PATCH route with 415 in the envelope', async () => {
    // The API's routes: the dashboard's pages (/dashboard) take forms (test/dashboard.test.ts).
    const targets = routesOf(t)
      .filter(({ path }) => path.startsWith('/api/'))
      .flatMap(({ path, methods }) =>
        methods.filter((m) => m === 'POST' || m === 'PATCH').map((method) => ({ method, path })),
      );
    // The public webhook routes and the operator API's, all of them.
    expect(targets.length).toBeGreaterThanOrEqual(10);
    expect(targets).toContainEqual({ method: 'POST', path: '/api/v1/webhooks/:id/rotate' });
    for (const { method, path } of targets) {
      const url = path.replace(/:(\w+)/g, 'x_$1');
      const auth = path.startsWith('/api/admin/') ? bearer(ADMIN_TOKEN) : bearer(key);
      for (const contentType of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
        const response = await t.app.http.inject({
          method: method as 'POST' | 'PATCH',
          url,
          headers: { ...auth, 'content-type': contentType },
          payload: contentType === 'text/plain' ? '{"name":"looks like JSON"}' : 'name=x',
        });
        expect(response.statusCode, `${method} ${path} with ${contentType}`).toBe(415);
        expect(json(response)).toEqual({
          success: false,
          code: 'unsupported_media_type',
          message: 'Unsupported Content-Type; send application/json',
        });
      }
    }
  });

  it('compresses answers over 1 KB for clients that accept it (br, gzip), and leaves small ones and other clients alone', async () => {
    const plain = await t.get('/api/v1/openapi.json');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(50_000);

    const gzipped = await t.get('/api/v1/openapi.json', { 'accept-encoding': 'gzip' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers.vary).toMatch(/accept-encoding/i);
    expect(gzipped.rawPayload.length).toBeLessThan(plain.body.length / 5);
    expect(gunzipSync(gzipped.rawPayload).toString('utf8')).toBe(plain.body);

    const brotli = await t.get('/api/v1/openapi.json', { 'accept-encoding': 'br;q=1, gzip;q=0.5' });
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(brotli.rawPayload).toString('utf8')).toBe(plain.body);

    // The metered lookup, on its fast path (a string body): compressed too, its headers kept.
    const delayed = groundTruth(t.app.sim!, '2026-02-20', { status: 'delayed' })[0]!;
    const url = `/api/v1/flights/status?flightNumber=${delayed.flightNumber}&flightDate=2026-02-20&origin=${delayed.origin}`;
    const lookup = await t.get(url, { ...bearer(key), 'accept-encoding': 'gzip' });
    expect(lookup.statusCode).toBe(200);
    expect(lookup.headers['content-encoding']).toBe('gzip');
    expect(lookup.headers['x-credits-included']).toBe('unlimited');
    expect(JSON.parse(gunzipSync(lookup.rawPayload).toString('utf8')).success).toBe(true);

    // Refused encodings and no acceptable one: the identity.
    for (const refused of ['br;q=0, gzip;q=0', 'identity', 'compress']) {
      const identity = await t.get('/api/v1/openapi.json', { 'accept-encoding': refused });
      expect(identity.headers['content-encoding'], refused).toBeUndefined();
      expect(identity.body).toBe(plain.body);
    }
    const starred = await t.get('/api/v1/openapi.json', { 'accept-encoding': '*' });
    expect(starred.headers['content-encoding']).toBe('br');

    // A replayed lookup repeats its bytes: compressed the same way each time.
    const again = await t.get(url, { ...bearer(key), 'accept-encoding': 'gzip' });
    expect(JSON.parse(gunzipSync(again.rawPayload).toString('utf8')).data.meta.cached).toBe(true);
    const third = await t.get(url, { ...bearer(key), 'accept-encoding': 'gzip' });
    expect(third.rawPayload.equals(again.rawPayload)).toBe(true);

    // Under the 1 KB threshold: sent as it is.
    const health = await t.get('/api/health', { 'accept-encoding': 'gzip' });
    expect(health.headers['content-encoding']).toBeUndefined();
    expect(json(health)).toEqual({ ok: true, service: 'flight-status-service' });
  });
});
