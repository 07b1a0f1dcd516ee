// An invoice or credit note as a standalone HTML page and, in `invoiceContent` / `creditNoteContent`,
// the words and figures that the page, the dashboard and the PDF (render-pdf.ts) all show, so they
// can never disagree. The page is styled like the dashboard by one inline stylesheet that its CSP
// allows by hash (`INVOICE_CSP`), with no scripts: a document someone saves or prints must stand on
// its own. Every value goes through the dashboard's escaping `html` template. Dates are UTC days;
// a period is shown as its first and last day, both included, everywhere; amounts are exact decimals.
import { createHash } from 'node:crypto';
import { html, raw } from '../html.js';
import type { CreditNoteView } from './credit-notes.js';
import { formatAmount } from './money.js';
import type { InvoiceKind, InvoiceState, InvoiceView, PartyView } from './invoice.js';

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

/** What a reader sees on an invoice or credit note, formatted once for every rendering. */
export interface InvoiceContent {
  seller: string;
  /** "Invoice FS-000042", "Credit note CN-000003", or "Draft invoice". */
  heading: string;
  /** Large status text ("PAID", "VOID", …); null while an invoice is simply open. */
  stamp: string | null;
  /** The seller ("From") and the buyer ("Billed to"), one line per element. */
  parties: { title: string; lines: string[] }[];
  facts: InvoiceFact[];
  currency: string;
  lines: InvoiceContentLine[];
  /** Net, the tax per rate, the total. The last is the one to pay (or credited). */
  totals: InvoiceFact[];
  /** The tax treatment's legal wording, how to pay, credit notes. */
  notes: string[];
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
  upgrade: 'Upgrade, prorated, billed at once',
};

const FOOTER =
  'Periods are UTC days, first and last day included. Overage is billed in arrears per calendar month; the plan fee per 30-day window in advance.';

function partyLines(p: PartyView): string[] {
  return [
    p.name,
    ...p.address,
    ...(p.countryName ? [p.countryName] : []),
    ...(p.vatId ? [`VAT id ${p.vatId}`] : []),
    ...(p.email ? [p.email] : []),
  ].filter((l) => l !== '');
}

function totalsOf(
  x: { net: string; total: string; currency: string; taxLines: InvoiceView['taxLines'] },
  last: string,
): InvoiceFact[] {
  return [
    { label: `Net (${x.currency})`, value: x.net },
    ...x.taxLines.map((t) => ({
      label: `VAT ${t.ratePercent} %${t.country ? ` (${t.country})` : ''} on ${t.taxable}`,
      value: t.tax,
    })),
    { label: `${last} (${x.currency})`, value: x.total },
  ];
}

/**
 * An invoice's totals as its state has them: an open invoice's total is due, a paid one's paid; a
 * void or uncollectible invoice's total is only its total (nothing is due on it). Credit notes are
 * taken off, leaving what is due (docs/billing.md, "Rendering").
 */
function invoiceTotals(invoice: InvoiceView): InvoiceFact[] {
  const { state, currency, creditedMinor, totalMinor } = invoice;
  const settled = state === 'void' || state === 'uncollectible';
  const totals = totalsOf(
    invoice,
    state === 'paid' ? 'Total paid' : state === 'open' && creditedMinor === 0 ? 'Total due' : 'Total',
  );
  if (creditedMinor === 0 && !settled) return totals;
  const due = settled ? 0 : Math.max(0, totalMinor - creditedMinor);
  return [
    ...totals,
    ...(creditedMinor === 0
      ? []
      : [{ label: `Credited (${currency})`, value: `−${formatAmount(creditedMinor, currency)}` }]),
    ...(state === 'paid' ? [] : [{ label: `Amount due (${currency})`, value: formatAmount(due, currency) }]),
  ];
}

