// What an invoice looks like to its readers (customer API, dashboard, HTML page, PDF, operator API).
// Money is given both as exact decimal strings (for people and JSON) and integer minor units (for
// programs); see docs/billing.md.

import type { TaxTreatment } from './tax.js';

export type InvoiceState = 'draft' | 'open' | 'paid' | 'uncollectible' | 'void';
/**
 * `overage`: requests past the allowance in one calendar month (in arrears); `fee`: a plan's fee for
 * one 30-day window (in advance); `upgrade`: the prorated difference of an upgrade, for the rest of
 * its window (at once).
 */
export type InvoiceKind = 'overage' | 'fee' | 'upgrade';

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

/** A party as an invoice names it: frozen when the invoice opens. */
export interface PartyView {
  name: string;
  address: string[];
  /** ISO 3166-1 alpha-2, or null. */
  country: string | null;
  /** "Germany". */
  countryName: string | null;
  vatId: string | null;
  email: string | null;
}

/** The tax at one rate: what it was charged on and how much. */
export interface TaxLineView {
  /** "19", "25.5", "0". */
  ratePercent: string;
  /** Whose rate (ISO country), or null when no VAT is charged. */
  country: string | null;
  taxable: string;
  taxableMinor: number;
  tax: string;
  taxMinor: number;
}

/** A credit note as its invoice lists it. */
export interface CreditNoteRef {
  id: string;
  /** "CN-000003". */
  number: string;
  total: string;
  totalMinor: number;
  issuedAt: string;
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
  /** What is owed: the net plus the tax. */
  total: string;
  totalMinor: number;
  /** The sum of the lines, before tax. */
  net: string;
  netMinor: number;
  tax: string;
  taxMinor: number;
  /** domestic, reverse_charge, oss, outside_eu or not_registered; null until it opens (and on invoices opened before tax was stated). */
  taxTreatment: TaxTreatment | null;
  /** The legal wording for the treatment, printed under the tax. */
  taxNote: string | null;
  /** The tax per rate (one rate per invoice today). */
  taxLines: TaxLineView[];
  seller: PartyView;
  buyer: PartyView;
  /** YYYY-MM-DD: issue date plus the payment terms; null while a draft. */
  dueDate: string | null;
  paymentInstructions: string | null;
  /** ISO 8601 UTC; end exclusive. */
  periodStart: string;
  periodEnd: string;
  /** The period as every text shows it: first and last day, both included (UTC). */
  periodFirstDay: string;
  periodLastDay: string;
  createdAt: string;
  finalizedAt: string | null;
  paidAt: string | null;
  /** When the next automatic charge is due; null when none is planned. */
  nextAttemptAt: string | null;
  /** Charge attempts made so far. */
  attempts: number;
  lines: InvoiceLineView[];
  creditNotes: CreditNoteRef[];
  /** The sum of the credit notes' totals. */
  creditedMinor: number;
}

/** "FS-000042": what customers and operators see. */
export function invoiceNumber(number: number | null): string {
  return number === null ? 'draft' : `FS-${String(number).padStart(6, '0')}`;
}

/** "CN-000003". */
export function creditNoteNumber(number: number): string {
  return `CN-${String(number).padStart(6, '0')}`;
}
