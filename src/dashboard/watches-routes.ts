// The watch pages: thin doors onto WatchService (the service the API's /api/v1/watches calls), always
// with the signed-in user's account (another account's watch is 404, as on the API) and the user as
// the caller whose usage rows pay for the watches: one credit per watch created, exactly as the API.
// Watches arrive as a batch's CSV does (batches-routes.ts): the page's script sends a chosen or dropped
// file as text to POST /watches/upload (the endpoints ticked in `?endpoints=`, the CSRF token in
// x-csrf-token) and is answered in JSON; without scripts the CSV is pasted and the form posted.
// Every problem is found before anything is written, and each is named beside its input.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { principalFor } from '../accounts/index.js';
import { judgePrincipal } from '../auth/index.js';
import { MAX_BATCH_BYTES, readCsvBodies } from '../batches/index.js';
import { iso } from '../clock.js';
import { ApiError } from '../http/errors.js';
import type { Html } from '../html.js';
import { WATCH_PAGE, WATCH_STATES, watchesFromCsv, type WatchView } from '../watches/index.js';
import type { DashboardDeps, PageContext } from './context.js';
import { formOf, formValues } from './forms.js';
import { notice } from './layout.js';
import { csrfToken } from './session.js';
import { watchPage } from './watch-page.js';
import { watchesPage, watchProblem, type WatchFilter, type WatchProblem } from './watches-page.js';

/** The pages' script: the batch pages' upload half, which sends the ticked endpoints too (batches-script.ts). */
const SCRIPTS = ['batches.js'];
/** Invalid rows the refusal lists. */
const PROBLEM_ROWS = 10;
/** The pasted CSV as a form: percent-encoding can triple a byte; the CSV itself is then held to MAX_BATCH_BYTES. */
const FORM_UPLOAD_LIMIT = 3 * MAX_BATCH_BYTES + 64 * 1024;
/** What a watch id looks like (newId('wch')); anything else is not looked up. */
const WATCH_ID = /^wch_[0-9A-Za-z]{1,64}$/;
const TOO_LARGE = `The CSV is larger than ${MAX_BATCH_BYTES / 1024 / 1024} MB: split it into several uploads.`;
/** Why an account's state refuses what costs credits (the API answers 403 or 402 for the same). */
const REFUSED: Record<string, string> = {
  account_disabled: 'This account is disabled.',
  key_disabled: 'This account is disabled.',
  no_plan: 'This account has no active plan.',
  canceled: 'The subscription of this account is canceled.',
  past_due: 'The subscription of this account is past due: pay the open invoice on the Billing page.',
};

type Created = { kind: 'created'; created: number; existing: number; skipped: number };
type Refused = { kind: 'refused'; status: number; problem: WatchProblem };
const refused = (status: number, problem: WatchProblem): Refused => ({ kind: 'refused', status, problem });

