// The lookup page: a form onto the same resolver as GET /api/v1/flights/status, metered the same
// way: one credit and its usage row (caller: the signed-in user) taken together before the resolve,
// the row settled with the outcome. The query is checked first, so a mistake costs nothing.
// The evidence PDF of the flight shown (GET /dashboard/evidence, linked from the result) is metered
// the same way as GET /api/v1/flights/evidence: one credit. Its link carries the page's CSRF token,
// so another site cannot spend the account's credits by sending the browser to it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { principalFor, type AccountView } from '../accounts/index.js';
import type { Principal } from '../auth/index.js';
import { sendPdf } from '../http/results.js';
import { parseFlightQuery, type FlightQuery, type FlightStatusData } from '../flights/index.js';
import type { Charge } from '../metering/index.js';
import type { DashboardDeps, PageContext } from './context.js';
import { formOf } from './forms.js';
import { lookupErrors, lookupPage, type LookupErrors, type LookupForm } from './lookup-page.js';
import { csrfToken, csrfValid } from './session.js';
import type { SignedInUser } from '../users/index.js';

const REFUSED: Record<string, string> = {
  exhausted:
    'The allowance of this window is used up and overage is off: nothing was looked up and no credit was taken.',
  account_disabled: 'This account is disabled: nothing was looked up.',
  no_plan: 'This account has no active plan: nothing was looked up.',
  canceled: 'The subscription of this account is canceled: nothing was looked up.',
  past_due: 'The subscription of this account is past due: nothing was looked up.',
};

/** The signed-in user as the caller of a metered request for their account. */
const actingAs = (user: SignedInUser, account: AccountView): Principal =>
  principalFor(account, { id: user.id, name: `dashboard (${user.email})`, prefix: 'dashboard' });

