// The billing pages: thin doors onto BillingService and PlansService, always with the signed-in
// user's account, mirroring GET /api/v1/invoices: newest first, drafts hidden, another account's
// invoice 404. Nothing here looks at the subscription's state: a past-due account must be able to
// sign in and see what it owes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formOf } from './forms.js';
import { html, type Html } from '../html.js';
import { csrfInput, notice } from './layout.js';
import { csrfToken } from './session.js';
import { sendPdf } from '../http/results.js';
import { creditNotePdf, invoicePdf } from '../billing/index.js';
import type { DashboardDeps, PageContext } from './context.js';
import type { PlanSummary } from '../accounts/index.js';
import { billingPage, invoicePage } from './billing-page.js';
import { DETAIL_FIELDS, detailErrors, detailValues, type DetailField, type DetailsForm } from './billing-details.js';

/** Invoices per page, as the API's default `limit`: two years of monthly overage. */
const PAGE = 24;

export function billingPages(scope: FastifyInstance, deps: DashboardDeps, ctx: PageContext): void {
  const { billing, plans } = deps;
  const guarded = { preHandler: ctx.signedIn };
  const planOf = async (id: string | null | undefined): Promise<PlanSummary | null> =>
    id ? ((await plans.summary(id)) ?? null) : null;
  const invoiceOf = async (request: FastifyRequest<{ Params: { id: string } }>) =>
    billing.invoice(request.params.id, request.user!.accountId);

  /** The plans this account may switch to: offered by the operator, in its plan's currency. */
  const offered = async (currency: string | null): Promise<PlanSummary[]> => {
    const all = currency ? await plans.selfService(currency) : (await plans.list()).filter((p) => p.selfService);
    return all.map(({ createdAt: _c, updatedAt: _u, selfService: _s, ...summary }) => summary);
  };

  // An upgrade starts at once and is invoiced, prorated from the quote the form showed (quotedAt, when
  // recent); any other choice waits for the next window (billing's changePlan decides).
  scope.post('/billing/plan', guarded, async (request, reply) => {
    const form = formOf(request);
    const planId = String(form.planId ?? '');
    const quoted = String(form.quotedAt ?? '');
    const quotedAt = /^\d{1,15}$/.test(quoted) ? Number(quoted) : undefined;
    const account = await ctx.account(request);
    const current = await planOf(account.subscription.planId);
    const choice = (await offered(current?.currency ?? null)).find((p) => p.id === planId);
    const changed = choice
      ? await billing.changePlan(account.id, planId, { quotedAt })
      : { kind: 'invalid' as const, message: 'That plan is not offered here; choose one of the plans listed.' };
    if (changed.kind !== 'ok')
      return page(request, reply, { planError: changed.message, status: changed.kind === 'conflict' ? 409 : 400 });
    const { effective, invoiceId } = changed.value;
    if (effective !== 'upgrade') return reply.redirect('/dashboard/billing?plan=changed#plan', 303);
    return reply.redirect(`/dashboard/billing?plan=upgraded${invoiceId ? `&invoice=${invoiceId}` : ''}#plan`, 303);
  });

  for (const [action, cancel] of [
    ['cancel', true],
    ['resume', false],
  ] as const) {
    scope.post(`/billing/${action}`, guarded, async (request, reply) => {
      const account = await ctx.account(request);
      const changed =
        cancel || account.subscription.cancelAt !== null
          ? await deps.accounts.updateAccount(account.id, { cancelAtWindowEnd: cancel })
          : ({ kind: 'conflict', message: 'No cancellation is pending: there is nothing to withdraw.' } as const);
      if (changed.kind !== 'ok')
        return page(request, reply, { planError: changed.message, status: changed.kind === 'invalid' ? 400 : 409 });
      return reply.redirect(`/dashboard/billing?plan=${cancel ? 'canceling' : 'kept'}#cancel`, 303);
    });
  }

  scope.post('/billing/details', guarded, async (request, reply) => {
    const form = formOf(request);
    const account = await ctx.account(request);
    const values = Object.fromEntries(
      (Object.keys(DETAIL_FIELDS) as DetailField[]).map((k) => [k, String(form[k] ?? '').slice(0, 2000)]),
    ) as Record<DetailField, string>;
    const saved = await billing.billingEmail.save(account.id, values);
    if (saved.kind === 'throttled') {
      reply.header('retry-after', String(saved.retryAfterSeconds));
      return page(request, reply, { details: { values, errors: { email: saved.message } }, status: 429 });
    }
    if (saved.kind !== 'ok')
      return page(request, reply, { details: { values, errors: detailErrors(saved.message) }, status: 400 });
    return reply.redirect(
      `/dashboard/billing?details=${saved.value.linkSent ? 'confirm' : 'saved'}#billing-details`,
      303,
    );
  });

  // The billing email's confirmation link again (limited per account with the first one).
  scope.post('/billing/email/confirm', guarded, async (request, reply) => {
    const account = await ctx.account(request);
    const sent = await billing.billingEmail.resend(account.id);
    if (sent.kind === 'ok') return reply.redirect('/dashboard/billing?details=sent#billing-email-state', 303);
    if (sent.kind === 'throttled') reply.header('retry-after', String(sent.retryAfterSeconds));
    return page(request, reply, {
      emailError: sent.message,
      status: sent.kind === 'throttled' ? 429 : sent.kind === 'conflict' ? 409 : 400,
    });
  });

  const page = async (
    request: FastifyRequest<{ Querystring?: unknown }>,
    reply: FastifyReply,
    o: {
      before?: string;
      done?: Html;
      planError?: string;
      details?: DetailsForm;
      emailError?: string;
      status?: number;
    } = {},
  ) => {
    const account = await ctx.account(request);
    const buyer = await billing.buyer(account.id);
    const told = (request.query as { details?: unknown } | undefined)?.details;
    const details = o.details ?? {
      values: detailValues(buyer),
      errors: {},
      saved: told === 'saved' ? true : told === 'confirm' ? ('confirm' as const) : undefined,
    };
    const email = { address: buyer.email, confirmed: buyer.emailConfirmed, error: o.emailError, sent: told === 'sent' };
    const before = o.before;
    // One more than a page, to know whether an older page exists.
    const [plan, pending, listed] = await Promise.all([
      planOf(account.subscription.planId),
      planOf(account.subscription.pendingPlan?.planId),
      billing.list({ accountId: account.id, customer: true, limit: PAGE + 1, before }),
    ]);
    const invoices = listed.kind === 'ok' ? listed.value.slice(0, PAGE) : [];
    const older = listed.kind === 'ok' && listed.value.length > PAGE ? invoices[invoices.length - 1]!.id : null;
    const error =
      listed.kind === 'ok'
        ? undefined
        : 'That page of invoices does not exist. The newest are a click away: “Newest” below.';
    const choices = await offered(plan?.currency ?? null);
    const quotes = await billing.planChoices(
      account.id,
      choices.map((p) => p.id),
    );
    const body = billingPage({
      account,
      plan,
      pending,
      invoices,
      older,
      paged: before !== undefined,
      error,
      offered: choices,
      quotes,
      csrf: csrfToken(request, reply),
      done: o.done,
      planError: o.planError,
      details,
      email,
      mailOn: deps.mail.enabled,
    });
    return ctx.render(request, reply, 'Billing', body, {
      section: 'billing',
      accountName: account.name,
      status: o.status ?? (error ? 400 : 200),
    });
  };

  // The link mailed to a billing email: it shows which account's mail would go there and asks; the
  // confirmation is the form (a link scanner that follows the link confirms nothing). No sign-in:
  // the person at the billing address may have none.
  const deadLink = html`<div class="narrow"><h1>This link does not work</h1><p>It was used already, is more than a week old, or the account's billing email has changed since. An owner of the account can send a new one from the Billing page.</p></div>`;
  const confirmPage = async (
    request: FastifyRequest<{ Params: { token: string } }>,
    reply: FastifyReply,
    confirmed: { accountId: string; email: string } | null,
    done: boolean,
  ) => {
    if (!confirmed) return ctx.render(request, reply, 'Confirm the billing email', deadLink, { status: 404 });
    const described = await deps.accounts.describe(confirmed.accountId);
    const name = described.kind === 'ok' ? described.value.name : 'this account';
    const body = done
      ? html`<div class="narrow"><h1>Billing email confirmed</h1><p>Invoices, receipts and payment mails of the account “${name}” now go to ${confirmed.email}.</p></div>`
      : html`<div class="narrow"><h1>Confirm the billing email</h1>
          <p>Invoices, receipts and payment mails of the account “${name}” on Flight Status would go to ${confirmed.email}.</p>
          <form method="post" action="/dashboard/confirm-billing-email/${request.params.token}">${csrfInput(csrfToken(request, reply))}<button type="submit">Confirm ${confirmed.email}</button></form>
          <p class="hint">If you did not expect this, close this page: nothing is sent to this address unless you confirm.</p></div>`;
    return ctx.render(request, reply, done ? 'Billing email confirmed' : 'Confirm the billing email', body);
  };
  scope.get<{ Params: { token: string } }>('/confirm-billing-email/:token', async (request, reply) =>
    confirmPage(request, reply, await billing.billingEmail.open(request.params.token), false),
  );
  scope.post<{ Params: { token: string } }>('/confirm-billing-email/:token', async (request, reply) =>
    confirmPage(request, reply, await billing.billingEmail.confirm(request.params.token), true),
  );

  scope.get<{ Querystring: { before?: unknown; plan?: unknown; details?: unknown; invoice?: unknown } }>(
    '/billing',
    guarded,
    async (request, reply) => {
      const asked = request.query.before;
      const before = typeof asked === 'string' && asked !== '' ? asked : undefined;
      const account = await ctx.account(request);
      const pendingPlan = account.subscription.pendingPlan;
      const told: Record<string, () => Promise<string | Html>> = {
        upgraded: async () => {
          const name = (await planOf(account.subscription.planId))?.name ?? 'the new plan';
          const asked = request.query.invoice;
          const found = typeof asked === 'string' ? await billing.invoice(asked, account.id) : undefined;
          const invoice = found?.kind === 'ok' ? found.value : undefined;
          return html`Upgraded: your plan is ${name} from now on, with its allowance for this window.${
            invoice
              ? html` The prorated difference, ${invoice.total} ${invoice.currency}, is on invoice <a href="/dashboard/billing/invoices/${invoice.id}">${invoice.number ?? invoice.id}</a>.`
              : ''
          }`;
        },
        canceling: async () => 'Cancellation noted: the subscription ends with this window.',
        kept: async () => 'Your subscription goes on: the cancellation is withdrawn.',
        changed: async () =>
          pendingPlan
            ? `Plan changed: the new plan starts on ${pendingPlan.from.slice(0, 10)}, with the next 30-day window.`
            : `Your plan is ${(await planOf(account.subscription.planId))?.name ?? 'as shown below'}; no change is pending.`,
      };
      const which = request.query.plan;
      const said = typeof which === 'string' && Object.hasOwn(told, which) ? told[which] : undefined;
      const done = said ? notice('ok', await said()) : undefined;
      return page(request, reply, { before, done });
    },
  );

  scope.get<{ Params: { id: string } }>('/billing/invoices/:id', guarded, async (request, reply) => {
    const found = await invoiceOf(request);
    if (found.kind !== 'ok') return reply.callNotFound();
    const account = await ctx.account(request);
    const title = found.value.number ? `Invoice ${found.value.number}` : 'Invoice';
    return ctx.render(request, reply, title, invoicePage({ account, invoice: found.value }), {
      section: 'billing',
      accountName: account.name,
    });
  });

  scope.get<{ Params: { id: string } }>('/billing/credit-notes/:id/pdf', guarded, async (request, reply) => {
    const accountId = request.user!.accountId;
    const note = await billing.creditNote(request.params.id, accountId);
    const invoice = note.kind === 'ok' ? await billing.invoice(note.value.invoiceId, accountId) : note;
    if (note.kind !== 'ok' || invoice.kind !== 'ok') return reply.callNotFound();
    return sendPdf(reply, await creditNotePdf(note.value, invoice.value), `${note.value.number}.pdf`);
  });

  scope.get<{ Params: { id: string } }>('/billing/invoices/:id/pdf', guarded, async (request, reply) => {
    const found = await invoiceOf(request);
    if (found.kind !== 'ok') return reply.callNotFound();
    const invoice = found.value;
    return sendPdf(reply, await invoicePdf(invoice), `${invoice.number ?? invoice.id}.pdf`);
  });
}
