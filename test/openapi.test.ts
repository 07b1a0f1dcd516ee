// GET /api/v1/openapi.json: a valid OpenAPI document generated from the schemas that validate and
// serialise, describing every public route; real responses conform to it; /docs renders it.
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { groundTruth } from '../src/sim/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, json, startTestApp, STATUS_URL, type TestApp } from './helpers/app.js';

type Operation = { responses: Record<string, { content?: Record<string, { schema: object }>; headers?: Record<string, unknown> }> };
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: Document;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const response = await t.get('/api/v1/openapi.json');
    expect(response.statusCode).toBe(200);
    doc = json(response);
  });
  afterAll(async () => t?.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('describes exactly the public routes (the operator API and /docs assets aside)', () => {
    // printRoutes draws a tree: a line's indentation says which route it extends.
    const routes = new Set<string>();
    const stack: { indent: number; path: string }[] = [];
    for (const line of t.app.http.printRoutes({ commonPrefix: false }).split('\n')) {
      const match = /^(.*?)(\/\S*) \(([A-Z, ]+)\)/.exec(line);
      if (!match) continue;
      const indent = match[1]!.length;
      while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
      const path = (stack[stack.length - 1]?.path ?? '') + match[2]!;
      stack.push({ indent, path });
      routes.add(path.replace(/:(\w+)/g, '{$1}'));
    }
    const publicRoutes = [...routes].filter((r) => r.startsWith('/api/') && !r.startsWith('/api/admin/')).sort();
    expect(Object.keys(doc.paths).sort()).toEqual(publicRoutes);
    expect(Object.keys(doc.paths).sort()).toEqual(['/api/health', '/api/ready', '/api/v1/account', '/api/v1/airports', '/api/v1/compensation', '/api/v1/flights/status', '/api/v1/openapi.json', '/api/v1/webhooks', '/api/v1/webhooks/{id}', '/api/v1/webhooks/{id}/deliveries', '/api/v1/webhooks/{id}/disable', '/api/v1/webhooks/{id}/enable', '/api/v1/webhooks/{id}/rotate', '/api/v1/webhooks/{id}/test']);
  });

  it('documents the query parameters of the flight lookup, aliases included, and the credit headers', () => {
    const operation = doc.paths['/api/v1/flights/status']!.get as unknown as {
      parameters: { name: string; in: string; required?: boolean }[];
    } & Operation;
    const names = operation.parameters.filter((p) => p.in === 'query').map((p) => p.name);
    for (const name of ['flightNumber', 'flight', 'number', 'flightDate', 'date', 'origin', 'originIata', 'from', 'destination', 'destinationIata', 'dest', 'to', 'refresh', 'screenshot', 'includeScreenshot']) {
      expect(names).toContain(name);
    }
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '401', '402', '403', '429', '500', '503']);
    expect(Object.keys(operation.responses['429']!.headers ?? {})).toContain('Retry-After');
    expect(Object.keys(operation.responses['200']!.headers ?? {})).toEqual([
      'X-Credits-Included',
      'X-Credits-Used',
      'X-Credits-Remaining',
      'X-Credits-Overage',
      'X-Credits-Period-End',
    ]);
    expect(operation.responses['401']!.headers).toBeUndefined();
    expect(operation.responses['503']!.headers).toBeUndefined();
  });

  it('matches what the service really answers', async () => {
    // CommonJS default exports, as NodeNext types see them.
    const Ajv2020 = Ajv2020Module.default;
    const addFormats = addFormatsModule.default;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const check = (path: string, status: number, body: unknown) => {
      const schema = doc.paths[path]!.get!.responses[String(status)]?.content?.['application/json']?.schema;
      expect(schema, `${path} ${status} is documented`).toBeDefined();
      const validate = ajv.compile(schema!);
      expect(validate(body), `${path} ${status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    };
    const { key } = await t.account({ plan: { included: 3 } });
    const lapsed = await t.account({ plan: null });
    const unlimited = await t.account({ plan: null, unlimited: true });
    check('/api/health', 200, json(await t.get('/api/health')));
    check('/api/ready', 200, json(await t.get('/api/ready')));
    for (const path of ['/api/v1/account', '/api/v1/airports']) {
      check(path, 200, json(await t.get(path, bearer(key))));
      check(path, 200, json(await t.get(path, bearer(unlimited.key))));
      check(path, 401, json(await t.get(path)));
      check(path, 402, json(await t.get(path, bearer(lapsed.key))));
    }
    const status = '/api/v1/flights/status';
    check(status, 400, json(await t.get('/api/v1/flights/status?flightNumber=1', bearer(key))));
    check(status, 200, json(await t.get(STATUS_URL, bearer(key))));
    // A found flight with its verdict and proof image: every field of the documented shape.
    const delayed = groundTruth(t.app.sim!, '2026-02-20', { status: 'delayed' })[0]!;
    const found = json(await t.get(`${status}?flightNumber=${delayed.flightNumber}&flightDate=2026-02-20&origin=${delayed.origin}&screenshot=1`, bearer(key)));
    expect(found.data.proof).toBeDefined();
    expect(found.data.compensation).not.toBeNull();
    check(status, 200, found);
    const compensation = '/api/v1/compensation';
    check(compensation, 200, json(await t.get(`${compensation}?origin=OTP&destination=LTN&airline=W6&outcome=delayed&arrivalDelayMinutes=200`, bearer(key))));
    check(compensation, 400, json(await t.get(`${compensation}?origin=OTP`, bearer(key))));
    check(status, 429, json(await t.get(STATUS_URL, bearer(key))));
  });

  it('is rendered at /docs', async () => {
    const page = await t.get('/docs/');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toMatch(/swagger/i);
    const spec = await t.get('/docs/json');
    expect(json(spec).paths).toEqual(doc.paths);
  });
});