export function lookupPages(scope: FastifyInstance, deps: DashboardDeps, ctx: PageContext): void {
  const describe = async (request: FastifyRequest): Promise<AccountView> => {
    const account = await deps.accounts.describe(request.user!.accountId);
    if (account.kind !== 'ok') throw new Error(account.message);
    return account.value;
  };
  /** `credits`: the account's name and credits left when the handler already knows them (after an admission). */
  const page = async (
    request: FastifyRequest,
    reply: FastifyReply,
    o: {
      form?: LookupForm;
      error?: string;
      errors?: LookupErrors;
      result?: FlightStatusData;
      status?: number;
      credits?: { name: string; remaining: number | null };
    } = {},
  ) => {
    let credits = o.credits;
    if (!credits) {
      const account = await describe(request);
      credits = { name: account.name, remaining: account.credits ? account.credits.remaining : null };
    }
    const body = lookupPage({
      csrf: csrfToken(request, reply),
      form: o.form ?? {},
      remaining: credits.remaining,
      error: o.error,
      errors: o.errors,
      result: o.result,
    });
    return ctx.render(request, reply, 'Look up a flight', body, {
      section: 'lookup',
      accountName: credits.name,
      status: o.status,
    });
  };

  scope.get('/lookup', { preHandler: ctx.signedIn }, (request, reply) => page(request, reply));

  type Credits = { name: string; remaining: number | null };
  /** One credit for the signed-in user's account, or the page that says why not. */
  const admit = async (
    request: FastifyRequest,
    reply: FastifyReply,
    form: LookupForm,
    endpoint: string,
    query: string,
  ): Promise<{ charge: Charge; credits: Credits } | { refused: FastifyReply }> => {
    const account = await describe(request);
    const admission = await deps.gate.admitPrincipal(actingAs(request.user!, account), {
      at: deps.clock.now(),
      endpoint,
      query,
    });
    if (admission.kind === 'unauthenticated') throw new Error('a signed-in user was refused as unauthenticated');
    // The admission says how many credits are left, the one just taken included.
    const credits = { name: account.name, remaining: account.unlimited ? null : admission.position.remaining };
    if (admission.kind === 'admitted') return { charge: admission.charge!, credits };
    deps.refusals.noteRefused(admission, deps.clock.now());
    const reason = admission.kind === 'exhausted' ? 'exhausted' : admission.reason;
    return {
      refused: await page(request, reply, {
        form,
        credits,
        error: REFUSED[reason] ?? 'This lookup was refused.',
        status: admission.kind === 'exhausted' ? 429 : 403,
      }),
    };
  };
  const settle = (charge: Charge, status: number, began: number) =>
    deps.metering.settleUsage({ usageId: charge.usageId, status, durationMs: performance.now() - began });
  /** The form's fields as given, and the query they make (screenshot: the page shows the proof image). */
  const read = (raw: Record<string, unknown>) => {
    // A field sent twice in a URL is read as a list: as if not given.
    const field = (value: unknown) => (typeof value === 'string' ? value : '');
    const form: LookupForm = {
      flightNumber: field(raw.flightNumber),
      flightDate: field(raw.flightDate),
      dateBasis: field(raw.dateBasis),
      origin: field(raw.origin),
      destination: field(raw.destination),
    };
    const given = Object.fromEntries(Object.entries(form).filter(([, v]) => v!.trim() !== '')) as Record<
      string,
      string
    >;
    return { form, given, parsed: parseFlightQuery({ ...given, screenshot: '1' }) };
  };

  scope.post('/lookup', { preHandler: ctx.signedIn }, async (request, reply) => {
    const { form, given, parsed } = read(formOf(request));
    const errors = lookupErrors(form);
    if (Object.keys(errors).length > 0 || !parsed.ok) {
      return page(request, reply, {
        form,
        errors,
        error: 'Check the fields marked below. Nothing was sent and no credit was taken.',
        status: 400,
      });
    }
    const admitted = await admit(request, reply, form, 'POST /dashboard/lookup', new URLSearchParams(given).toString());
    if ('refused' in admitted) return admitted.refused;
    const { charge, credits } = admitted;
    const began = performance.now();
    let data: FlightStatusData;
    try {
      const answer = await deps.resolver.resolve(parsed.query, {
        signal: new AbortController().signal,
        requestId: request.id,
      });
      if (answer.kind === 'unavailable') throw new Error(answer.message);
      data = answer.data;
    } catch (error) {
      request.log.error({ err: error }, 'dashboard lookup failed');
      await settle(charge, 500, began);
      return page(request, reply, {
        form,
        credits,
        error: `The lookup failed on our side (request ${request.id}); try again.`,
        status: 500,
      });
    }
    await settle(charge, 200, began);
    return page(request, reply, { form, credits, result: data });
  });

  scope.get<{ Querystring: Record<string, unknown> }>(
    '/evidence',
    { preHandler: ctx.signedIn },
    async (request, reply) => {
      const { form, given, parsed } = read(request.query);
      if (!csrfValid(request, typeof request.query._csrf === 'string' ? request.query._csrf : undefined)) {
        return page(request, reply, {
          form,
          error:
            'This evidence link has expired (or came from another site): nothing was sent and no credit was taken. Look the flight up again and use its link.',
          status: 403,
        });
      }
      const errors = lookupErrors(form);
      if (Object.keys(errors).length > 0 || !parsed.ok) {
        return page(request, reply, {
          form,
          errors,
          error: 'Check the fields marked below. Nothing was sent and no credit was taken.',
          status: 400,
        });
      }
      if (deps.evidence.missing) return page(request, reply, { form, error: deps.evidence.missing, status: 503 });
      const admitted = await admit(
        request,
        reply,
        form,
        'GET /dashboard/evidence',
        new URLSearchParams(given).toString(),
      );
      if ('refused' in admitted) return admitted.refused;
      const { charge, credits } = admitted;
      const began = performance.now();
      const query: FlightQuery = { ...parsed.query, screenshot: false };
      let answer;
      try {
        answer = await deps.evidence.answer(deps.resolver, query, {
          signal: new AbortController().signal,
          requestId: request.id,
        });
      } catch (error) {
        request.log.error({ err: error }, 'dashboard evidence failed');
        answer = { kind: 'unavailable' as const, message: '' };
      }
      if (answer.kind !== 'document') {
        await settle(charge, answer.kind === 'not_found' ? 404 : 500, began);
        const error =
          answer.kind === 'not_found'
            ? `${answer.message}. The credit was taken, as for a lookup.`
            : `The evidence PDF failed on our side (request ${request.id}); try again.`;
        return page(request, reply, { form, credits, error, status: answer.kind === 'not_found' ? 404 : 500 });
      }
      await settle(charge, 200, began);
      const { document } = answer;
      return sendPdf(reply, document.pdf, document.filename);
    },
  );
}