export function invoiceContent(invoice: InvoiceView): InvoiceContent {
  const currency = invoice.currency;
  const issued = invoice.finalizedAt === null ? 'Not issued (draft)' : utcDay(invoice.finalizedAt);
  const facts: InvoiceFact[] = [
    { label: 'Invoice number', value: invoice.number ?? 'none until issued' },
    { label: 'Issue date', value: issued },
    ...(invoice.dueDate === null ? [] : [{ label: 'Due date', value: invoice.dueDate }]),
    { label: 'Period (UTC)', value: `${invoice.periodFirstDay} to ${invoice.periodLastDay}` },
    { label: 'Status', value: STATE_LABEL[invoice.state] ?? String(invoice.state) },
    ...(invoice.paidAt === null ? [] : [{ label: 'Paid on', value: utcDay(invoice.paidAt) }]),
    { label: 'Account', value: invoice.accountSlug },
    { label: 'Type', value: KIND_LABEL[invoice.kind] ?? String(invoice.kind) },
  ];
  const notes = [
    ...(invoice.taxNote === null ? [] : [invoice.taxNote]),
    ...(invoice.paymentInstructions === null || invoice.state !== 'open' ? [] : [invoice.paymentInstructions]),
    ...invoice.creditNotes.map(
      (n) => `Credited by credit note ${n.number} of ${utcDay(n.issuedAt)}: ${n.total} ${currency}.`,
    ),
  ];
  return {
    seller: invoice.seller.name,
    heading: invoice.number === null ? 'Draft invoice' : `Invoice ${invoice.number}`,
    stamp: invoice.state === 'open' ? null : invoice.state.toUpperCase(),
    parties: [
      { title: 'From', lines: partyLines(invoice.seller) },
      { title: 'Billed to', lines: partyLines(invoice.buyer) },
    ],
    facts,
    currency,
    lines: invoice.lines.map((line) => ({
      description: line.description,
      plan: line.planId,
      quantity: groupThousands(line.quantity),
      unitPrice: line.unitPrice,
      amount: line.amount,
    })),
    totals: invoiceTotals(invoice),
    notes,
    footer: `Amounts in ${currency}. ${FOOTER}`,
  };
}

/** A credit note shows the parties and tax rate of the invoice it credits. */
export function creditNoteContent(note: CreditNoteView, invoice: InvoiceView): InvoiceContent {
  const rate = invoice.taxLines[0];
  return {
    seller: invoice.seller.name,
    heading: `Credit note ${note.number}`,
    stamp: null,
    parties: [
      { title: 'From', lines: partyLines(invoice.seller) },
      { title: 'Credited to', lines: partyLines(invoice.buyer) },
    ],
    facts: [
      { label: 'Credit note number', value: note.number },
      { label: 'Issue date', value: utcDay(note.issuedAt) },
      {
        label: 'Credits invoice',
        value: `${note.invoiceNumber} of ${invoice.finalizedAt === null ? 'no date' : utcDay(invoice.finalizedAt)}`,
      },
      { label: 'Period (UTC)', value: `${invoice.periodFirstDay} to ${invoice.periodLastDay}` },
      { label: 'Reason', value: note.reason },
      { label: 'Account', value: invoice.accountSlug },
    ],
    currency: note.currency,
    lines: [
      {
        description: `Credit on invoice ${note.invoiceNumber}: ${note.reason}`,
        plan: '',
        quantity: '1',
        unitPrice: note.net,
        amount: note.net,
      },
    ],
    totals: totalsOf(
      {
        net: note.net,
        total: note.total,
        currency: note.currency,
        taxLines: rate
          ? [{ ...rate, taxable: note.net, taxableMinor: note.netMinor, tax: note.tax, taxMinor: note.taxMinor }]
          : [],
      },
      'Total credited',
    ),
    notes: [
      ...(invoice.taxNote === null ? [] : [invoice.taxNote]),
      `This credit note reduces what invoice ${note.invoiceNumber} bills by ${note.total} ${note.currency}.`,
    ],
    footer: `Amounts in ${note.currency}. ${FOOTER}`,
  };
}

