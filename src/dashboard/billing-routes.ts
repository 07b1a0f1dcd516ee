// The billing pages: thin doors onto BillingService and PlansService, always with the signed-in
// user's account, mirroring GET /api/v1/invoices: newest first, drafts hidden, another account's
// invoice 404. Nothing here looks at the subscription's state: a past-due account must be able to
// sign in and see what it owes.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invoicePdf } from '../billing/index.js';
import type { DashboardDeps, PageContext } from './context.js';
import type { PlanSummary } from '../accounts/index.js';
import { billingPage, invoicePage } from './billing-page.js';

/** Invoices per page, as the API's default `limit`: two years of monthly overage. */
const PAGE = 24;

export function billingPages(scope: FastifyInstance, deps: DashboardDeps, ctx: PageContext): void {
  const { billing, plans } = deps;
  const guarded = { preHandler: ctx.signedIn };
  const seller = { name: deps.sellerName };
  const planOf = async (id: string | null | undefined): Promise<PlanSummary | null> => (id ? ((await plans.summary(id)) ?? null) : null);
  const invoiceOf = async (request: FastifyRequest<{ Params: { id: string } }>) => billing.invoice(request.params.id, request.user!.accountId);

  scope.get<{ Querystring: { before?: unknown } }>('/billing', guarded, async (request, reply) => {
    const account = await ctx.account(request);
    const asked = request.query.before;
    const before = typeof asked === 'string' && asked !== '' ? asked : undefined;
    // One more than a page, to know whether an older page exists.
    const [plan, pending, listed] = await Promise.all([
      planOf(account.subscription.planId),
      planOf(account.subscription.pendingPlan?.planId),
      billing.list({ accountId: account.id, customer: true, limit: PAGE + 1, before }),
    ]);
    const invoices = listed.kind === 'ok' ? listed.value.slice(0, PAGE) : [];
    const older = listed.kind === 'ok' && listed.value.length > PAGE ? invoices[invoices.length - 1]!.id : null;
    const error = listed.kind === 'ok' ? undefined : 'That page of invoices does not exist. The newest are a click away: “Newest” below.';
    const body = billingPage({ account, plan, pending, invoices, older, paged: before !== undefined, error });
    return ctx.render(request, reply, 'Billing', body, { section: 'billing', accountName: account.name, status: error ? 400 : 200 });
  });

  scope.get<{ Params: { id: string } }>('/billing/invoices/:id', guarded, async (request, reply) => {
    const found = await invoiceOf(request);
    if (found.kind !== 'ok') return reply.callNotFound();
    const account = await ctx.account(request);
    const title = found.value.number ? `Invoice ${found.value.number}` : 'Invoice';
    return ctx.render(request, reply, title, invoicePage({ account, invoice: found.value, sellerName: seller.name }), { section: 'billing', accountName: account.name });
  });

  scope.get<{ Params: { id: string } }>('/billing/invoices/:id/pdf', guarded, async (request, reply) => {
    const found = await invoiceOf(request);
    if (found.kind !== 'ok') return reply.callNotFound();
    const invoice = found.value;
    const pdf = await invoicePdf(invoice, seller);
    return reply.type('application/pdf').header('content-disposition', `inline; filename="${invoice.number ?? invoice.id}.pdf"`).send(pdf);
  });
}
