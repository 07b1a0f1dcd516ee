// /api/v1/batches (docs/batches.md): submit a JSON array or a CSV upload, read its state,
// page or download its results, cancel it. A key of the account is required; submitting takes no
// credit: each valid row takes one as it is resolved (runner.ts).
import { baseUrl } from '../http/base-url.js';
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors.js';
import { envelope, unwrap } from '../http/results.js';
import { integerQuery } from '../http/validation.js';
import { Envelope, errors, withCreditHeaders } from '../http/schemas.js';
import type { HttpServer } from '../http/server.js';
import { rowsFromCsv, rowsFromJson, MAX_BATCH_ROWS } from './rows.js';
import { CSV_COLUMNS } from './results.js';
import { readCsvBodies } from './csv-routes.js';
import {
  BatchPage,
  BatchView,
  ListQuery,
  Params,
  ResultPage,
  ResultsQuery,
  SubmitQuery,
  MAX_BATCH_BYTES,
} from './schemas.js';
import { BATCH_PAGE, RESULT_PAGE, type BatchService, type ResultFilter } from './service.js';

const KEY_SECURITY: { [scheme: string]: string[] }[] = [{ bearer: [] }, { apiKey: [] }, { legacyApiKey: [] }];
const common = { tags: ['batches'], security: KEY_SECURITY };
const keyed = { config: { access: 'key' as const } };

const principalOf = (request: FastifyRequest) => {
  if (!request.principal) throw new ApiError('unauthorized', 'Missing API key');
  return request.principal;
};

/** CSV is asked for by ?format=csv, or by Accept: text/csv without a format. */
function wantsCsv(format: string | undefined, accept: string | undefined): boolean {
  if (format) return format === 'csv';
  return /\btext\/csv\b/i.test(accept ?? '');
}

