// The lookup page: a form onto the same resolver as GET /api/v1/flights/status, metered the same
// way: one credit and its usage row (caller: the signed-in user) taken together before the resolve,
// the row settled with the outcome. The query is checked first, so a mistake costs nothing.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { principalFor, type AccountView } from '../accounts/index.js';
import type { Principal } from '../auth/index.js';
import { parseFlightQuery, type FlightStatusData } from '../flights/index.js';
import type { DashboardDeps, PageContext } from './context.js';
import { formOf } from './forms.js';
import { lookupPage, type LookupForm } from './lookup-page.js';
import { csrfToken } from './session.js';
import type { SignedInUser } from '../users/index.js';

const REFUSED: Record<string, string> = {
  exhausted: 'The allowance of this window is used up and overage is off: nothing was looked up and no credit was taken.',
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
    o: { form?: LookupForm; error?: string; result?: FlightStatusData; status?: number; credits?: { name: string; remaining: number | null } } = {},
  ) => {
    let credits = o.credits;
    if (!credits) {
      const account = await describe(request);
      credits = { name: account.name, remaining: account.credits ? account.credits.remaining : null };
    }
    const body = lookupPage({ csrf: csrfToken(request, reply), form: o.form ?? {}, remaining: credits.remaining, error: o.error, result: o.result });
    return ctx.render(request, reply, 'Look up a flight', body, { section: 'lookup', accountName: credits.name, status: o.status });
  };

  scope.get('/lookup', { preHandler: ctx.signedIn }, (request, reply) => page(request, reply));

  scope.post('/lookup', { preHandler: ctx.signedIn }, async (request, reply) => {
    const raw = formOf(request);
    const form: LookupForm = { flightNumber: raw.flightNumber ?? '', flightDate: raw.flightDate ?? '', origin: raw.origin ?? '', destination: raw.destination ?? '' };
    const given = Object.fromEntries(Object.entries(form).filter(([, v]) => v!.trim() !== ''));
    const parsed = parseFlightQuery({ ...given, screenshot: '1' });
    if (!parsed.ok) return page(request, reply, { form, error: `${parsed.message}. Nothing was sent and no credit was taken.`, status: 400 });

    const account = await describe(request);
    const query = new URLSearchParams(given).toString();
    const admission = await deps.gate.admitPrincipal(actingAs(request.user!, account), { at: deps.clock.now(), endpoint: 'POST /dashboard/lookup', query });
    if (admission.kind === 'unauthenticated') throw new Error('a signed-in user was refused as unauthenticated');
    // The admission says how many credits are left, the one just taken included.
    const credits = { name: account.name, remaining: account.unlimited ? null : admission.position.remaining };
    if (admission.kind !== 'admitted') {
      deps.refusals.noteRefused(admission, deps.clock.now());
      const reason = admission.kind === 'exhausted' ? 'exhausted' : admission.reason;
      return page(request, reply, { form, credits, error: REFUSED[reason] ?? 'This lookup was refused.', status: admission.kind === 'exhausted' ? 429 : 403 });
    }
    const charge = admission.charge!;
    const began = performance.now();
    let data: FlightStatusData;
    try {
      const answer = await deps.resolver.resolve(parsed.query, { signal: new AbortController().signal, requestId: request.id });
      if ('unavailable' in answer) throw new Error(answer.unavailable);
      data = 'json' in answer ? (JSON.parse(answer.json) as FlightStatusData) : answer;
    } catch (error) {
      request.log.error({ err: error }, 'dashboard lookup failed');
      await deps.metering.settleUsage({ usageId: charge.usageId, status: 500, durationMs: performance.now() - began });
      return page(request, reply, { form, credits, error: `The lookup failed on our side (request ${request.id}); try again.`, status: 500 });
    }
    await deps.metering.settleUsage({ usageId: charge.usageId, status: 200, durationMs: performance.now() - began });
    return page(request, reply, { form, credits, result: data });
  });
}