/** Styled like the dashboard (its colours and type), for screen and print. */
const STYLE = `
:root{--fg:#1b1f24;--muted:#4b5563;--line:#d0d7de;--panel:#f5f7fa;--ok:#146c2e;--bad:#b3261e}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:#fff}
.sheet{max-width:52rem;margin:2rem auto;padding:2rem;border:1px solid var(--line);border-radius:6px}
.seller{font-weight:700;font-size:1.1rem;margin:0}
h1{margin:.75rem 0 .25rem;font-size:1.6rem}
.stamp{display:inline-block;padding:.1rem .6rem;border:2px solid var(--bad);color:var(--bad);border-radius:4px;font-weight:700}
.stamp.paid{border-color:var(--ok);color:var(--ok)}
.parties{display:flex;flex-wrap:wrap;gap:2rem;margin:1.25rem 0}
.parties section{flex:1 1 14rem}
.parties h2{font-size:.85rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);margin:0 0 .25rem}
.parties p{margin:0}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:1rem 0}
dl.facts dt{font-weight:600}dl.facts dd{margin:0}
.scroll{overflow-x:auto}
.scroll:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
table{border-collapse:collapse;width:100%;margin:1rem 0}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
thead th{background:var(--panel)}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
tfoot th{font-weight:600;text-align:right}tfoot tr:last-child th,tfoot tr:last-child td{font-weight:700;border-bottom:2px solid var(--fg)}
.notes p{margin:.4rem 0}
footer{color:var(--muted);font-size:.85rem;margin-top:1.5rem}
@media print{.sheet{border:0;margin:0;padding:0}}
`.trim();

/** The page's CSP: nothing but its own stylesheet. */
export const INVOICE_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

export function invoiceHtml(invoice: InvoiceView): string {
  return documentHtml(invoiceContent(invoice), invoice.buyer.name);
}

function documentHtml(c: InvoiceContent, buyer: string): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${c.heading} · ${buyer} · ${c.seller}</title>
<style>${raw(STYLE)}</style>
</head>
<body>
<div class="sheet">
<header><p class="seller">${c.seller}</p></header>
<main>
<h1>${c.heading}</h1>
${c.stamp === null ? '' : html`<p><strong class="stamp${c.stamp === 'PAID' ? ' paid' : ''}">${c.stamp}</strong></p>`}
<div class="parties">
${c.parties.map((p) => html`<section><h2>${p.title}</h2>${p.lines.map((l) => html`<p>${l}</p>`)}</section>\n`)}</div>
<dl class="facts">
${c.facts.map((f) => html`<dt>${f.label}</dt><dd>${f.value}</dd>\n`)}</dl>
<div class="scroll" role="region" aria-label="Lines" tabindex="0">
<table>
<caption>Lines (amounts in ${c.currency})</caption>
<thead>
<tr><th scope="col">Description</th><th scope="col">Plan</th><th scope="col" class="n">Quantity</th><th scope="col" class="n">Unit price (${c.currency})</th><th scope="col" class="n">Amount (${c.currency})</th></tr>
</thead>
<tbody>
${c.lines.map(
  (l) =>
    html`<tr><th scope="row">${l.description}</th><td>${l.plan}</td><td class="n">${l.quantity}</td><td class="n">${l.unitPrice}</td><td class="n">${l.amount}</td></tr>\n`,
)}</tbody>
<tfoot>
${c.totals.map((t) => html`<tr><th scope="row" colspan="4">${t.label}</th><td class="n">${t.value}</td></tr>\n`)}</tfoot>
</table>
</div>
<div class="notes">${c.notes.map((n) => html`<p>${n}</p>`)}</div>
</main>
<footer><p>${c.footer}</p></footer>
</div>
</body>
</html>
`.text;
}

/** "2026-10-01T00:00:00.000Z" → "2026-10-01"; text that is not a date is shown as it is. */
export function utcDay(iso: string): string {
  const at = Date.parse(iso);
  return Number.isNaN(at) ? iso : new Date(at).toISOString().slice(0, 10);
}

/** 10000000 → "10,000,000", the same everywhere (no locale data involved). */
export function groupThousands(n: number): string {
  if (!Number.isFinite(n) || Math.abs(n) >= 1e21) return String(n);
  const [whole, fraction] = String(Math.abs(n)).split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${n < 0 ? '-' : ''}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}
