// /api/v1/watches (docs/watches.md): create watches from one JSON object, a JSON array or a CSV
// upload, list them, read one, stop one. A key of the account is required; a watch created takes one
// credit (what a lookup costs), taken with it or not at all (metering/bulk.ts).
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import { MAX_BATCH_BYTES, readCsvBodies } from '../batches/index.js';
import { ApiError } from '../http/errors.js';
import { envelope, unwrap } from '../http/results.js';
import { integerQuery } from '../http/validation.js';
import { CREDIT_HEADERS_DOC, Envelope, errors, withCreditHeaders } from '../http/schemas.js';
import type { HttpServer } from '../http/server.js';
import { creditHeaders, retryAfter } from '../metering/index.js';
import type { Clock } from '../clock.js';
import { iso } from '../clock.js';
import { endpointsParameter, MAX_WATCHES_PER_REQUEST, watchesFromCsv, watchesFromJson } from './input.js';
import { Created, CreateQuery, LIMIT_NOTE, ListQuery, Params, WatchDetail, WatchPage, WatchView } from './schemas.js';
import { WATCH_PAGE, type WatchService } from './service.js';

const KEY_SECURITY: { [scheme: string]: string[] }[] = [{ bearer: [] }, { apiKey: [] }, { legacyApiKey: [] }];
const common = { tags: ['watches'], security: KEY_SECURITY };
const keyed = { config: { access: 'key' as const } };
const QUERY_NAMES = ['endpoints', 'dateBasis', 'skipInvalid'];

const principalOf = (request: FastifyRequest) => {
  if (!request.principal) throw new ApiError('unauthorized', 'Missing API key');
  return request.principal;
};

/** The create route's query, checked here: its body is read by input.ts, which names the row and field at fault. */
function checkCreateQuery(q: Record<string, unknown>): ApiError | null {
  const extra = Object.keys(q).filter((k) => !QUERY_NAMES.includes(k));
  if (extra.length > 0)
    return new ApiError('invalid_request', `query has an unknown parameter "${extra[0]!.slice(0, 40)}"`);
  const shown = (v: unknown) => JSON.stringify(String(v).slice(0, 40));
  if (q.skipInvalid !== undefined && !['0', '1', 'true', 'false'].includes(String(q.skipInvalid)))
    return new ApiError('invalid_request', 'query.skipInvalid must be 1 or 0');
  if (q.dateBasis !== undefined && !['utc', 'local'].includes(String(q.dateBasis)))
    return new ApiError('invalid_request', `query.dateBasis must be utc or local (got ${shown(q.dateBasis)})`);
  if (q.endpoints !== undefined && (typeof q.endpoints !== 'string' || q.endpoints.length > 4096))
    return new ApiError('invalid_request', 'query.endpoints must be one list of endpoint ids separated by commas');
  return null;
}