export function watchPages(scope: FastifyInstance, deps: DashboardDeps, ctx: PageContext): void {
  const { watches, webhooks } = deps;
  const guarded = { preHandler: ctx.signedIn };
  const accountOf = (request: FastifyRequest) => request.user!.accountId;
  const endpointsOf = async (request: FastifyRequest) => {
    const listed = await webhooks.list(accountOf(request));
    if (listed.kind !== 'ok') throw new Error(listed.message);
    return listed.value.webhooks;
  };

  const list = async (
    request: FastifyRequest,
    reply: FastifyReply,
    o: {
      query?: Record<string, unknown>;
      csv?: string;
      chosen?: string[];
      problem?: WatchProblem;
      status?: number;
      done?: Html;
    } = {},
  ) => {
    const q = o.query ?? {};
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    const filter: WatchFilter = { state: text(q.state), reference: text(q.reference).slice(0, 200) };
    const after = text(q.after);
    const errors: string[] = [];
    if (filter.state !== '' && !(WATCH_STATES as readonly string[]).includes(filter.state)) {
      errors.push(`There is no state “${filter.state.slice(0, 40)}”: watches of every state are shown.`);
      filter.state = '';
    }
    const account = await ctx.account(request);
    // An `after` that is no watch id is no page: not looked up.
    const listed =
      after !== '' && !WATCH_ID.test(after)
        ? ({ kind: 'invalid', message: '' } as const)
        : await watches.list(
            account.id,
            {
              ...(filter.state ? { state: filter.state as WatchView['state'] } : {}),
              ...(filter.reference !== '' ? { reference: filter.reference } : {}),
            },
            { limit: WATCH_PAGE.default, ...(after !== '' ? { after } : {}) },
          );
    if (listed.kind !== 'ok')
      errors.push('That page of watches does not exist. The newest are a click away: “Newest” below.');
    const shown = listed.kind === 'ok' ? listed.value : { watches: [] as WatchView[], nextAfter: null };
    const body = watchesPage({
      csrf: csrfToken(request, reply),
      endpoints: await endpointsOf(request),
      watches: shown.watches,
      filter,
      older: shown.nextAfter,
      paged: after !== '',
      remaining: account.credits ? account.credits.remaining : null,
      maxBytes: MAX_BATCH_BYTES,
      csv: o.csv,
      chosen: o.chosen,
      problem: o.problem,
      done: o.done,
      error: errors.length > 0 ? errors.join(' ') : undefined,
    });
    return ctx.render(request, reply, 'Watches', body, {
      section: 'watches',
      accountName: account.name,
      status: o.status ?? (errors.length > 0 ? 400 : 200),
      scripts: SCRIPTS,
    });
  };

  /** Checks every input, then asks the service to create the watches, paid for by the signed-in user's account. */
  const create = async (
    request: FastifyRequest,
    csv: string,
    chosen: string[],
    skipInvalid: boolean,
  ): Promise<Created | Refused> => {
    const problem: WatchProblem = { messages: [] };
    let status = 400;
    if (chosen.length === 0) {
      problem.endpoints = 'Choose at least one webhook endpoint to send the watches’ events to.';
      problem.messages.push(problem.endpoints);
    }
    if (csv.trim() === '') problem.csv = 'Choose a CSV file or paste the CSV: a header row, then one row per flight.';
    else if (Buffer.byteLength(csv) > MAX_BATCH_BYTES) {
      problem.csv = TOO_LARGE;
      status = 413;
    }
    if (problem.csv) {
      problem.messages.push(problem.csv);
      return refused(status, problem);
    }
    // Rows are checked with a stand-in endpoint when none is ticked, so that the rows' own problems are named too.
    const input = watchesFromCsv(csv, { endpoints: chosen.length > 0 ? chosen : ['wh_none'] });
    if (!input.ok) {
      problem.csv = `${input.message}.`.replace(/\.\.$/, '.');
      problem.messages.push(problem.csv);
      return refused(400, problem);
    }
    const { rows, ignoredColumns } = input.value;
    const bad = rows.filter((r) => r.query === null);
    if (bad.length > 0 && (!skipInvalid || bad.length === rows.length)) {
      problem.messages.push(
        bad.length === rows.length
          ? `All ${rows.length.toLocaleString('en-US')} rows are invalid.`
          : `${bad.length.toLocaleString('en-US')} of ${rows.length.toLocaleString('en-US')} rows are invalid.`,
      );
      problem.rows = bad.slice(0, PROBLEM_ROWS).map((r) => ({ position: r.position, error: r.error ?? 'invalid' }));
      problem.invalid = bad.length;
      problem.total = rows.length;
    }
    if (problem.messages.length > 0) return refused(400, problem);

    const account = await ctx.account(request);
    const user = request.user!;
    const principal = principalFor(account, { id: user.id, name: `dashboard (${user.email})`, prefix: 'dashboard' });
    const judged = judgePrincipal(principal);
    if (judged.kind !== 'ok')
      return refused(judged.kind === 'payment_required' ? 402 : 403, {
        messages: [REFUSED[judged.reason] ?? 'This account may not create watches.'],
      });
    const outcome = await watches.create({ principal, rows, ignoredColumns, skipInvalid });
    if (outcome.kind === 'ok')
      return {
        kind: 'created',
        created: outcome.value.created,
        existing: outcome.value.existing,
        skipped: outcome.value.invalid.length,
      };
    if (outcome.kind === 'exhausted') {
      const { needed, position } = outcome;
      return refused(429, {
        messages: [
          `Not enough credits: this creates ${needed.toLocaleString('en-US')} ${needed === 1 ? 'watch' : 'watches'}, one credit each, and the allowance of ${(position.included ?? 0).toLocaleString('en-US')} for this window has ${(position.remaining ?? 0).toLocaleString('en-US')} left with overage off. It resets at ${iso(position.window.end).slice(0, 16).replace('T', ' ')} UTC.`,
        ],
      });
    }
    // An endpoint that is not the account's (a form sent with another's id) is named beside the endpoints.
    const foreign = outcome.kind === 'invalid' && /not (a )?webhook endpoints? of this account/.test(outcome.message);
    return refused(outcome.kind === 'conflict' ? 409 : 400, {
      messages: [outcome.message],
      ...(foreign ? { endpoints: outcome.message } : {}),
    });
  };

  const CREATED = (c: Created) =>
    new URLSearchParams({
      created: String(c.created),
      existing: String(c.existing),
      skipped: String(c.skipped),
    }).toString();
  /** What the list says after a creation: counts from its own address, shown only when they are counts. */
  const createdNotice = (q: Record<string, unknown>): Html | undefined => {
    const count = (v: unknown) => (typeof v === 'string' && /^\d{1,5}$/.test(v) ? Number(v) : null);
    const [created, existing, skipped] = [count(q.created), count(q.existing), count(q.skipped)];
    if (created === null || existing === null) return undefined;
    const parts = [
      `${created.toLocaleString('en-US')} ${created === 1 ? 'watch' : 'watches'} created (${created.toLocaleString('en-US')} ${created === 1 ? 'credit' : 'credits'})`,
      ...(existing > 0 ? [`${existing.toLocaleString('en-US')} already active, not charged again`] : []),
      ...(skipped
        ? [`${skipped.toLocaleString('en-US')} invalid ${skipped === 1 ? 'row' : 'rows'} skipped at no cost`]
        : []),
    ];
    return notice('ok', `${parts.join('; ')}.`);
  };

  scope.get<{ Querystring: Record<string, unknown> }>('/watches', guarded, (request, reply) =>
    list(request, reply, { query: request.query, done: createdNotice(request.query) }),
  );

  // The two ways in, in a scope of their own: only they read text/csv, and a body too large for them
  // is answered in their own terms (the form again, or JSON for the script).
  scope.register(async (uploads) => {
    readCsvBodies(uploads);
    uploads.setErrorHandler((error: Error & { code?: string }, request, reply) => {
      const tooLarge = error.code === 'FST_ERR_CTP_BODY_TOO_LARGE';
      const wrongType = error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE';
      const unreadable = error instanceof ApiError;
      if (!(tooLarge || wrongType || unreadable) || !request.user) throw error;
      const message = unreadable
        ? error.message
        : tooLarge
          ? TOO_LARGE
          : 'The CSV was sent in a format this page does not read: send it as text (text/csv) or from the form.';
      const problem: WatchProblem = { messages: [message], csv: message };
      const status = error instanceof ApiError ? error.status : tooLarge ? 413 : 415;
      if (request.routeOptions.url === '/dashboard/watches/upload')
        return reply.code(status).send({ message, problem: watchProblem(problem).text });
      return list(request, reply, { problem, status });
    });

    uploads.post('/watches', { ...guarded, bodyLimit: FORM_UPLOAD_LIMIT }, async (request, reply) => {
      if (typeof request.body === 'string') {
        const message = 'Send the CSV from the form on this page.';
        return list(request, reply, { problem: { messages: [message], csv: message }, status: 415 });
      }
      const form = formOf(request);
      const chosen = (formValues(request).endpoints ?? []).filter((id) => id !== '');
      const csv = form.csv ?? '';
      const done = await create(request, csv, chosen, form.skipInvalid === '1');
      if (done.kind === 'created') return reply.redirect(`/dashboard/watches?${CREATED(done)}`, 303);
      // The pasted CSV is shown again for correction, unless it was too large to be worth sending back.
      return list(request, reply, {
        csv: done.status === 413 ? '' : csv,
        chosen,
        problem: done.problem,
        status: done.status,
      });
    });

    uploads.post<{ Querystring: { skipInvalid?: unknown; endpoints?: unknown } }>(
      '/watches/upload',
      { ...guarded, bodyLimit: MAX_BATCH_BYTES },
      async (request, reply) => {
        if (typeof request.body !== 'string') {
          const message = 'Send the CSV as text (Content-Type: text/csv).';
          return reply.code(415).send({ message, problem: watchProblem({ messages: [message] }).text });
        }
        const given = request.query.endpoints;
        const chosen =
          typeof given === 'string'
            ? given
                .split(',')
                .map((id) => id.trim())
                .filter((id) => id !== '')
            : [];
        const done = await create(request, request.body, chosen, request.query.skipInvalid === '1');
        if (done.kind === 'created') {
          const location = `/dashboard/watches?${CREATED(done)}`;
          return reply.code(201).header('location', location).send({ location });
        }
        return reply
          .code(done.status)
          .send({ message: done.problem.messages.join(' '), problem: watchProblem(done.problem).text });
      },
    );
  });

  const detail = async (
    request: FastifyRequest<{ Params: { id: string } }>,
    reply: FastifyReply,
    o: { done?: Html; status?: number } = {},
  ) => {
    if (!WATCH_ID.test(request.params.id)) return reply.callNotFound();
    const found = await watches.get(accountOf(request), request.params.id);
    if (found.kind !== 'ok') return reply.callNotFound();
    const body = watchPage({
      csrf: csrfToken(request, reply),
      watch: found.value,
      endpoints: await endpointsOf(request),
      done: o.done,
    });
    return ctx.render(request, reply, `Watch of ${found.value.flightNumber} on ${found.value.flightDate}`, body, {
      section: 'watches',
      accountName: await ctx.accountName(request),
      status: o.status,
    });
  };

  scope.get<{ Params: { id: string }; Querystring: { done?: unknown } }>('/watches/:id', guarded, (request, reply) =>
    detail(request, reply, {
      done:
        request.query.done === 'stopped'
          ? notice(
              'ok',
              'Watch stopped: it sends nothing more. Watching the flight again creates a new watch, for a credit.',
            )
          : undefined,
    }),
  );

  scope.post<{ Params: { id: string } }>('/watches/:id/stop', guarded, async (request, reply) => {
    if (!WATCH_ID.test(request.params.id)) return reply.callNotFound();
    const before = await watches.get(accountOf(request), request.params.id);
    if (before.kind !== 'ok') return reply.callNotFound();
    if (before.value.state !== 'active')
      return detail(request, reply, {
        done: notice('bad', `This watch is already ${before.value.state}: there is nothing to stop.`),
        status: 409,
      });
    const stopped = await watches.stop(accountOf(request), request.params.id);
    if (stopped.kind !== 'ok') return reply.callNotFound();
    return reply.redirect(`/dashboard/watches/${request.params.id}?done=stopped`, 303);
  });
}
