// The batch pages: thin doors onto BatchService, always with the signed-in user's account (another
// account's batch is 404, as on the API) and the user as the batch's caller. A batch arrives two ways:
// - the page's script reads a chosen or dropped file and sends it as text: POST /batches/upload with
//   Content-Type text/csv and the CSRF token in x-csrf-token; it answers JSON (where to go, or the
//   refusal rendered as the form shows it);
// - without scripts, the CSV pasted into the form's text area: POST /batches as a form, answered with
//   a page (303 to the batch, or the form again with the refusal).
// Not multipart: the dashboard's forms are urlencoded, the API already reads CSV as text, and a file
// read in the browser needs no new parser.
import { baseUrl } from '../http/base-url.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MAX_BATCH_BYTES, readCsvBodies, rowsFromCsv, type BatchView } from '../batches/index.js';
import { ApiError } from '../http/errors.js';
import { ended, progressOf } from './batches-chart.js';
import { batchesPage, uploadProblem, type UploadProblem } from './batches-page.js';
import { batchPage, FILTERS, type Filter } from './batch-page.js';
import type { DashboardDeps, PageContext } from './context.js';
import { formOf } from './forms.js';
import type { Html } from '../html.js';
import { notice } from './layout.js';
import { csrfToken } from './session.js';

/** The pages' own script (upload, progress): batches-script.ts. */
const SCRIPTS = ['batches.js'];
/** Batches listed a page. */
const LIST_PAGE = 20;
/** Results shown a page. */
const RESULTS_PAGE = 50;
/** Invalid rows the refusal lists. */
const PROBLEM_ROWS = 10;
/**
 * The pasted CSV as a form: percent-encoding can triple a byte (a comma is %2C), so the form may be
 * three times the batch's limit; the CSV itself is then held to MAX_BATCH_BYTES.
 */
const FORM_UPLOAD_LIMIT = 3 * MAX_BATCH_BYTES + 64 * 1024;
/** What a batch id looks like (newId('bat')); anything else is not looked up. */
const BATCH_ID = /^bat_[0-9A-Za-z]{1,64}$/;

/** What the page says after an action, by the batch's state now (a batch may be done before its page is first shown). */
const DONE: Record<string, (ended: boolean) => string> = {
  submitted: (ended) =>
    ended
      ? 'Batch done: its results are below.'
      : 'Batch queued. It runs in the background: this page follows it, and you can leave and come back.',
  canceled: () => 'Batch canceled: rows not yet run will not run and take no credit.',
};

type Submitted = { kind: 'queued'; id: string } | { kind: 'refused'; status: number; problem: UploadProblem };