export function batchRoutes(app: HttpServer, deps: { batches: BatchService; publicUrl: string | null }): void {
  const { batches } = deps;
  app.register(async (scope) => {
    // The upload: CSV as text in its encoding (csv-routes.ts), JSON read by the service's parser. Both up to MAX_BATCH_BYTES.
    readCsvBodies(scope);

    scope.post(
      '/api/v1/batches',
      {
        ...keyed,
        bodyLimit: MAX_BATCH_BYTES,
        schema: {
          ...common,
          summary: 'Submit a batch of flights',
          description:
            `A JSON array of rows (the query parameters of GET /api/v1/flights/status, aliases included, and an optional \`reference\`) or a CSV upload ` +
            `(Content-Type: text/csv, a header row naming those columns; UTF-8, Windows-1252 as Excel saves it, UTF-16 with a byte-order mark, or the \`charset\` the Content-Type names) of up to ${MAX_BATCH_ROWS.toLocaleString('en')} rows and ${MAX_BATCH_BYTES / 1024 / 1024} MB. ` +
            "A row's `dateBasis` (column or field) says whether its flightDate is the UTC date (the default) or the departure airport's local date; `dateBasis=local` here makes local the default of the whole upload. " +
            'Every row is checked first: a batch with invalid rows is refused whole (400, naming the first rows at fault) unless `skipInvalid=1`, ' +
            'which reports them in the results at no cost. **Credits:** submitting takes none; each valid row takes one credit as it is resolved, through ' +
            'the same admission as the status endpoint (rows asking the same question are resolved once but each takes its credit). When the allowance ' +
            'runs out and overage is off, the remaining rows are `refused` with nothing taken; overage applies as on the status endpoint. A batch never ' +
            'takes more credits than it has valid rows, and never two for one row.',
          querystring: SubmitQuery,
          consumes: ['application/json', 'text/csv'],
          body: Type.Unknown({ description: 'A JSON array of rows, or CSV text (text/csv)' }),
          response: {
            202: {
              ...withCreditHeaders(Envelope(BatchView, 'The batch, queued')),
              headers: { Location: Type.String({ description: 'The batch: /api/v1/batches/{id}' }) },
            },
            ...errors(400, 401, 402, 403, 409, 413, 415),
          },
        },
        // The body is read by rows.ts, which names the row and field at fault.
        validatorCompiler:
          ({ httpPart }) =>
          (data: unknown) => {
            if (httpPart !== 'querystring') return { value: data };
            const q = (data ?? {}) as Record<string, unknown>;
            const extra = Object.keys(q).filter((k) => k !== 'skipInvalid' && k !== 'dateBasis');
            if (extra.length > 0)
              return { error: new ApiError('invalid_request', `query has an unknown parameter "${extra[0]}"`) };
            if (q.skipInvalid !== undefined && !['0', '1', 'true', 'false'].includes(String(q.skipInvalid))) {
              return { error: new ApiError('invalid_request', 'query.skipInvalid must be 1 or 0') };
            }
            if (q.dateBasis !== undefined && !['utc', 'local'].includes(String(q.dateBasis))) {
              return {
                error: new ApiError(
                  'invalid_request',
                  `query.dateBasis must be utc or local (got ${JSON.stringify(String(q.dateBasis).slice(0, 40))})`,
                ),
              };
            }
            return { value: q };
          },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        const type = String(request.headers['content-type'] ?? '')
          .split(';')[0]!
          .trim()
          .toLowerCase();
        const csv = type === 'text/csv' || type === 'application/csv';
        const defaults = {
          ...((request.query as { dateBasis?: 'utc' | 'local' }).dateBasis
            ? { dateBasis: (request.query as { dateBasis: 'utc' | 'local' }).dateBasis }
            : {}),
        };
        const parsed = csv ? rowsFromCsv(String(request.body ?? ''), defaults) : rowsFromJson(request.body, defaults);
        if (!parsed.ok) throw new ApiError('invalid_request', parsed.message);
        const skip = String((request.query as { skipInvalid?: string }).skipInvalid ?? '0');
        const batch = unwrap(
          await batches.submit({
            accountId: principal.account.id,
            caller: { id: principal.keyId, name: principal.keyName },
            format: csv ? 'csv' : 'json',
            parsed: parsed.value,
            skipInvalid: skip === '1' || skip === 'true',
          }),
        );
        return reply.code(202).header('location', `/api/v1/batches/${batch.id}`).send(envelope(batch));
      },
    );
  });

  app.get(
    '/api/v1/batches',
    {
      ...keyed,
      preValidation: integerQuery('limit'),
      schema: {
        ...common,
        summary: "List the account's batches, newest first",
        querystring: ListQuery,
        response: { 200: withCreditHeaders(Envelope(BatchPage, 'A page of batches')), ...errors(400, 401, 402, 403) },
      },
    },
    async (request) =>
      envelope(
        unwrap(
          await batches.list(principalOf(request).account.id, {
            limit: request.query.limit ?? BATCH_PAGE.default,
            after: request.query.after,
          }),
        ),
      ),
  );

  app.get(
    '/api/v1/batches/:id',
    {
      ...keyed,
      schema: {
        ...common,
        summary: 'A batch: state, counts by outcome, progress, credits, provider calls, estimated finish',
        params: Params,
        response: { 200: withCreditHeaders(Envelope(BatchView, 'The batch')), ...errors(401, 402, 403, 404) },
      },
    },
    async (request) => envelope(unwrap(await batches.get(principalOf(request).account.id, request.params.id))),
  );

  app.delete(
    '/api/v1/batches/:id',
    {
      ...keyed,
      schema: {
        ...common,
        summary: 'Cancel what has not run',
        description:
          'Rows not yet started are `canceled` and take no credit; lookups already in progress finish. 409 once the batch is done or canceled.',
        params: Params,
        response: {
          200: withCreditHeaders(Envelope(BatchView, 'The batch, canceled')),
          ...errors(401, 402, 403, 404, 409),
        },
      },
    },
    async (request) => envelope(unwrap(await batches.cancel(principalOf(request).account.id, request.params.id))),
  );

  app.get(
    '/api/v1/batches/:id/results',
    {
      ...keyed,
      preValidation: integerQuery('limit', 'after'),
      schema: {
        ...common,
        summary: 'The results, one per input row, in input order',
        description:
          'JSON pages (`limit`, `after`), or the whole as CSV with `Accept: text/csv` or `format=csv` (RFC 4180, CRLF, a header row; ' +
          'columns in docs/batches.md). `only=disrupted` keeps delayed, cancelled and diverted flights; `only=owed` those owed EU261 or UK261 compensation; ' +
          '`only=owed_not_at_risk` those owed whose circumstances do not put the amount at risk (`amountAtRisk` false).',
        params: Params,
        querystring: ResultsQuery,
        response: {
          200: withCreditHeaders({
            description: 'A page of results (JSON), or every result as CSV',
            content: {
              'application/json': { schema: Envelope(ResultPage, 'A page of results') },
              'text/csv': {
                schema: Type.String({
                  description: `A header row, then one row per input row: ${CSV_COLUMNS.join(',')}`,
                }),
              },
            },
          }),
          ...errors(400, 401, 402, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const accountId = principalOf(request).account.id;
      const only = request.query.only as ResultFilter | undefined;
      if (wantsCsv(request.query.format, request.headers.accept)) {
        const csv = unwrap(
          await batches.resultsCsv(accountId, request.params.id, baseUrl(request, deps.publicUrl), only),
        );
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${request.params.id}-results.csv"`)
          .serializer((payload: unknown) => payload as string)
          .send(csv as never);
      }
      return envelope(
        unwrap(
          await batches.results(accountId, request.params.id, {
            limit: request.query.limit ?? RESULT_PAGE.default,
            after: request.query.after ?? 0,
            only,
          }),
        ),
      );
    },
  );
}
