// An invoice as a standalone HTML page and, in `invoiceContent`, the words and figures that both the
// page and the PDF (render-pdf.ts) show, so the two can never disagree. The page is plain semantic
// HTML with no styles and no scripts: the service's CSP (`default-src 'self'`) forbids inline ones,
// and a receipt someone saves or prints must stand on its own. Every value goes through the
// dashboard's escaping `html` template; dates are UTC days; amounts are the exact decimal strings.
import { html } from '../dashboard/html.js';
import type { InvoiceKind, InvoiceState, InvoiceView } from './invoice.js';

export interface InvoiceFact {
  label: string;
  value: string;
}

export interface InvoiceContentLine {
  description: string;
  plan: string;
  /** With thousands separators: "10,000,000". */
  quantity: string;
  unitPrice: string;
  amount: string;
}

/** What a reader sees on an invoice, formatted once for every rendering. */
export interface InvoiceContent {
  seller: string;
  /** "Invoice FS-000042", or "Draft invoice" before it has a number. */
  heading: string;
  /** Large status text ("PAID", "VOID", …); null while an invoice is simply open. */
  stamp: string | null;
  facts: InvoiceFact[];
  currency: string;
  lines: InvoiceContentLine[];
  total: string;
  footer: string;
}

const STATE_LABEL: Record<InvoiceState, string> = {
  draft: 'Draft',
  open: 'Open (awaiting payment)',
  paid: 'Paid',
  uncollectible: 'Uncollectible',
  void: 'Void',
};

const KIND_LABEL: Record<InvoiceKind, string> = {
  overage: 'Overage, billed in arrears',
  fee: 'Plan fee, billed in advance',
};

export function invoiceContent(invoice: InvoiceView, seller: { name: string }): InvoiceContent {
  const currency = invoice.currency;
  const issued = invoice.finalizedAt === null ? 'Not issued (draft)' : utcDay(invoice.finalizedAt);
  const facts: InvoiceFact[] = [
    { label: 'Status', value: STATE_LABEL[invoice.state] ?? String(invoice.state) },
    { label: 'Billed to', value: invoice.accountName },
    { label: 'Account', value: invoice.accountSlug },
    { label: 'Period (UTC)', value: periodText(invoice.periodStart, invoice.periodEnd) },
    { label: 'Issue date', value: issued },
  ];
  if (invoice.paidAt !== null) facts.push({ label: 'Paid on', value: utcDay(invoice.paidAt) });
  facts.push({ label: 'Type', value: KIND_LABEL[invoice.kind] ?? String(invoice.kind) });
  facts.push({ label: 'Currency', value: currency });
  return {
    seller: seller.name,
    heading: invoice.number === null ? 'Draft invoice' : `Invoice ${invoice.number}`,
    stamp: invoice.state === 'open' ? null : invoice.state.toUpperCase(),
    facts,
    currency,
    lines: invoice.lines.map((line) => ({
      description: line.description,
      plan: line.planId,
      quantity: groupThousands(line.quantity),
      unitPrice: line.unitPrice,
      amount: line.amount,
    })),
    total: invoice.total,
    footer: `Amounts in ${currency}. Overage is billed in arrears per calendar month (UTC); the plan fee per 30-day window in advance.`,
  };
}

export function invoiceHtml(invoice: InvoiceView, seller: { name: string }): string {
  const c = invoiceContent(invoice, seller);
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${c.heading} · ${invoice.accountName} · ${c.seller}</title>
</head>
<body>
<header><p>${c.seller}</p></header>
<main>
<h1>${c.heading}</h1>
${c.stamp === null ? '' : html`<p><strong>${c.stamp}</strong></p>`}
<dl>
${c.facts.map((f) => html`<dt>${f.label}</dt><dd>${f.value}</dd>\n`)}</dl>
<table>
<caption>Invoice lines (amounts in ${c.currency})</caption>
<thead>
<tr><th scope="col">Description</th><th scope="col">Plan</th><th scope="col">Quantity</th><th scope="col">Unit price (${c.currency})</th><th scope="col">Amount (${c.currency})</th></tr>
</thead>
<tbody>
${c.lines.map(
  (l) => html`<tr><th scope="row">${l.description}</th><td>${l.plan}</td><td>${l.quantity}</td><td>${l.unitPrice}</td><td>${l.amount}</td></tr>\n`,
)}</tbody>
<tfoot>
<tr><th scope="row" colspan="4">Total (${c.currency})</th><td>${c.total}</td></tr>
</tfoot>
</table>
</main>
<footer><p>${c.footer}</p></footer>
</body>
</html>
`.text;
}

/** "2026-10-01T00:00:00.000Z" → "2026-10-01"; text that is not a date is shown as it is. */
export function utcDay(iso: string): string {
  const at = Date.parse(iso);
  return Number.isNaN(at) ? iso : new Date(at).toISOString().slice(0, 10);
}

/** The end is exclusive, so a reader is shown the last day inside the period: "2026-10-01 to 2026-10-31". */
function periodText(start: string, end: string): string {
  const startAt = Date.parse(start);
  const endAt = Date.parse(end);
  const last = Number.isNaN(endAt) || endAt <= startAt ? utcDay(end) : utcDay(new Date(endAt - 1).toISOString());
  return `${utcDay(start)} to ${last}`;
}

/** 10000000 → "10,000,000", the same everywhere (no locale data involved). */
export function groupThousands(n: number): string {
  if (!Number.isFinite(n) || Math.abs(n) >= 1e21) return String(n);
  const [whole, fraction] = String(Math.abs(n)).split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${n < 0 ? '-' : ''}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}
