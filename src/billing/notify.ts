// What billing tells the account by mail (src/mail): an invoice issued (its PDF attached), paid (a
// receipt), a charge declined (each dunning step, with when it is tried again), and the account past
// due (what stops working and how to fix it), and a credit note (its PDF attached). Read from billing_events, which every change writes in
// its own transaction, so a crash between a change and its mail only delays the mail: each pass of
// the billing job looks back two days and skips what was already told (the mails' dedupe keys).
import { DAY } from '../clock.js';
import type { Notices } from '../mail/index.js';
import { creditNotePdf, invoicePdf } from './render-pdf.js';
import { creditNoteView, type CreditNotes } from './credit-notes.js';
import type { CreditNotesTable } from '../db/index.js';
import type { InvoiceView } from './invoice.js';
import type { InvoiceReader } from './views.js';
import type { BillingStore } from './store.js';

const LOOKBACK_MS = 2 * DAY;

export interface BillingNotifyDeps {
  store: BillingStore;
  reader: InvoiceReader;
  creditNotes: CreditNotes;
  notices: Notices;
}

/** The period as every invoice text shows it: first and last day, both included. */
const describe = (invoice: InvoiceView) =>
  `${DESCRIBED[invoice.kind]} of ${invoice.periodFirstDay} to ${invoice.periodLastDay}`;
const DESCRIBED: Record<InvoiceView['kind'], string> = {
  fee: 'the plan fee',
  overage: 'the overage',
  upgrade: 'the prorated upgrade',
};

const facts = (invoice: InvoiceView) => ({
  accountId: invoice.accountId,
  invoiceId: invoice.id,
  number: invoice.number ?? 'draft',
  total: invoice.total,
  currency: invoice.currency,
  description: describe(invoice),
});

/** One pass: tells what the billing events of the last two days say and was not told yet; how many mails it queued. */
export async function notifyBilling(o: BillingNotifyDeps, at: number): Promise<number> {
  if (!o.notices.enabled) return 0;
  const events = await o.store.eventsToTell(at - LOOKBACK_MS, at);
  const tellable = [];
  for (const event of events) {
    const invoiceId = event.invoice_id ?? (await o.store.overdueInvoice(event.account_id));
    if (!invoiceId) continue;
    if (event.subject === 'credit_note') {
      // The credit notes written with this event (one transaction, one instant).
      for (const note of await o.creditNotes.of([invoiceId])) {
        if (Number(note.created_at) === Number(event.at))
          tellable.push({ event, invoiceId, attempt: 0, key: `credit_note.issued:${note.id}`, creditNote: note });
      }
      continue;
    }
    const attempt = event.subject === 'charge' ? await o.store.declinedUpTo(invoiceId, Number(event.id)) : 0;
    const key =
      event.subject === 'invoice'
        ? `invoice.${event.to_state === 'open' ? 'issued' : 'paid'}:${invoiceId}`
        : event.subject === 'charge'
          ? `payment.failed:${invoiceId}:${attempt}`
          : `account.past_due:${invoiceId}`;
    tellable.push({ event, invoiceId, attempt, key, creditNote: undefined as CreditNotesTable | undefined });
  }
  // One read of the outbox for the whole pass: what was told already is skipped.
  const already = await o.notices.told(tellable.map((t) => t.key));
  let told = 0;
  for (const { event, invoiceId, attempt, key, creditNote } of tellable) {
    if (already.has(key)) continue;
    const read = await o.reader.invoice(invoiceId);
    if (read.kind !== 'ok') continue;
    const invoice = read.value;
    if (creditNote !== undefined) {
      const note = creditNoteView(creditNote, invoice.number ?? 'draft');
      await o.notices.creditNoteIssued({
        ...facts(invoice),
        creditNoteId: note.id,
        creditNumber: note.number,
        credited: note.total,
        reason: note.reason,
        pdf: () => creditNotePdf(note, invoice),
      });
    } else if (event.subject === 'invoice' && event.to_state === 'open') {
      await o.notices.invoiceIssued({ ...facts(invoice), dueDate: invoice.dueDate, pdf: () => invoicePdf(invoice) });
    } else if (event.subject === 'invoice') {
      await o.notices.invoicePaid({
        ...facts(invoice),
        paidAt: invoice.paidAt ? Date.parse(invoice.paidAt) : Number(event.at),
      });
    } else if (event.subject === 'charge') {
      const next = /next attempt (\S+)$/.exec(event.reason)?.[1];
      await o.notices.paymentFailed({
        ...facts(invoice),
        attempt,
        reason: /\(([^)]*)\)/.exec(event.reason)?.[1] ?? 'declined',
        nextRetryAt: next && invoice.state === 'open' ? Date.parse(next) : null,
      });
    } else {
      await o.notices.pastDue({ ...facts(invoice), at: Number(event.at) });
    }
    told++;
  }
  return told;
}
