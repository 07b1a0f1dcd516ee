// Billing: the account's plan (billing-plan.ts), its invoices newest first with an "Older" link, and
// one invoice's page with its lines and a link to its PDF. The invoice page shows the same words and
// figures as the PDF (invoiceContent), so they agree.
import type { AccountView, PlanSummary } from '../accounts/index.js';
import type { InvoiceState, InvoiceView, PlanChoice } from '../billing/index.js';
import { invoiceContent, utcDay } from '../billing/index.js';
import { html, type Html } from '../html.js';
import { notice, timeTag } from './layout.js';
import { billingDetails, type DetailsForm, type EmailState } from './billing-details.js';
import { cancellation, pendingChange, planChoices, planFacts } from './billing-plan.js';

const STATE_BADGE: Record<InvoiceState, Html> = {
  draft: html`<span class="badge">draft</span>`,
  open: html`<span class="badge warn">open</span>`,
  paid: html`<span class="badge ok">paid</span>`,
  uncollectible: html`<span class="badge bad">uncollectible</span>`,
  void: html`<span class="badge">void</span>`,
};

const KIND_LABEL: Record<InvoiceView['kind'], string> = { overage: 'Overage', fee: 'Plan fee', upgrade: 'Upgrade' };

/**
 * What a past-due account must be told wherever it looks: its API requests are refused (402) until
 * the open invoice is paid. `link`: to the billing page (from other pages).
 */
export function pastDueBanner(link: boolean): Html {
  return notice(
    'bad',
    html`<strong>Payment overdue.</strong> This account’s subscription is past due: API requests answer <code>402 Payment Required</code> until the open invoice is paid.${
      link ? html` <a href="/dashboard/billing">See your invoices</a>.` : ''
    }`,
  );
}

/** The banner a subscription's state calls for on every page that shows it (none while active). */
export function statusBanner(account: AccountView, link: boolean): Html | '' {
  if (account.unlimited) return '';
  if (account.subscription.status === 'past_due') return pastDueBanner(link);
  if (account.subscription.status === 'canceled')
    return notice(
      'bad',
      'This subscription is canceled: API requests answer 402 Payment Required until the operator resumes it.',
    );
  return '';
}

/** "2026-03-01 to 2026-03-31": first and last day, both included, as on every invoice. */
const period = (invoice: InvoiceView): string => `${invoice.periodFirstDay} to ${invoice.periodLastDay}`;

const label = (invoice: InvoiceView) => invoice.number ?? invoice.id;

export function billingPage(o: {
  account: AccountView;
  plan: PlanSummary | null;
  pending: PlanSummary | null;
  invoices: InvoiceView[];
  /** The id to pass as `before` for the next (older) page; null on the last page. */
  older: string | null;
  /** Whether this page starts after the newest invoice (then it links back to the newest). */
  paged: boolean;
  error?: string;
  /** Self-service plans the account may switch to, and the form token. */
  offered: PlanSummary[];
  /** What choosing each offered plan does now (billing's quotes, the time they were made). */
  quotes: { at: number; choices: Map<string, PlanChoice> };
  csrf: string;
  done?: Html;
  planError?: string;
  details: DetailsForm;
  email: EmailState;
  mailOn: boolean;
}): Html {
  return html`<h1>Billing</h1>
    ${o.done ?? ''}
    ${statusBanner(o.account, false)}
    <h2>Your plan</h2>
    ${planFacts(o.account, o.plan)}
    ${pendingChange(o.account, o.pending)}
    ${o.planError ? notice('bad', o.planError) : ''}
    ${planChoices(o.account, o.offered, o.csrf, o.plan, o.quotes)}
    ${billingDetails({ form: o.details, csrf: o.csrf, mailOn: o.mailOn, email: o.email })}
    ${cancellation(o.account, o.csrf)}
    <h2 id="invoices-heading">Invoices</h2>
    ${o.error ? notice('bad', o.error) : ''}
    ${
      o.invoices.length === 0
        ? html`<p>${o.paged ? 'No older invoices.' : 'No invoices yet. Overage is invoiced after each calendar month (UTC); a plan fee at the start of each 30-day window.'}</p>`
        : html`<table aria-labelledby="invoices-heading">
            <thead><tr><th scope="col">Number</th><th scope="col">Kind</th><th scope="col">Period (UTC)</th><th scope="col">Total</th><th scope="col">State</th><th scope="col">Documents</th></tr></thead>
            <tbody>${o.invoices.map(
              (i) => html`<tr>
                <td><a href="/dashboard/billing/invoices/${i.id}">${label(i)}</a></td>
                <td>${KIND_LABEL[i.kind] ?? i.kind}</td>
                <td>${period(i)}</td>
                <td>${i.total} ${i.currency}</td>
                <td>${STATE_BADGE[i.state] ?? i.state}</td>
                <td><a href="/dashboard/billing/invoices/${i.id}/pdf" aria-label="PDF of invoice ${label(i)}">PDF</a></td>
              </tr>`,
            )}</tbody>
          </table>`
    }
    ${
      o.older || o.paged
        ? html`<nav aria-label="Invoice pages" class="actions">${o.paged ? html`<a href="/dashboard/billing">Newest</a>` : ''}${
            o.older ? html`<a href="/dashboard/billing?before=${o.older}" rel="next">Older</a>` : ''
          }</nav>`
        : ''
    }`;
}