export function watchRoutes(app: HttpServer, deps: { watches: WatchService; clock: Clock }): void {
  const { watches, clock } = deps;
  app.register(async (scope) => {
    readCsvBodies(scope);
    scope.post(
      '/api/v1/watches',
      {
        ...keyed,
        bodyLimit: MAX_BATCH_BYTES,
        schema: {
          ...common,
          summary: 'Watch flights',
          description:
            'One watch (a JSON object: `flightNumber`, `flightDate`, optional `origin`, `destination`, `dateBasis`, `reference`, and `endpoints`, the ids of webhook endpoints of the account), ' +
            `a JSON array of them, or a CSV upload (Content-Type: text/csv, the columns of a batch, endpoints in the \`endpoints\` query parameter) of up to ${MAX_WATCHES_PER_REQUEST.toLocaleString('en')} rows and ${MAX_BATCH_BYTES / 1024 / 1024} MB. ` +
            "Rows are checked as a batch checks them: a request with invalid rows is refused whole (400, naming the first rows at fault) unless `skipInvalid=1`; an endpoint that is not the account's refuses the request, naming it. " +
            'A watch of the same flight, reference and endpoints that is already active is returned as it is (`existing`), not created or charged again. ' +
            `**Credits:** each watch created takes one credit, as a lookup does, once; all are taken with the watches or none (429, nothing created). Events are never metered. ${LIMIT_NOTE} ` +
            'One JSON object is answered with the watch (201 created, 200 already active); an array or a CSV with the list (201, or 200 when every watch already existed).',
          querystring: CreateQuery,
          consumes: ['application/json', 'text/csv'],
          body: Type.Unknown({ description: 'One watch, a JSON array of watches, or CSV text (text/csv)' }),
          response: {
            200: withCreditHeaders(
              Envelope(Type.Union([WatchView, Created]), 'Already active: the watch, or the list'),
            ),
            201: {
              ...Envelope(Type.Union([WatchView, Created]), 'Created: the watch, or the list'),
              headers: {
                ...CREDIT_HEADERS_DOC,
                Location: Type.String({ description: 'One watch created: /api/v1/watches/{id}' }),
              },
            },
            ...errors(400, 401, 402, 403, 409, 413, 415, 429),
          },
        },
        validatorCompiler:
          ({ httpPart }) =>
          (data: unknown) => {
            if (httpPart !== 'querystring') return { value: data };
            const error = checkCreateQuery((data ?? {}) as Record<string, unknown>);
            return error ? { error } : { value: data };
          },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        const query = request.query as { endpoints?: string; dateBasis?: 'utc' | 'local'; skipInvalid?: string };
        const type = String(request.headers['content-type'] ?? '')
          .split(';')[0]!
          .trim()
          .toLowerCase();
        const csv = type === 'text/csv' || type === 'application/csv';
        const defaults = {
          ...(query.dateBasis ? { dateBasis: query.dateBasis } : {}),
          ...(query.endpoints !== undefined ? { endpoints: endpointsParameter(query.endpoints) } : {}),
        };
        const input = csv
          ? watchesFromCsv(String(request.body ?? ''), defaults)
          : watchesFromJson(request.body, defaults);
        if (!input.ok) throw new ApiError('invalid_request', input.message);
        const outcome = await watches.create({
          principal,
          rows: input.value.rows,
          ignoredColumns: input.value.ignoredColumns,
          skipInvalid: query.skipInvalid === '1' || query.skipInvalid === 'true',
          single: input.value.single,
        });
        if (outcome.kind === 'exhausted') {
          const { position, needed } = outcome;
          const left = position.remaining ?? 0;
          throw new ApiError(
            'credits_exhausted',
            `This request creates ${needed.toLocaleString('en')} ${needed === 1 ? 'watch' : 'watches'}, one credit each, and the allowance of ${position.included} requests for the current window has ${left} left with overage not enabled; nothing was created. It resets at ${iso(position.window.end)}`,
            { ...creditHeaders(position), 'retry-after': retryAfter(position, clock.now()) },
          );
        }
        const created = unwrap(outcome);
        if (created.position) reply.headers(creditHeaders(created.position));
        const status = created.created > 0 ? 201 : 200;
        if (input.value.single) {
          const { rows: _, existing: __, ...watch } = created.watches[0]!;
          if (status === 201) reply.header('location', `/api/v1/watches/${watch.id}`);
          return reply.code(status).send(envelope(watch));
        }
        const { position: _, ...listed } = created;
        return reply.code(status).send(envelope(listed));
      },
    );
  });

  app.get(
    '/api/v1/watches',
    {
      ...keyed,
      preValidation: integerQuery('limit'),
      schema: {
        ...common,
        summary: "List the account's watches, newest first",
        description: '`state`, `reference`, `flightDate` (or `from` and `to`, inclusive) narrow the list.',
        querystring: ListQuery,
        response: { 200: withCreditHeaders(Envelope(WatchPage, 'A page of watches')), ...errors(400, 401, 402, 403) },
      },
    },
    async (request) => {
      const q = request.query;
      if (q.flightDate && (q.from || q.to))
        throw new ApiError('invalid_request', 'query: give flightDate, or from and to, not both');
      return envelope(
        unwrap(
          await watches.list(
            principalOf(request).account.id,
            {
              ...(q.state ? { state: q.state as 'active' | 'stopped' | 'ended' } : {}),
              ...(q.reference !== undefined ? { reference: q.reference } : {}),
              ...(q.flightDate ? { from: q.flightDate, to: q.flightDate } : {}),
              ...(q.from ? { from: q.from } : {}),
              ...(q.to ? { to: q.to } : {}),
            },
            { limit: q.limit ?? WATCH_PAGE.default, after: q.after },
          ),
        ),
      );
    },
  );

  app.get(
    '/api/v1/watches/:id',
    {
      ...keyed,
      schema: {
        ...common,
        summary: 'A watch: its flight as the service holds it, its endpoints, its events',
        params: Params,
        response: { 200: withCreditHeaders(Envelope(WatchDetail, 'The watch')), ...errors(401, 402, 403, 404) },
      },
    },
    async (request) => envelope(unwrap(await watches.get(principalOf(request).account.id, request.params.id))),
  );

  app.delete(
    '/api/v1/watches/:id',
    {
      ...keyed,
      schema: {
        ...common,
        summary: 'Stop a watch',
        description:
          'The watch is `stopped` and sends nothing more. A watch already stopped or ended is answered as it is.',
        params: Params,
        response: { 200: withCreditHeaders(Envelope(WatchView, 'The watch, stopped')), ...errors(401, 402, 403, 404) },
      },
    },
    async (request) => envelope(unwrap(await watches.stop(principalOf(request).account.id, request.params.id))),
  );
}
