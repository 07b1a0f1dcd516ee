// The customer's invoices (docs/billing.md): GET /api/v1/invoices and /api/v1/invoices/{id}, each
// also as an HTML page and a PDF. Free (no credit taken) and open to a past-due account: it must be
// able to see what it owes.
import { Type } from 'typebox';
import { KEY_SECURITY } from '../http/openapi.js';
import { Envelope, errors, PdfBody } from '../http/schemas.js';
import { envelope, sendPdf, unwrap } from '../http/results.js';
import type { HttpServer } from '../http/server.js';
import type { BillingService } from './service.js';
import { INVOICE_CSP, invoiceHtml } from './render-html.js';
import { creditNotePdf, invoicePdf } from './render-pdf.js';
import { CreditNoteParams, InvoiceListQuery, InvoiceParams, InvoiceSchema } from './schema.js';

const common = { tags: ['billing'], security: KEY_SECURITY };

export function invoiceRoutes(app: HttpServer, deps: { billing: BillingService }): void {
  const { billing } = deps;
  const one = async (accountId: string, id: string) => unwrap(await billing.invoice(id, accountId));

  app.get(
    '/api/v1/invoices',
    {
      config: { access: 'billing' },
      schema: {
        ...common,
        summary: "List the account's invoices",
        description: 'Newest first; free. A past-due account can read its invoices.',
        querystring: InvoiceListQuery,
        response: {
          200: Envelope(
            Type.Object({ invoices: Type.Array(InvoiceSchema) }, { additionalProperties: false }),
            'The invoices',
          ),
          ...errors(400, 401, 403),
        },
      },
    },
    async (request) => {
      const { limit = 24, before } = request.query;
      return envelope({
        invoices: unwrap(
          await billing.list({ accountId: request.principal!.account.id, customer: true, limit, before }),
        ),
      });
    },
  );
  app.get(
    '/api/v1/invoices/:id',
    {
      config: { access: 'billing' },
      schema: {
        ...common,
        summary: 'One invoice',
        params: InvoiceParams,
        response: { 200: Envelope(InvoiceSchema, 'The invoice'), ...errors(401, 403, 404) },
      },
    },
    async (request) => envelope(await one(request.principal!.account.id, request.params.id)),
  );
  app.get(
    '/api/v1/invoices/:id/pdf',
    {
      config: { access: 'billing' },
      schema: {
        ...common,
        summary: 'One invoice as a PDF',
        params: InvoiceParams,
        response: { 200: PdfBody('The invoice as a PDF'), ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const invoice = await one(request.principal!.account.id, request.params.id);
      return sendPdf(reply, await invoicePdf(invoice), `${invoice.number ?? invoice.id}.pdf`);
    },
  );
  app.get(
    '/api/v1/credit-notes/:id/pdf',
    {
      config: { access: 'billing' },
      schema: {
        ...common,
        summary: 'One credit note as a PDF',
        description: 'Credit notes are listed on the invoice they credit (its `creditNotes`).',
        params: CreditNoteParams,
        response: { 200: PdfBody('The credit note as a PDF'), ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const accountId = request.principal!.account.id;
      const note = unwrap(await billing.creditNote(request.params.id, accountId));
      return sendPdf(reply, await creditNotePdf(note, await one(accountId, note.invoiceId)), `${note.number}.pdf`);
    },
  );
  app.get(
    '/api/v1/invoices/:id/html',
    {
      config: { access: 'billing' },
      schema: {
        ...common,
        summary: 'One invoice as an HTML page',
        params: InvoiceParams,
        response: {
          200: {
            description: 'The invoice as a printable page',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
          ...errors(401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const invoice = await one(request.principal!.account.id, request.params.id);
      return reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', INVOICE_CSP)
        .send(invoiceHtml(invoice));
    },
  );
}
