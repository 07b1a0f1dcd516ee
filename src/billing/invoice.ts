// What an invoice looks like to its readers (customer API, dashboard, HTML page, PDF, operator API).
// Money is given both as exact decimal strings (for people and JSON) and integer minor units (for
// programs); see docs/billing.md.

export type InvoiceState = 'draft' | 'open' | 'paid' | 'uncollectible' | 'void';
/** `overage`: requests past the allowance in one calendar month (in arrears); `fee`: a plan's fee for one 30-day window (in advance). */
export type InvoiceKind = 'overage' | 'fee';

export interface InvoiceLineView {
  description: string;
  planId: string;
  quantity: number;
  /** Decimal string per unit: a per-request price ("0.002") or the fee ("49.00"). */
  unitPrice: string;
  /** Decimal string in the currency, rounded once, half up. */
  amount: string;
  amountMinor: number;
}

export interface InvoiceView {
  id: string;
  /** "FS-000042" once finalized (sequential, no gaps); null while a draft. */
  number: string | null;
  accountId: string;
  accountSlug: string;
  accountName: string;
  kind: InvoiceKind;
  state: InvoiceState;
  currency: string;
  total: string;
  totalMinor: number;
  /** ISO 8601 UTC; end exclusive. */
  periodStart: string;
  periodEnd: string;
  createdAt: string;
  finalizedAt: string | null;
  paidAt: string | null;
  /** When the next automatic charge is due; null when none is planned. */
  nextAttemptAt: string | null;
  /** Charge attempts made so far. */
  attempts: number;
  lines: InvoiceLineView[];
}

/** "FS-000042": what customers and operators see. */
export function invoiceNumber(number: number | null): string {
  return number === null ? 'draft' : `FS-${String(number).padStart(6, '0')}`;
}
