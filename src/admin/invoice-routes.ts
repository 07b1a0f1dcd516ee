// Invoices in the operator API (docs/billing.md): list and inspect any account's, mark one paid,
// void or uncollectible, and run the invoicing of a month again (idempotent).
import { Type } from 'typebox';
import {
  creditNotePdf,
  CreditNoteParams,
  CreditNoteSchema,
  invoicePdf,
  InvoiceParams,
  InvoiceSchema,
  parseMonth,
  type BillingService,
} from '../billing/index.js';
import type { Clock } from '../clock.js';
import { ApiError } from '../http/errors.js';
import { Envelope, errors, PdfBody } from '../http/schemas.js';
import { envelope, sendPdf, unwrap } from '../http/results.js';
import type { HttpServer } from '../http/server.js';
import type { AccountsService } from '../accounts/index.js';
import { adminScope, common } from './routes.js';

const State = Type.Union([
  Type.Literal('draft'),
  Type.Literal('open'),
  Type.Literal('paid'),
  Type.Literal('uncollectible'),
  Type.Literal('void'),
]);
const Month = Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: 'A calendar month, YYYY-MM (UTC)' });

const ListQuery = Type.Object(
  {
    account: Type.Optional(Type.String({ maxLength: 100, description: 'Account id (acct_…) or slug' })),
    state: Type.Optional(State),
    kind: Type.Optional(Type.Union([Type.Literal('overage'), Type.Literal('fee'), Type.Literal('upgrade')])),
    month: Type.Optional(
      Type.String({ ...Month, description: 'Invoices whose period starts in this month (YYYY-MM)' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
    before: Type.Optional(Type.String({ maxLength: 100, description: 'An invoice id: the page after it' })),
  },
  { additionalProperties: false },
);

/** The optional body of a change: nothing, or `{"reason": "…"}` (1–300 characters). */
function reasonOf(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  const fields = typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : null;
  const reason = (body as { reason?: unknown }).reason;
  if (
    fields === null ||
    fields.some((f) => f !== 'reason') ||
    (reason !== undefined && (typeof reason !== 'string' || reason.trim() === '' || reason.length > 300))
  ) {
    throw new ApiError('invalid_request', 'body must be empty or {"reason": "…"} with a reason of 1 to 300 characters');
  }
  return reason as string | undefined;
}
const Run = Type.Object({ month: Month }, { additionalProperties: false });
const Event = Type.Object({
  at: Type.String(),
  subject: Type.String(),
  from: Type.Union([Type.String(), Type.Null()]),
  to: Type.String(),
  reason: Type.String(),
});
const InvoiceDetail = Type.Object({ invoice: InvoiceSchema, history: Type.Array(Event) });
const AccountParams = Type.Object({ account: Type.String({ maxLength: 100 }) });
const CreditBody = Type.Object(
  {
    reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why, as printed on the credit note' }),
    amount: Type.Optional(
      Type.String({
        maxLength: 20,
        description: 'The net to credit, a decimal in the invoice\'s currency ("12.50"); absent: all that is left',
      }),
    ),
  },
  { additionalProperties: false },
);

export function invoiceAdminRoutes(
  app: HttpServer,
  deps: { adminToken: string; billing: BillingService; accounts: AccountsService; clock: Clock },
): void {
  const { billing, accounts, clock } = deps;
  const accountId = async (idOrSlug: string): Promise<string> => {
    const account = await accounts.find(idOrSlug);
    if (!account)
      throw new ApiError('not_found', `No account with id or slug ${JSON.stringify(idOrSlug.slice(0, 60))}`);
    return account.id;
  };
  const detail = async (id: string) => ({
    invoice: unwrap(await billing.invoice(id)),
    history: await billing.history(id),
  });

  adminScope(app, deps.adminToken, (admin) => {
    admin.get(
      '/api/admin/v1/invoices',
      {
        schema: {
          ...common,
          querystring: ListQuery,
          response: {
            200: Envelope(Type.Object({ invoices: Type.Array(InvoiceSchema) }), 'Invoices, newest first'),
            ...errors(400, 401, 404),
          },
        },
      },
      async (request) => {
        const q = request.query;
        const list = await billing.list({
          accountId: q.account === undefined ? undefined : await accountId(q.account),
          state: q.state,
          kind: q.kind,
          period: q.month === undefined ? undefined : parseMonth(q.month)!,
          limit: q.limit ?? 100,
          before: q.before,
        });
        return envelope({ invoices: unwrap(list) });
      },
    );
    admin.get(
      '/api/admin/v1/invoices/:id',
      {
        schema: {
          ...common,
          params: InvoiceParams,
          response: {
            200: Envelope(InvoiceDetail, 'The invoice and every change it went through'),
            ...errors(401, 404),
          },
        },
      },
      async (request) => envelope(await detail(request.params.id)),
    );
    admin.get(
      '/api/admin/v1/invoices/:id/pdf',
      {
        schema: {
          ...common,
          description: 'Any invoice as its customer downloads it (drafts too, marked as such).',
          params: InvoiceParams,
          response: { 200: PdfBody('The invoice as a PDF'), ...errors(401, 404) },
        },
      },
      async (request, reply) => {
        const invoice = unwrap(await billing.invoice(request.params.id));
        return sendPdf(reply, await invoicePdf(invoice), `${invoice.number ?? invoice.id}.pdf`, 'attachment');
      },
    );
    for (const [action, apply] of [
      ['pay', (id: string, reason?: string) => billing.markPaid(id, reason)],
      ['void', (id: string, reason?: string) => billing.close(id, 'void', reason)],
      ['uncollectible', (id: string, reason?: string) => billing.close(id, 'uncollectible', reason)],
    ] as const) {
      admin.post(
        `/api/admin/v1/invoices/:id/${action}`,
        {
          schema: {
            ...common,
            description: 'The body is optional: `{"reason": "…"}` is recorded with the change.',
            params: InvoiceParams,
            response: { 200: Envelope(InvoiceDetail, 'The invoice after the change'), ...errors(400, 401, 404, 409) },
          },
        },
        async (request) => {
          unwrap(await apply(request.params.id, reasonOf(request.body)));
          return envelope(await detail(request.params.id));
        },
      );
    }
    admin.post(
      '/api/admin/v1/invoices/:id/credit-notes',
      {
        schema: {
          ...common,
          summary: 'Issue a credit note on an invoice',
          description:
            'A refund or a correction: an issued invoice is never edited. An open invoice is credited in full and becomes void (issue a correct one); a paid one in full or by `amount`, the net to credit ("12.50"), with the tax at the invoice\'s rate. The money itself is refunded through the payment provider or by transfer.',
          params: InvoiceParams,
          body: CreditBody,
          response: { 201: Envelope(CreditNoteSchema, 'The credit note'), ...errors(400, 401, 404, 409) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(envelope(unwrap(await billing.credit(request.params.id, request.body)))),
    );
    admin.get(
      '/api/admin/v1/credit-notes/:id',
      {
        schema: {
          ...common,
          summary: 'One credit note',
          params: CreditNoteParams,
          response: { 200: Envelope(CreditNoteSchema, 'The credit note'), ...errors(401, 404) },
        },
      },
      async (request) => envelope(unwrap(await billing.creditNote(request.params.id))),
    );
    admin.get(
      '/api/admin/v1/credit-notes/:id/pdf',
      {
        schema: {
          ...common,
          summary: 'One credit note as a PDF',
          params: CreditNoteParams,
          response: { 200: PdfBody('The credit note as a PDF'), ...errors(401, 404) },
        },
      },
      async (request, reply) => {
        const note = unwrap(await billing.creditNote(request.params.id));
        return sendPdf(
          reply,
          await creditNotePdf(note, unwrap(await billing.invoice(note.invoiceId))),
          `${note.number}.pdf`,
          'attachment',
        );
      },
    );
    admin.post(
      '/api/admin/v1/invoicing/runs',
      {
        schema: {
          ...common,
          body: Run,
          response: {
            200: Envelope(
              Type.Object({
                month: Type.String(),
                created: Type.Integer({
                  description: 'Invoices written by this run (0 when an earlier run wrote them)',
                }),
                opened: Type.Integer(),
              }),
              'The month is invoiced',
            ),
            ...errors(400, 401),
          },
        },
      },
      async (request) => envelope(unwrap(await billing.rerunMonth(parseMonth(request.body.month)!, clock.now()))),
    );
    admin.get(
      '/api/admin/v1/accounts/:account/billing',
      {
        schema: {
          ...common,
          params: AccountParams,
          response: {
            200: Envelope(
              Type.Object({
                status: Type.Union([
                  Type.Literal('none'),
                  Type.Literal('active'),
                  Type.Literal('canceled'),
                  Type.Literal('past_due'),
                ]),
                history: Type.Array(Event),
              }),
              "The account's subscription state and its changes",
            ),
            ...errors(401, 404),
          },
        },
      },
      async (request) => {
        const account = await accounts.find(request.params.account);
        if (!account)
          throw new ApiError(
            'not_found',
            `No account with id or slug ${JSON.stringify(request.params.account.slice(0, 60))}`,
          );
        return envelope({ status: account.billing_status, history: await billing.accountHistory(account.id) });
      },
    );
  });
}