export function invoicePage(o: { account: AccountView; invoice: InvoiceView }): Html {
  const i = o.invoice;
  const c = invoiceContent(i);
  const nextAttempt =
    i.state !== 'open'
      ? 'none (the invoice is not open)'
      : i.nextAttemptAt
        ? timeTag(i.nextAttemptAt)
        : 'none planned: pay as the instructions below say';
  return html`<p><a href="/dashboard/billing">← Billing</a></p>
    <h1>${c.heading}</h1>
    ${i.state === 'open' ? statusBanner(o.account, false) : ''}
    <p>${STATE_BADGE[i.state] ?? i.state} <a href="/dashboard/billing/invoices/${i.id}/pdf">Download the PDF</a></p>
    <div class="parties">${c.parties.map((p) => html`<section><h2>${p.title}</h2><p>${p.lines.map((l, n) => html`${n > 0 ? html`<br>` : ''}${l}`)}</p></section>`)}</div>
    <table>
      <caption class="visually-hidden">About this invoice</caption>
      <tbody>
        ${c.facts.map((f) => html`<tr><th scope="row">${f.label}</th><td>${f.value}</td></tr>`)}
        ${i.paidAt ? '' : html`<tr><th scope="row">Paid on</th><td>not paid</td></tr>`}
        <tr><th scope="row">Next charge attempt</th><td>${nextAttempt}</td></tr>
        <tr><th scope="row">Charge attempts so far</th><td>${i.attempts}</td></tr>
      </tbody>
    </table>
    <h2 id="lines-heading">Lines</h2>
    <div class="scroll" role="region" aria-labelledby="lines-heading" tabindex="0"><table aria-labelledby="lines-heading">
      <thead><tr><th scope="col">Description</th><th scope="col">Plan</th><th scope="col">Quantity</th><th scope="col">Unit price (${c.currency})</th><th scope="col">Amount (${c.currency})</th></tr></thead>
      <tbody>${c.lines.map((l) => html`<tr><td>${l.description}</td><td>${l.plan}</td><td>${l.quantity}</td><td>${l.unitPrice}</td><td>${l.amount}</td></tr>`)}</tbody>
      <tfoot>${c.totals.map((t) => html`<tr><th scope="row" colspan="4">${t.label}</th><td>${t.value}</td></tr>`)}</tfoot>
    </table></div>
    ${c.notes.map((n) => html`<p>${n}</p>`)}
    ${
      i.creditNotes.length === 0
        ? ''
        : html`<h2 id="credit-notes">Credit notes</h2><ul>${i.creditNotes.map(
            (n) =>
              html`<li>${n.number} of ${utcDay(n.issuedAt)}: ${n.total} ${i.currency} <a href="/dashboard/billing/credit-notes/${n.id}/pdf" aria-label="PDF of credit note ${n.number}">PDF</a></li>`,
          )}</ul>`
    }
    <p class="hint">${c.footer}</p>`;
}
