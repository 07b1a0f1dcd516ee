// GET /api/v1/openapi.json: a valid OpenAPI document generated from the schemas that validate and
// serialise, describing every public route; real responses conform to it; /docs renders it.
import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { groundTruth } from '../src/sim/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { bearer, json, routesOf, startTestApp, STATUS_URL, type TestApp } from './helpers/app.js';
import { observe } from './helpers/events.js';

type Operation = {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: {
    name: string;
    in: string;
    required?: boolean;
    description?: string;
    schema: Record<string, unknown>;
  }[];
  responses: Record<
    string,
    { description: string; content?: Record<string, { schema: object }>; headers?: Record<string, unknown> }
  >;
};
type Document = {
  openapi: string;
  servers?: { url: string }[];
  tags?: { name: string }[];
  components: { schemas?: Record<string, object> };
  paths: Record<string, Record<string, Operation>>;
};
const operations = (doc: Document) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
  );

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
    const routes = new Set(routesOf(t).map((r) => r.path.replace(/:(\w+)/g, '{$1}')));
    const publicRoutes = [...routes].filter((r) => r.startsWith('/api/') && !r.startsWith('/api/admin/')).sort();
    expect(Object.keys(doc.paths).sort()).toEqual(publicRoutes);
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/api/health',
      '/api/ready',
      '/api/v1/account',
      '/api/v1/airports',
      '/api/v1/batches',
      '/api/v1/batches/{id}',
      '/api/v1/batches/{id}/results',
      '/api/v1/compensation',
      '/api/v1/credit-notes/{id}/pdf',
      '/api/v1/evidence/key',
      '/api/v1/flights/evidence',
      '/api/v1/flights/status',
      '/api/v1/invoices',
      '/api/v1/invoices/{id}',
      '/api/v1/invoices/{id}/html',
      '/api/v1/invoices/{id}/pdf',
      '/api/v1/openapi.json',
      '/api/v1/watches',
      '/api/v1/watches/{id}',
      '/api/v1/webhooks',
      '/api/v1/webhooks/{id}',
      '/api/v1/webhooks/{id}/deliveries',
      '/api/v1/webhooks/{id}/deliveries/resend',
      '/api/v1/webhooks/{id}/deliveries/{delivery}/resend',
      '/api/v1/webhooks/{id}/disable',
      '/api/v1/webhooks/{id}/enable',
      '/api/v1/webhooks/{id}/rotate',
      '/api/v1/webhooks/{id}/test',
    ]);
  });

  it("is what the README's API table lists, operation by operation", () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const table = readme.slice(readme.indexOf('## The API'), readme.indexOf('\n\n', readme.indexOf('| Endpoint |')));
    const listed = [...table.matchAll(/^\| ([^|]+) \|/gm)].flatMap(([, cell]) =>
      [...cell!.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/[^`\s]+)`/g)].map(([, method, path]) => `${method} ${path}`),
    );
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item as object)
        .filter((k) => ['get', 'post', 'put', 'patch', 'delete'].includes(k))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect([...listed].sort()).toEqual([...documented].sort());
  });

  it('documents the query parameters of the flight lookup, aliases included, and the credit headers', () => {
    const operation = doc.paths['/api/v1/flights/status']!.get as unknown as {
      parameters: { name: string; in: string; required?: boolean }[];
    } & Operation;
    const names = operation.parameters.filter((p) => p.in === 'query').map((p) => p.name);
    for (const name of [
      'flightNumber',
      'flight',
      'number',
      'flightDate',
      'date',
      'origin',
      'originIata',
      'from',
      'destination',
      'destinationIata',
      'dest',
      'to',
      'refresh',
      'screenshot',
      'includeScreenshot',
    ]) {
      expect(names).toContain(name);
    }
    // Its 500 may say what each provider answered.
    const failed = operation.responses['500'] as unknown as {
      content: Record<string, { schema: { allOf: { $ref: string }[] } }>;
    };
    expect(failed.content['application/json']!.schema.allOf[0]!.$ref).toBe('#/components/schemas/LookupFailed');
    expect(Object.keys((doc.components!.schemas!.LookupFailed as { properties: object }).properties)).toEqual([
      'success',
      'message',
      'code',
      'sources',
    ]);
    // The canonical names are required (a generated client cannot leave them out); the aliases are not.
    const required = operation.parameters.filter((p) => p.in === 'query' && p.required === true).map((p) => p.name);
    expect(required.sort()).toEqual(['flightDate', 'flightNumber']);
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

  it('documents the CSV uploads of batches and watches beside their JSON bodies', () => {
    for (const path of ['/api/v1/batches', '/api/v1/watches']) {
      const body = (doc.paths[path] as Record<string, { requestBody?: { content?: Record<string, unknown> } }>).post!
        .requestBody!;
      expect(Object.keys(body.content!).sort(), path).toEqual(['application/json', 'text/csv']);
    }
  });

  it("documents the evidence PDF as the status endpoint's query, a binary body with the record's hash, and its key as public", () => {
    const evidence = doc.paths['/api/v1/flights/evidence']!.get!;
    const status = doc.paths['/api/v1/flights/status']!.get!;
    expect(evidence.operationId).toBe('getFlightEvidence');
    expect(evidence.parameters!.map((p) => p.name)).toEqual(status.parameters!.map((p) => p.name));
    expect(evidence.responses['200']!.content).toEqual({
      'application/pdf': { schema: { type: 'string', format: 'binary' } },
    });
    expect(Object.keys(evidence.responses['200']!.headers ?? {})).toEqual([
      ...Object.keys(status.responses['200']!.headers ?? {}),
      'X-Evidence-Record-Sha256',
    ]);
    expect(Object.keys(evidence.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '402',
      '403',
      '404',
      '429',
      '500',
      '503',
    ]);
    const key = doc.paths['/api/v1/evidence/key']!.get!;
    expect(key.security).toEqual([]);
    expect(Object.keys(key.responses['200']!.content!).sort()).toEqual(['application/json', 'application/x-pem-file']);
  });

  it('matches what the service really answers, on every route, in success and error', async () => {
    // CommonJS default exports, as NodeNext types see them.
    const Ajv2020 = Ajv2020Module.default;
    const addFormats = addFormatsModule.default;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const seen = new Set<string>();
    const check = (method: string, path: string, response: LightMyRequestResponse) => {
      const status = String(response.statusCode);
      const operation = doc.paths[path]?.[method];
      expect(operation, `${method} ${path} is documented`).toEqual(
        expect.objectContaining({ responses: expect.any(Object) }),
      );
      const content = operation!.responses[status]?.content ?? {};
      const media = String(response.headers['content-type']).split(';')[0]!;
      expect(
        Object.keys(content),
        `${method} ${path} ${status} is documented as ${media} (body ${response.body.slice(0, 200)})`,
      ).toContain(media);
      seen.add(`${method} ${path} ${status}`);
      // An HTML page or a PDF: its documented media type is its contract.
      if (media !== 'application/json') return;
      const schema = content['application/json']!.schema;
      // The document's own components resolve the $refs.
      const validate = ajv.compile({ ...schema, components: doc.components });
      expect(validate(json(response)), `${method} ${path} ${status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      seen.add(`${method} ${path} ${status}`);
    };
    const { key } = await t.account({ plan: { included: 3 } });
    const lapsed = await t.account({ plan: null });
    const unlimited = await t.account({ plan: null, unlimited: true });
    const disabled = await t.account();
    expect((await t.admin('PATCH', `/api/admin/v1/keys/${disabled.keyId}`, { disabled: true })).statusCode).toBe(200);
    const auth = bearer(unlimited.key);
    const send = (
      method: 'POST' | 'PATCH' | 'DELETE' | 'GET',
      url: string,
      payload?: unknown,
      headers: Record<string, string> = {},
    ) =>
      t.app.http.inject({
        method,
        url,
        headers: { ...auth, ...headers },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });

    check('get', '/api/health', await t.get('/api/health'));
    check('get', '/api/ready', await t.get('/api/ready'));
    check('get', '/api/v1/openapi.json', await t.get('/api/v1/openapi.json'));
    for (const path of ['/api/v1/account', '/api/v1/airports']) {
      check('get', path, await t.get(path, bearer(key)));
      check('get', path, await t.get(path, auth));
      check('get', path, await t.get(path));
      check('get', path, await t.get(path, bearer(lapsed.key)));
      check('get', path, await t.get(path, bearer(disabled.key)));
    }
    const status = '/api/v1/flights/status';
    check('get', status, await t.get('/api/v1/flights/status?flightNumber=1', bearer(key)));
    check('get', status, await t.get(STATUS_URL, bearer(key)));
    // A found flight with its verdict and proof image: every field of the documented shape.
    const delayed = groundTruth(t.app.sim!, '2026-02-20', { status: 'delayed' })[0]!;
    const found = await t.get(
      `${status}?flightNumber=${delayed.flightNumber}&flightDate=2026-02-20&origin=${delayed.origin}&screenshot=1`,
      bearer(key),
    );
    // The proof image, rendered (@napi-rs/canvas ships for this platform; null would mean it could not be).
    expect(json(found).data.proof).toMatchObject({
      mediaType: 'image/png',
      encoding: 'base64',
      data: expect.stringMatching(/^iVBORw0KGgo/),
    });
    expect(json(found).data.compensation).not.toBeNull();
    check('get', status, found);
    check('get', status, await t.get(STATUS_URL, bearer(key)));
    expect(seen).toContain('get /api/v1/flights/status 429');
    // The evidence PDF of the same flight (its contract is its media type), the refusals, and its key.
    const evidence = '/api/v1/flights/evidence';
    const pdf = await t.get(
      `${evidence}?flightNumber=${delayed.flightNumber}&flightDate=2026-02-20&origin=${delayed.origin}`,
      auth,
    );
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    check('get', evidence, pdf);
    check('get', evidence, await t.get(`${evidence}?flightNumber=ZZ9999&flightDate=2026-02-20`, auth));
    check('get', evidence, await t.get(`${evidence}?flightNumber=ZZ9999`, auth));
    check('get', evidence, await t.get(`${evidence}?flightNumber=ZZ9999&flightDate=2026-02-20`));
    check('get', evidence, await t.get(`${evidence}?flightNumber=ZZ9999&flightDate=2026-02-20`, bearer(lapsed.key)));
    check('get', evidence, await t.get(`${evidence}?flightNumber=ZZ9999&flightDate=2026-02-20`, bearer(disabled.key)));
    check('get', evidence, await t.get(`${evidence}?flightNumber=ZZ9999&flightDate=2026-02-20`, bearer(key)));
    check('get', '/api/v1/evidence/key', await t.get('/api/v1/evidence/key'));
    check('get', '/api/v1/evidence/key', await t.get('/api/v1/evidence/key?format=pem'));
    check('get', '/api/v1/evidence/key', await t.get('/api/v1/evidence/key?format=der'));
    const compensation = '/api/v1/compensation';
    check(
      'get',
      compensation,
      await t.get(
        `${compensation}?origin=OTP&destination=LTN&airline=W6&outcome=delayed&arrivalDelayMinutes=200`,
        auth,
      ),
    );
    check('get', compensation, await t.get(`${compensation}?origin=OTP`, auth));

    // Invoices: a list, one invoice as JSON, HTML and PDF (the contract of the binary and HTML bodies
    // is their media type), and the refusals.
    check('get', '/api/v1/invoices', await send('GET', '/api/v1/invoices'));
    check('get', '/api/v1/invoices', await send('GET', '/api/v1/invoices?limit=0'));
    check('get', '/api/v1/invoices', await t.get('/api/v1/invoices'));
    check('get', '/api/v1/invoices', await t.get('/api/v1/invoices', bearer(disabled.key)));
    const invoiced = await invoicedAccount(t);
    for (const suffix of ['', '/html', '/pdf']) {
      const path = `/api/v1/invoices/{id}${suffix}`;
      check('get', path, await t.get(`/api/v1/invoices/${invoiced.invoiceId}${suffix}`, bearer(invoiced.key)));
      check('get', path, await t.get(`/api/v1/invoices/inv_missing${suffix}`, bearer(invoiced.key)));
      check('get', path, await t.get(`/api/v1/invoices/inv_missing${suffix}`));
      check('get', path, await t.get(`/api/v1/invoices/inv_missing${suffix}`, bearer(disabled.key)));
    }
    // A credit note (the operator's) as its customer downloads it.
    const credited = await t.admin('POST', `/api/admin/v1/invoices/${invoiced.invoiceId}/credit-notes`, {
      reason: 'contract test',
    });
    const creditNote = '/api/v1/credit-notes/{id}/pdf';
    check('get', creditNote, await t.get(`/api/v1/credit-notes/${json(credited).data.id}/pdf`, bearer(invoiced.key)));
    check('get', creditNote, await t.get('/api/v1/credit-notes/cn_missing/pdf', bearer(invoiced.key)));
    check('get', creditNote, await t.get('/api/v1/credit-notes/cn_missing/pdf'));

    // Webhooks, every operation: success, then the main refusals.
    const hooks = '/api/v1/webhooks';
    const hook = '/api/v1/webhooks/{id}';
    const body = { name: 'contract', url: 'http://127.0.0.1:9/hooks', airports: ['OTP'] };
    const created = await send('POST', hooks, body, { 'idempotency-key': 'contract-1' });
    check('post', hooks, created);
    check('post', hooks, await send('POST', hooks, body, { 'idempotency-key': 'contract-1' }));
    check('post', hooks, await send('POST', hooks, { ...body, name: 'other' }, { 'idempotency-key': 'contract-1' }));
    check('post', hooks, await send('POST', hooks, { ...body, airports: [] }));
    check(
      'post',
      hooks,
      await t.app.http.inject({
        method: 'POST',
        url: hooks,
        headers: { ...auth, 'content-type': 'text/plain' },
        payload: 'name=x',
      }),
    );
    check(
      'post',
      hooks,
      await t.app.http.inject({
        method: 'POST',
        url: hooks,
        headers: { ...auth, 'content-type': 'application/json' },
        payload: JSON.stringify({ name: 'x'.repeat(70_000) }),
      }),
    );
    check('post', hooks, await t.app.http.inject({ method: 'POST', url: hooks, payload: body }));
    check('get', hooks, await send('GET', hooks));
    const id = json(created).data.id as string;
    check('get', hook, await send('GET', `${hooks}/${id}`));
    check('get', hook, await send('GET', `${hooks}/wh_missing`));
    check('get', hook, await send('GET', `${hooks}/${'w'.repeat(150)}`));
    check('get', hook, await send('GET', `${hooks}/${'w'.repeat(250)}`));
    check('patch', hook, await send('PATCH', `${hooks}/${id}`, { name: 'renamed' }));
    check('patch', hook, await send('PATCH', `${hooks}/${id}`, {}));
    check(
      'patch',
      hook,
      await t.app.http.inject({
        method: 'PATCH',
        url: `${hooks}/${id}`,
        headers: { ...auth, 'content-type': 'text/plain' },
        payload: 'x',
      }),
    );
    for (const action of ['rotate', 'test', 'enable', 'disable']) {
      check('post', `${hook}/${action}`, await send('POST', `${hooks}/${id}/${action}`));
      check('post', `${hook}/${action}`, await send('POST', `${hooks}/wh_missing/${action}`));
    }
    // A board change makes a delivery to resend; a test event is refused (it is not resent).
    await send('POST', `${hooks}/${id}/enable`);
    check(
      'post',
      `${hook}/deliveries/resend`,
      await send('POST', `${hooks}/${id}/deliveries/resend`, { since: '2026-01-01' }),
    );
    check(
      'post',
      `${hook}/deliveries/resend`,
      await send('POST', `${hooks}/${id}/deliveries/resend`, { since: 'yesterday' }),
    );
    check(
      'post',
      `${hook}/deliveries/resend`,
      await send('POST', `${hooks}/wh_missing/deliveries/resend`, { since: '2026-01-01' }),
    );
    await observe(t, 'OTP', 1);
    const [delivery] = json(await send('GET', `${hooks}/${id}/deliveries?state=queued`)).data.deliveries as {
      id: string;
    }[];
    check(
      'post',
      `${hook}/deliveries/{delivery}/resend`,
      await send('POST', `${hooks}/${id}/deliveries/${delivery!.id}/resend`),
    );
    const testSend = json(await send('POST', `${hooks}/${id}/test`)).data.deliveryId as string;
    check(
      'post',
      `${hook}/deliveries/{delivery}/resend`,
      await send('POST', `${hooks}/${id}/deliveries/${testSend}/resend`),
    );
    check(
      'post',
      `${hook}/deliveries/{delivery}/resend`,
      await send('POST', `${hooks}/${id}/deliveries/dlv_missing/resend`),
    );
    check('get', `${hook}/deliveries`, await send('GET', `${hooks}/${id}/deliveries?limit=5`));
    check('get', `${hook}/deliveries`, await send('GET', `${hooks}/${id}/deliveries?limit=0`));
    check('delete', hook, await send('DELETE', `${hooks}/${id}`));
    check('delete', hook, await send('DELETE', `${hooks}/${id}`));

    // Batches: submit (JSON and CSV), list, read, results (JSON and CSV), cancel, and the refusals.
    const batches = '/api/v1/batches';
    const batch = '/api/v1/batches/{id}';
    const submitted = await send('POST', batches, [
      { flightNumber: delayed.flightNumber, flightDate: '2026-02-20', reference: 'c-1' },
    ]);
    check('post', batches, submitted);
    check(
      'post',
      batches,
      await t.app.http.inject({
        method: 'POST',
        url: batches,
        headers: { ...auth, 'content-type': 'text/csv' },
        payload: `flightNumber,flightDate\r\n${delayed.flightNumber},2026-02-20\r\n`,
      }),
    );
    check('post', batches, await send('POST', batches, [{ flightNumber: 'W63101' }]));
    check(
      'post',
      batches,
      await send('POST', batches, [{ flightNumber: 'W63101', flightDate: '2026-02-20' }], {
        'idempotency-key': 'batch-1',
      }),
    );
    check(
      'post',
      batches,
      await send('POST', batches, [{ flightNumber: 'W63101', flightDate: '2026-02-21' }], {
        'idempotency-key': 'batch-1',
      }),
    );
    check(
      'post',
      batches,
      await t.app.http.inject({
        method: 'POST',
        url: batches,
        headers: { ...auth, 'content-type': 'application/xml' },
        payload: '<rows/>',
      }),
    );
    check(
      'post',
      batches,
      await t.app.http.inject({
        method: 'POST',
        url: batches,
        headers: { ...auth, 'content-type': 'text/csv' },
        payload: 'x'.repeat(5 * 1024 * 1024),
      }),
    );
    check('post', batches, await t.app.http.inject({ method: 'POST', url: batches, payload: [] }));
    check(
      'post',
      batches,
      await t.app.http.inject({
        method: 'POST',
        url: batches,
        headers: { ...bearer(lapsed.key), 'content-type': 'application/json' },
        payload: '[]',
      }),
    );
    check(
      'post',
      batches,
      await t.app.http.inject({
        method: 'POST',
        url: batches,
        headers: { ...bearer(disabled.key), 'content-type': 'application/json' },
        payload: '[]',
      }),
    );
    const batchId = json(submitted).data.id as string;
    check('get', batches, await send('GET', `${batches}?limit=1`));
    check('get', batches, await send('GET', `${batches}?limit=0`));
    check('get', batch, await send('GET', `${batches}/${batchId}`));
    check('get', batch, await send('GET', `${batches}/bat_missing`));
    check('get', `${batch}/results`, await send('GET', `${batches}/${batchId}/results`));
    check('get', `${batch}/results`, await send('GET', `${batches}/${batchId}/results?format=csv`));
    check('get', `${batch}/results`, await send('GET', `${batches}/${batchId}/results?only=everything`));
    check('get', `${batch}/results`, await send('GET', `${batches}/bat_missing/results`));
    const running = json(
      await send(
        'POST',
        batches,
        Array.from({ length: 2000 }, (_, i) => ({ flightNumber: `W6${1000 + i}`, flightDate: '2026-02-20' })),
      ),
    ).data.id as string;
    check('delete', batch, await send('DELETE', `${batches}/${running}`));
    check('delete', batch, await send('DELETE', `${batches}/${running}`));
    check('delete', batch, await send('DELETE', `${batches}/bat_missing`));

    // Watches: one, many (JSON and CSV), again (200), refused (unknown endpoint, no credits), list, read, stop.
    const watches = '/api/v1/watches';
    const watch = '/api/v1/watches/{id}';
    const endpoint = json(
      await send('POST', hooks, { name: 'watches', url: 'http://127.0.0.1:9/watches', airports: ['OTP'] }),
    ).data.id as string;
    const one = { flightNumber: delayed.flightNumber, flightDate: '2026-02-20', endpoints: [endpoint] };
    const watched = await send('POST', watches, one);
    check('post', watches, watched);
    check('post', watches, await send('POST', watches, one));
    check(
      'post',
      watches,
      await send('POST', watches, [
        { ...one, reference: 'r-1' },
        { ...one, reference: 'r-2' },
      ]),
    );
    check(
      'post',
      watches,
      await t.app.http.inject({
        method: 'POST',
        url: `${watches}?endpoints=${endpoint}`,
        headers: { ...auth, 'content-type': 'text/csv' },
        payload: `flightNumber,flightDate,reference\r\n${delayed.flightNumber},2026-02-20,csv-1\r\n`,
      }),
    );
    check('post', watches, await send('POST', watches, { ...one, endpoints: ['wh_missing'] }));
    check('post', watches, await send('POST', watches, { ...one, flightDate: '2026-02-30' }));
    const watchId = json(watched).data.id as string;
    check('get', watches, await send('GET', `${watches}?limit=1&state=active`));
    check('get', watches, await send('GET', `${watches}?state=asleep`));
    check('get', watch, await send('GET', `${watches}/${watchId}`));
    check('get', watch, await send('GET', `${watches}/wch_missing`));
    check('delete', watch, await send('DELETE', `${watches}/${watchId}`));
    check('delete', watch, await send('DELETE', `${watches}/wch_missing`));

    // Every operation was driven, and each status each one can answer was seen at least once
    // somewhere (the statuses of the guard on the routes above, the rest on the webhook routes).
    for (const { path, method } of operations(doc)) {
      expect(
        [...seen].some((s) => s.startsWith(`${method} ${path} 2`)),
        `${method} ${path} answered a success`,
      ).toBe(true);
    }
    const statuses = new Set([...seen].map((s) => s.split(' ')[2]));
    expect([...statuses].sort()).toEqual([
      '200',
      '201',
      '202',
      '400',
      '401',
      '402',
      '403',
      '404',
      '409',
      '413',
      '414',
      '415',
      '429',
    ]);
  });

  it('gives every operation an operationId, a summary, declared tags, and security (none on the public routes)', () => {
    const declared = (doc.tags ?? []).map((tag) => tag.name);
    const ids = new Set<string>();
    for (const { path, method, operation } of operations(doc)) {
      const name = `${method} ${path}`;
      expect(operation.operationId, name).toMatch(/^[a-z][A-Za-z]+$/);
      ids.add(operation.operationId!);
      expect(operation.summary, name).toBeTruthy();
      for (const tag of operation.tags ?? []) expect(declared, `${name} tag ${tag}`).toContain(tag);
      expect(operation.security, name).toEqual(expect.any(Array));
    }
    expect(ids.size).toBe(operations(doc).length);
    expect(declared).toContain('webhooks');
    for (const path of ['/api/health', '/api/v1/openapi.json']) expect(doc.paths[path]!.get!.security).toEqual([]);
    expect(doc.paths['/api/v1/account']!.get!.security).toEqual([{ bearer: [] }, { apiKey: [] }, { legacyApiKey: [] }]);
    expect(doc.paths['/api/v1/flights/status']!.get!.operationId).toBe('getFlightStatus');
    expect(doc.paths['/api/v1/webhooks']!.post!.operationId).toBe('createWebhook');
  });

  it('names its types as components and refers to them by $ref', () => {
    const names = Object.keys(doc.components.schemas ?? {});
    for (const name of [
      'Account',
      'Airport',
      'FlightStatus',
      'Compensation',
      'Webhook',
      'WebhookWithSecret',
      'Delivery',
      'WebhookTestOutcome',
      'Error',
      'Health',
    ]) {
      expect(names).toContain(name);
    }
    const data = (path: string, method: string, status: string) =>
      (
        doc.paths[path]![method]!.responses[status]!.content!['application/json']!.schema as {
          properties: { data: unknown };
        }
      ).properties.data;
    expect(data('/api/v1/account', 'get', '200')).toEqual({ $ref: '#/components/schemas/Account' });
    expect(data('/api/v1/flights/status', 'get', '200')).toEqual({ $ref: '#/components/schemas/FlightStatus' });
    expect(data('/api/v1/webhooks/{id}', 'get', '200')).toEqual({ $ref: '#/components/schemas/Webhook' });
    expect(data('/api/v1/compensation', 'get', '200')).toEqual({ $ref: '#/components/schemas/Compensation' });
    const flight = doc.components.schemas!.FlightStatus as { properties: { compensation: unknown } };
    expect(flight.properties.compensation).toMatchObject({
      anyOf: [{ $ref: '#/components/schemas/Compensation' }, { type: 'null' }],
    });
    const deliveries = data('/api/v1/webhooks/{id}/deliveries', 'get', '200') as {
      properties: { deliveries: unknown };
    };
    expect(deliveries.properties.deliveries).toMatchObject({ items: { $ref: '#/components/schemas/Delivery' } });
  });

  it('declares every error status each route can answer, with the code each carries', () => {
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path]![method]!.responses).sort();
    expect(statuses('/api/v1/webhooks/{id}', 'get')).toEqual(['200', '400', '401', '402', '403', '404', '414', '500']);
    expect(statuses('/api/v1/webhooks', 'post')).toEqual([
      '201',
      '400',
      '401',
      '402',
      '403',
      '409',
      '413',
      '415',
      '500',
    ]);
    expect(statuses('/api/v1/webhooks/{id}', 'patch')).toEqual([
      '200',
      '400',
      '401',
      '402',
      '403',
      '404',
      '413',
      '414',
      '415',
      '500',
    ]);
    expect(statuses('/api/v1/webhooks/{id}/rotate', 'post')).toEqual([
      '200',
      '400',
      '401',
      '402',
      '403',
      '404',
      '409',
      '413',
      '414',
      '415',
      '500',
    ]);
    expect(statuses('/api/v1/account', 'get')).toEqual(['200', '401', '402', '403', '500']);
    expect(statuses('/api/health', 'get')).toEqual(['200']);
    for (const { path, method, operation } of operations(doc)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const schema = response.content!['application/json']!.schema as {
          allOf: unknown[];
          properties: { code: { enum: string[] } };
        };
        // The envelope, or on the lookups its extension with the providers' answers.
        const envelope = status === '500' && /^\/api\/v1\/flights\/status$/.test(path) ? 'LookupFailed' : 'Error';
        expect(schema.allOf, `${method} ${path} ${status}`).toEqual([{ $ref: `#/components/schemas/${envelope}` }]);
        expect(schema.properties.code.enum.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
        for (const code of schema.properties.code.enum) expect(response.description).toContain(`\`${code}\``);
      }
    }
    const unauthorized = doc.paths['/api/v1/account']!.get!.responses['401']!.content!['application/json']!.schema as {
      properties: { code: { enum: string[] } };
    };
    expect(unauthorized.properties.code.enum).toEqual(['unauthorized']);
    const idempotency = doc.paths['/api/v1/webhooks']!.post!.parameters!.find(
      (p) => p.in === 'header' && p.name === 'Idempotency-Key',
    );
    expect(idempotency?.schema).toMatchObject({ type: 'string', maxLength: 255 });
    expect(Object.keys(doc.paths['/api/v1/webhooks']!.post!.responses['201']!.headers ?? {})).toContain(
      'Idempotent-Replayed',
    );
  });

  it('requires the canonical lookup parameters and describes the aliases the service takes in their place', () => {
    const parameters = doc.paths['/api/v1/flights/status']!.get!.parameters!.filter((p) => p.in === 'query');
    const byName = new Map(parameters.map((p) => [p.name, p]));
    for (const name of ['flightNumber', 'flightDate']) expect(byName.get(name)!.required, name).toBe(true);
    for (const name of ['flight', 'number', 'date', 'origin', 'from', 'refresh'])
      expect(byName.get(name)!.required ?? false, name).toBe(false);
    expect(byName.get('flightNumber')!.description).toContain('Also accepted under flight, number in its place');
    for (const name of ['flight', 'number']) {
      expect(byName.get(name)!.description).toContain(
        'Alias of flightNumber; the service takes it in place of flightNumber, which this description requires',
      );
      // The same type as the canonical name: an alias is not a looser parameter.
      expect(byName.get(name)!.schema).toEqual(byName.get('flightNumber')!.schema);
    }
    expect(byName.get('date')!.description).toContain('Alias of flightDate');
    expect(byName.get('from')!.description).toMatch(
      /^Alias of origin\. Given with origin, it must have the same value/,
    );
    // The evidence PDF takes the same query.
    const evidence = doc.paths['/api/v1/flights/evidence']!.get!.parameters!.filter(
      (p) => p.in === 'query' && p.required === true,
    );
    expect(evidence.map((p) => p.name).sort()).toEqual(['flightDate', 'flightNumber']);
  });

  it('types integer parameters as integers with their range', () => {
    const delay = doc.paths['/api/v1/compensation']!.get!.parameters!.find((p) => p.name === 'arrivalDelayMinutes')!;
    expect(delay.schema).toMatchObject({ type: 'integer', minimum: -99999, maximum: 99999 });
    const limit = (path: string) => doc.paths[path]!.get!.parameters!.find((p) => p.name === 'limit')!.schema;
    expect(limit('/api/v1/webhooks')).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(limit('/api/v1/webhooks/{id}/deliveries')).toMatchObject({ type: 'integer', minimum: 1, maximum: 200 });
  });

  it('describes itself as an operation with a response schema', () => {
    const self = doc.paths['/api/v1/openapi.json']!.get!;
    expect(self.operationId).toBe('getOpenApiDocument');
    expect(self.responses['200']!.content!['application/json']!.schema).toMatchObject({
      type: 'object',
      properties: { openapi: { type: 'string' } },
    });
  });

  it("passes Redocly's recommended rules with no errors", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
    const errors = problems
      .filter((p) => p.severity === 'error')
      .map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
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

describe('OpenAPI servers and the /docs policy follow FLIGHTSTATUS_PUBLIC_URL', () => {
  const apps: TestApp[] = [];
  afterAll(async () => Promise.all(apps.map((a) => a.close())));
  const start = async (publicUrl?: string) => {
    const t = await startTestApp('sqlite', publicUrl === undefined ? {} : { publicUrl });
    apps.push(t);
    return t;
  };

  it('unset: a relative server, and /docs without upgrade-insecure-requests (it renders over plain http on a LAN address)', async () => {
    const t = await start();
    expect(json(await t.get('/api/v1/openapi.json')).servers).toEqual([{ url: '/', description: expect.any(String) }]);
    const page = await t.get('/docs/');
    expect(page.statusCode).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toMatch(/script-src 'self'/);
    expect(csp).not.toMatch(/upgrade-insecure-requests/);
    const asset = await t.get('/docs/static/swagger-ui-bundle.js');
    expect(asset.statusCode).toBe(200);
  });

  it('http://192.168.1.20:8080: that server, still no upgrade', async () => {
    const t = await start('http://192.168.1.20:8080');
    expect(json(await t.get('/api/v1/openapi.json')).servers).toEqual([
      { url: 'http://192.168.1.20:8080', description: expect.any(String) },
    ]);
    expect(String((await t.get('/docs/')).headers['content-security-policy'])).not.toMatch(/upgrade-insecure-requests/);
  });

  it('https://api.example.com: that server, and browsers are asked to upgrade', async () => {
    const t = await start('https://api.example.com');
    expect(json(await t.get('/api/v1/openapi.json')).servers).toEqual([
      { url: 'https://api.example.com', description: expect.any(String) },
    ]);
    expect(String((await t.get('/docs/')).headers['content-security-policy'])).toMatch(/upgrade-insecure-requests;$/);
  });
});

/** An account with one open invoice (March's overage, invoiced on April 2nd), and its key. */
async function invoicedAccount(t: TestApp): Promise<{ key: string; invoiceId: string }> {
  await t.admin('POST', '/api/admin/v1/plans', {
    id: 'contract',
    name: 'Contract',
    currency: 'EUR',
    monthlyFee: '0',
    included: 1,
    overage: true,
    overagePrice: '0.5',
  });
  const account = await t.account({ plan: null });
  await t.admin('PATCH', `/api/admin/v1/accounts/${account.accountId}`, { planId: 'contract' });
  await t.app.db.kysely
    .insertInto('usage_log')
    .values({
      at: Date.UTC(2026, 2, 5),
      account_id: account.accountId,
      key_id: account.keyId,
      endpoint: 'GET /api/v1/flights/status',
      status: 200,
      duration_ms: 1,
      query: '',
      overage: 1,
      plan_id: 'contract',
    })
    .execute();
  await t.app.billing.rerunMonth(Date.UTC(2026, 2, 1), Date.UTC(2026, 3, 2));
  const invoice = await t.app.db.kysely
    .selectFrom('invoices')
    .select('id')
    .where('account_id', '=', account.accountId)
    .executeTakeFirstOrThrow();
  return { key: account.key, invoiceId: invoice.id };
}
