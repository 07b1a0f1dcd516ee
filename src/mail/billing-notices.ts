// The mails about invoices, credit notes, payments and a past-due account, worded: each from the
// facts billing reports to the mail Notices (notices.ts) queues to the account's billing contact.
import { day, time } from './compose.js';
import type { MailRequest } from './service.js';

export interface InvoiceFacts {
  accountId: string;
  invoiceId: string;
  number: string;
  total: string;
  currency: string;
  /** What it bills, in words ("Overage 2026-03-01 to 2026-03-31"). */
  description: string;
}

export interface PaymentFailedFacts extends InvoiceFacts {
  attempt: number;
  reason: string;
  /** When it is tried again; null after the last try. */
  nextRetryAt: number | null;
}

/** A mail as worded here: Notices adds whom it goes to (and an invoice's PDF). */
type Worded = Omit<MailRequest, 'accountId' | 'to' | 'attachments'>;

export function invoiceIssuedMail(f: InvoiceFacts & { dueDate: string | null }, baseUrl: string): Worded {
  return {
    kind: 'invoice.issued',
    category: 'billing',
    dedupeKey: `invoice.issued:${f.invoiceId}`,
    content: {
      subject: `Invoice ${f.number}: ${f.total} ${f.currency}`,
      heading: `Invoice ${f.number}`,
      paragraphs: [`Your invoice for ${f.description} is attached.`],
      facts: [
        ['Invoice', f.number],
        ['Amount', `${f.total} ${f.currency}`],
        ...(f.dueDate !== null ? ([['Due', f.dueDate]] as [string, string][]) : []),
      ],
      action: { label: 'View the invoice', url: `${baseUrl}/dashboard/billing/invoices/${f.invoiceId}` },
      reason: 'You get this mail because you are the billing contact of this account.',
    },
  };
}

export function creditNoteIssuedMail(
  f: InvoiceFacts & { creditNoteId: string; creditNumber: string; credited: string; reason: string },
  baseUrl: string,
): Worded {
  return {
    kind: 'credit_note.issued',
    category: 'billing',
    dedupeKey: `credit_note.issued:${f.creditNoteId}`,
    content: {
      subject: `Credit note ${f.creditNumber}: ${f.credited} ${f.currency} on invoice ${f.number}`,
      heading: `Credit note ${f.creditNumber}`,
      paragraphs: [
        `We credited ${f.credited} ${f.currency} on invoice ${f.number} (${f.description}): ${f.reason}. The credit note is attached.`,
      ],
      facts: [
        ['Credit note', f.creditNumber],
        ['Invoice', f.number],
        ['Amount credited', `${f.credited} ${f.currency}`],
      ],
      action: { label: 'View the invoice', url: `${baseUrl}/dashboard/billing/invoices/${f.invoiceId}` },
      reason: 'You get this mail because you are the billing contact of this account.',
    },
  };
}

export function invoicePaidMail(f: InvoiceFacts & { paidAt: number }, baseUrl: string): Worded {
  return {
    kind: 'invoice.paid',
    category: 'billing',
    dedupeKey: `invoice.paid:${f.invoiceId}`,
    content: {
      subject: `Receipt for invoice ${f.number}`,
      heading: `Thank you: invoice ${f.number} is paid`,
      paragraphs: [`We received ${f.total} ${f.currency} for ${f.description} on ${day(f.paidAt)}.`],
      facts: [
        ['Invoice', f.number],
        ['Amount paid', `${f.total} ${f.currency}`],
        ['Paid on', day(f.paidAt)],
      ],
      action: { label: 'View the invoice', url: `${baseUrl}/dashboard/billing/invoices/${f.invoiceId}` },
      reason: 'You get this mail because you are the billing contact of this account.',
    },
  };
}

export function paymentFailedMail(f: PaymentFailedFacts, baseUrl: string): Worded {
  const next =
    f.nextRetryAt === null
      ? 'This was the last attempt.'
      : `We will try again on ${day(f.nextRetryAt)}. If every attempt fails, the account becomes past due and lookups are refused (402) until the invoice is paid.`;
  return {
    kind: 'payment.failed',
    category: 'billing',
    dedupeKey: `payment.failed:${f.invoiceId}:${f.attempt}`,
    content: {
      subject: `Payment of invoice ${f.number} failed`,
      heading: `We could not charge invoice ${f.number}`,
      paragraphs: [
        `Attempt ${f.attempt} to charge ${f.total} ${f.currency} was declined: ${f.reason}.`,
        next,
        'Update the payment method with your payment provider, or pay the invoice by bank transfer.',
      ],
      facts: [
        ['Invoice', f.number],
        ['Amount', `${f.total} ${f.currency}`],
        ['Attempt', String(f.attempt)],
        ...(f.nextRetryAt !== null ? ([['Next attempt', day(f.nextRetryAt)]] as [string, string][]) : []),
      ],
      action: { label: 'See your billing', url: `${baseUrl}/dashboard/billing` },
      reason: 'You get this mail because you are the billing contact of this account.',
    },
  };
}

export function pastDueMail(f: InvoiceFacts & { at: number }, baseUrl: string): Worded {
  return {
    kind: 'account.past_due',
    category: 'billing',
    dedupeKey: `account.past_due:${f.invoiceId}`,
    content: {
      subject: `Your account is past due: invoice ${f.number} is unpaid`,
      heading: 'Your account is past due',
      paragraphs: [
        `Invoice ${f.number} (${f.total} ${f.currency}) is still unpaid after every attempt to charge it.`,
        'What stops working: every API lookup and batch is refused with 402 Payment Required until the invoice is paid. Your keys, webhooks and data are kept.',
        'How to fix it: pay the invoice (a payment through your payment provider restores the account at once), or contact us to pay by bank transfer.',
      ],
      facts: [
        ['Invoice', f.number],
        ['Amount due', `${f.total} ${f.currency}`],
        ['Past due since', time(f.at)],
      ],
      action: { label: 'See your billing', url: `${baseUrl}/dashboard/billing` },
      reason: 'You get this mail because you are the billing contact of this account.',
    },
  };
}
