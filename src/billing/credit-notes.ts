// Credit notes (docs/billing.md, "Credit notes"): an issued invoice is never edited; a refund or a
// correction is a credit note that references it, numbered from its own counter (CN-000001, …) in
// the transaction that writes it, as invoices are, so the sequence has no gaps. A credit note takes
// the invoice's frozen parties and tax rate. An open invoice is credited in full (it becomes void:
// issue a correct one instead); a paid one in full or in part (the money is refunded through the
// gateway's own dashboard, or by transfer). Voiding an open invoice writes its credit note too.
import type { Selectable } from 'kysely';
import type { Result } from '../result.js';
import { iso } from '../clock.js';
import type { CreditNotesTable, InvoicesTable } from '../db/index.js';
import { newId } from '../ids.js';
import { creditNoteNumber, invoiceNumber, type CreditNoteRef } from './invoice.js';
import { formatAmount } from './money.js';
import type { BillingStore } from './store.js';
import { taxOn } from './tax.js';

export interface CreditNoteView {
  id: string;
  number: string;
  invoiceId: string;
  invoiceNumber: string;
  accountId: string;
  currency: string;
  net: string;
  netMinor: number;
  tax: string;
  taxMinor: number;
  total: string;
  totalMinor: number;
  reason: string;
  issuedAt: string;
}

/** What is left to credit on an invoice: net and tax not yet credited. */
export async function creditable(
  tx: BillingStore,
  invoice: Selectable<InvoicesTable>,
): Promise<{ net: number; tax: number }> {
  const credited = await tx.credited(invoice.id);
  const net = Number(invoice.net_minor ?? invoice.total_minor);
  const tax = Number(invoice.tax_minor ?? 0);
  return { net: net - credited.net, tax: tax - credited.tax };
}

/**
 * Writes a credit note of `netMinor` (null: all that is left) on `invoice` inside `tx`'s transaction: its number
 * from the credit-note counter, the tax at the invoice's rate (all that is left when it credits the
 * rest, so a full credit cancels the invoice to the cent). Throws on nothing; the caller checked states.
 */
export async function writeCreditNote(
  tx: BillingStore,
  invoice: Selectable<InvoicesTable>,
  netMinor: number | null,
  reason: string,
  at: number,
): Promise<Result<CreditNoteView>> {
  const left = await creditable(tx, invoice);
  if (left.net <= 0)
    return { kind: 'conflict', message: `Invoice ${invoiceNumber(invoice.number)} is credited in full already` };
  const net = netMinor ?? left.net;
  if (net <= 0 || net > left.net) {
    return {
      kind: 'invalid',
      message: `amount must be more than 0 and at most ${formatAmount(left.net, invoice.currency)} ${invoice.currency}, the net amount not yet credited`,
    };
  }
  const tax = net === left.net ? left.tax : Math.min(left.tax, taxOn(net, invoice.tax_rate_bp ?? 0));
  const row: CreditNotesTable = {
    id: newId('cn'),
    number: await tx.takeNumbers('credit_note', 1),
    invoice_id: invoice.id,
    account_id: invoice.account_id,
    currency: invoice.currency,
    net_minor: net,
    tax_minor: tax,
    total_minor: net + tax,
    reason,
    created_at: at,
  };
  await tx.insertCreditNote(row);
  await tx.record({
    at,
    account_id: invoice.account_id,
    invoice_id: invoice.id,
    subject: 'credit_note',
    from_state: null,
    to_state: 'issued',
    reason: `credit note ${creditNoteNumber(row.number)} of ${formatAmount(row.total_minor, row.currency)} ${row.currency}: ${reason}`,
  });
  return { kind: 'ok', value: creditNoteView(row, invoiceNumber(invoice.number)) };
}

export function creditNoteView(row: CreditNotesTable, invoiceNo: string): CreditNoteView {
  const money = (minor: number) => formatAmount(Number(minor), row.currency);
  return {
    id: row.id,
    number: creditNoteNumber(Number(row.number)),
    invoiceId: row.invoice_id,
    invoiceNumber: invoiceNo,
    accountId: row.account_id,
    currency: row.currency,
    net: money(row.net_minor),
    netMinor: Number(row.net_minor),
    tax: money(row.tax_minor),
    taxMinor: Number(row.tax_minor),
    total: money(row.total_minor),
    totalMinor: Number(row.total_minor),
    reason: row.reason,
    issuedAt: iso(Number(row.created_at)),
  };
}

export const creditNoteRef = (row: CreditNotesTable): CreditNoteRef => ({
  id: row.id,
  number: creditNoteNumber(Number(row.number)),
  total: formatAmount(Number(row.total_minor), row.currency),
  totalMinor: Number(row.total_minor),
  issuedAt: iso(Number(row.created_at)),
});

/** The operator's and customer's reading of credit notes. */
export class CreditNotes {
  constructor(private readonly store: BillingStore) {}

  async get(id: string, accountId?: string): Promise<Result<CreditNoteView>> {
    const row = await this.store.creditNote(id, accountId);
    if (!row) return { kind: 'not_found', message: `No credit note with id ${JSON.stringify(id.slice(0, 60))}` };
    return { kind: 'ok', value: creditNoteView(row, invoiceNumber(row.invoice_number)) };
  }

  /** The credit notes of these invoices, oldest first. */
  of(invoiceIds: string[]): Promise<CreditNotesTable[]> {
    return this.store.creditNotesOf(invoiceIds);
  }
}