export function batchPages(scope: FastifyInstance, deps: DashboardDeps, ctx: PageContext): void {
  const { batches } = deps;
  const guarded = { preHandler: ctx.signedIn };
  const accountOf = (request: FastifyRequest) => request.user!.accountId;

  const list = async (
    request: FastifyRequest,
    reply: FastifyReply,
    o: { after?: string; csv?: string; problem?: UploadProblem; status?: number } = {},
  ) => {
    const account = await ctx.account(request);
    // An `after` that is no batch id is no page: not looked up.
    const listed =
      o.after !== undefined && !BATCH_ID.test(o.after)
        ? ({ kind: 'invalid', message: 'after: not a batch id' } as const)
        : await batches.list(account.id, { limit: LIST_PAGE, after: o.after });
    const shown = listed.kind === 'ok' ? listed.value : { batches: [] as BatchView[], nextAfter: null };
    const body = batchesPage({
      csrf: csrfToken(request, reply),
      batches: shown.batches,
      older: shown.nextAfter,
      paged: o.after !== undefined,
      remaining: account.credits ? account.credits.remaining : null,
      maxBytes: MAX_BATCH_BYTES,
      csv: o.csv,
      problem: o.problem,
      error:
        listed.kind === 'ok'
          ? undefined
          : 'That page of batches does not exist. The newest are a click away: “Newest” below.',
    });
    return ctx.render(request, reply, 'Batches', body, {
      section: 'batches',
      accountName: account.name,
      status: o.status ?? (listed.kind === 'ok' ? 200 : 400),
      scripts: SCRIPTS,
    });
  };

  /** Checks the CSV, then asks the service to queue it, with the signed-in user as its caller. */
  const submit = async (request: FastifyRequest, csv: string, skipInvalid: boolean): Promise<Submitted> => {
    if (csv.trim() === '')
      return {
        kind: 'refused',
        status: 400,
        problem: { message: 'Choose a CSV file or paste the CSV: a header row, then one row per flight.' },
      };
    if (Buffer.byteLength(csv) > MAX_BATCH_BYTES) {
      return {
        kind: 'refused',
        status: 413,
        problem: {
          message: `The CSV is larger than ${MAX_BATCH_BYTES / 1024 / 1024} MB: split it into several batches.`,
        },
      };
    }
    const parsed = rowsFromCsv(csv);
    if (!parsed.ok)
      return { kind: 'refused', status: 400, problem: { message: `${parsed.message}. Nothing was queued.` } };
    const user = request.user!;
    const result = await batches.submit({
      accountId: user.accountId,
      caller: { id: user.id, name: `dashboard (${user.email})` },
      format: 'csv',
      parsed: parsed.value,
      skipInvalid,
    });
    if (result.kind === 'ok') return { kind: 'queued', id: result.value.id };
    const rows = parsed.value.rows;
    const bad = rows.filter((r) => r.query === null);
    if (result.kind === 'invalid' && bad.length > 0) {
      const message = `${bad.length.toLocaleString('en-US')} of ${rows.length.toLocaleString('en-US')} rows are invalid: nothing was queued.`;
      const shown = bad.slice(0, PROBLEM_ROWS).map((r) => ({ position: r.position, error: r.error ?? 'invalid' }));
      return {
        kind: 'refused',
        status: 400,
        problem: { message, rows: shown, invalid: bad.length, total: rows.length },
      };
    }
    return { kind: 'refused', status: result.kind === 'conflict' ? 409 : 400, problem: { message: result.message } };
  };

  scope.get<{ Querystring: { after?: unknown } }>('/batches', guarded, (request, reply) => {
    const after = request.query.after;
    return list(request, reply, { after: typeof after === 'string' && after !== '' ? after : undefined });
  });

  // The two ways in, in a scope of their own: only they read text/csv, and a body too large for
  // them is answered in their own terms (the form again, or JSON for the script).
  scope.register(async (uploads) => {
    readCsvBodies(uploads);
    uploads.setErrorHandler((error: Error & { code?: string }, request, reply) => {
      const tooLarge = error.code === 'FST_ERR_CTP_BODY_TOO_LARGE';
      const wrongType = error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE';
      // A file in an encoding the service cannot read (readCsvBodies): its own words.
      const unreadable = error instanceof ApiError;
      if (!(tooLarge || wrongType || unreadable) || !request.user) throw error;
      const problem: UploadProblem = {
        message: unreadable
          ? error.message
          : tooLarge
            ? `The CSV is larger than ${MAX_BATCH_BYTES / 1024 / 1024} MB: split it into several batches.`
            : 'The CSV was sent in a format this page does not read: send it as text (text/csv) or from the form.',
      };
      const status = error instanceof ApiError ? error.status : tooLarge ? 413 : 415;
      if (request.routeOptions.url === '/dashboard/batches/upload')
        return reply.code(status).send({ message: problem.message, problem: uploadProblem(problem).text });
      return list(request, reply, { problem, status });
    });

    uploads.post('/batches', { ...guarded, bodyLimit: FORM_UPLOAD_LIMIT }, async (request, reply) => {
      if (typeof request.body === 'string')
        return list(request, reply, { problem: { message: 'Send the CSV from the form on this page.' }, status: 415 });
      const form = formOf(request);
      const csv = form.csv ?? '';
      const submitted = await submit(request, csv, form.skipInvalid === '1');
      if (submitted.kind === 'queued') return reply.redirect(`/dashboard/batches/${submitted.id}?done=submitted`, 303);
      // The pasted CSV is shown again for correction, unless it was too large to be worth sending back.
      return list(request, reply, {
        csv: submitted.status === 413 ? '' : csv,
        problem: submitted.problem,
        status: submitted.status,
      });
    });

    uploads.post<{ Querystring: { skipInvalid?: unknown } }>(
      '/batches/upload',
      { ...guarded, bodyLimit: MAX_BATCH_BYTES },
      async (request, reply) => {
        if (typeof request.body !== 'string') {
          const problem = { message: 'Send the CSV as text (Content-Type: text/csv).' };
          return reply.code(415).send({ message: problem.message, problem: uploadProblem(problem).text });
        }
        const submitted = await submit(request, request.body, request.query.skipInvalid === '1');
        if (submitted.kind === 'queued') {
          const location = `/dashboard/batches/${submitted.id}?done=submitted`;
          return reply.code(201).header('location', location).send({ location });
        }
        return reply
          .code(submitted.status)
          .send({ message: submitted.problem.message, problem: uploadProblem(submitted.problem).text });
      },
    );
  });

  const find = async (request: FastifyRequest<{ Params: { id: string } }>) => {
    const { id } = request.params;
    if (!BATCH_ID.test(id)) return null;
    const found = await batches.get(accountOf(request), id);
    return found.kind === 'ok' ? found.value : null;
  };

  const detail = async (
    request: FastifyRequest,
    reply: FastifyReply,
    batch: BatchView,
    o: { only?: unknown; after?: unknown; done?: Html; status?: number },
  ) => {
    const errors: string[] = [];
    let filter: Filter = '';
    if (o.only !== undefined && o.only !== '') {
      const known = FILTERS.find((f) => f.only !== '' && f.only === o.only);
      if (known) filter = known.only;
      else errors.push('There is no such filter: all rows are shown.');
    }
    let start = 0;
    if (o.after !== undefined && o.after !== '') {
      if (typeof o.after === 'string' && /^\d{1,7}$/.test(o.after) && Number(o.after) < batch.rows)
        start = Number(o.after);
      else errors.push('That page of results does not exist: the first rows are shown.');
    }
    const page = await batches.results(accountOf(request), batch.id, {
      limit: RESULTS_PAGE,
      after: start,
      only: filter || undefined,
    });
    if (page.kind !== 'ok') return reply.callNotFound();
    const body = batchPage({
      csrf: csrfToken(request, reply),
      batch,
      results: page.value.results,
      filter,
      after: start,
      nextAfter: page.value.nextAfter,
      done: o.done,
      error: errors.length > 0 ? errors.join(' ') : undefined,
    });
    const status = o.status ?? (errors.length > 0 ? 400 : 200);
    return ctx.render(request, reply, `Batch ${batch.id}`, body, {
      section: 'batches',
      accountName: await ctx.accountName(request),
      status,
      scripts: SCRIPTS,
    });
  };

  scope.get<{ Params: { id: string }; Querystring: { only?: unknown; after?: unknown; done?: unknown } }>(
    '/batches/:id',
    guarded,
    async (request, reply) => {
      const batch = await find(request);
      if (!batch) return reply.callNotFound();
      const said = typeof request.query.done === 'string' ? DONE[request.query.done]?.(ended(batch)) : undefined;
      return detail(request, reply, batch, {
        only: request.query.only,
        after: request.query.after,
        done: said ? notice('ok', said) : undefined,
      });
    },
  );

  // What the batch page's script polls while the batch runs.
  scope.get<{ Params: { id: string } }>('/batches/:id/progress', guarded, async (request, reply) => {
    const batch = await find(request);
    if (!batch) return reply.callNotFound();
    return reply.type('application/json; charset=utf-8').send(progressOf(batch));
  });

  scope.get<{ Params: { id: string }; Querystring: { only?: unknown } }>(
    '/batches/:id/results.csv',
    guarded,
    async (request, reply) => {
      const batch = await find(request);
      if (!batch) return reply.callNotFound();
      const only = FILTERS.find((f) => f.only !== '' && f.only === request.query.only)?.only || undefined;
      const csv = await batches.resultsCsv(accountOf(request), batch.id, baseUrl(request, deps.publicUrl), only);
      if (csv.kind !== 'ok') return reply.callNotFound();
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${batch.id}-results${only ? `-${only}` : ''}.csv"`)
        .send(csv.value);
    },
  );

  scope.post<{ Params: { id: string } }>('/batches/:id/cancel', guarded, async (request, reply) => {
    if (!BATCH_ID.test(request.params.id)) return reply.callNotFound();
    const canceled = await batches.cancel(accountOf(request), request.params.id);
    if (canceled.kind === 'not_found') return reply.callNotFound();
    if (canceled.kind === 'ok') return reply.redirect(`/dashboard/batches/${request.params.id}?done=canceled`, 303);
    // Already done or canceled: the page as it is, saying so.
    const batch = await find(request);
    if (!batch) return reply.callNotFound();
    return detail(request, reply, batch, {
      done: notice('bad', `This batch is already ${batch.state}: there is nothing left to cancel.`),
      status: 409,
    });
  });
}
