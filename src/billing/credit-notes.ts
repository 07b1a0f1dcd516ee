// Credit notes (docs/billing.md, "Credit notes"): an issued invoice is never edited; a refund or a
// correction is a credit note that references it, numbered from its own counter (CN-000001, …) in
// the transaction that writes it, as invoices are, so the sequence has no gaps. A credit note takes
// the invoice's frozen parties and tax rate. An open invoice is credited in full (it becomes void:
// issue a correct one instead); a paid one in full or in part (the money is refunded through the
// gateway's own dashboard, or by transfer). Voiding an open invoice writes its credit note too.
import type { Kysely, Selectable } from 'kysely';
import type { Result } from '../result.js';
import { iso } from '../clock.js';
import type { CreditNotesTable, DatabaseSchema, InvoicesTable } from '../db/index.js';
import { newId } from '../ids.js';
import { record, type Tx } from './events.js';
import { creditNoteNumber, invoiceNumber, type CreditNoteRef } from './invoice.js';
import { formatAmount } from './money.js';
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
export async function creditable(trx: Tx, invoice: Selectable<InvoicesTable>): Promise<{ net: number; tax: number }> {
  const credited = await trx
    .selectFrom('credit_notes')
    .select((eb) => [eb.fn.coalesce(eb.fn.sum<number>('net_minor'), eb.lit(0)).as('net'), eb.fn.coalesce(eb.fn.sum<number>('tax_minor'), eb.lit(0)).as('tax')])
    .where('invoice_id', '=', invoice.id)
    .executeTakeFirstOrThrow();
  const net = Number(invoice.net_minor ?? invoice.total_minor);
  const tax = Number(invoice.tax_minor ?? 0);
  return { net: net - Number(credited.net), tax: tax - Number(credited.tax) };
}

/**
 * Writes a credit note of `netMinor` (null: all that is left) on `invoice` inside `trx`: its number
 * from the credit-note counter, the tax at the invoice's rate (all that is left when it credits the
 * rest, so a full credit cancels the invoice to the cent). Throws on nothing; the caller checked states.
 */
export async function writeCreditNote(trx: Tx, invoice: Selectable<InvoicesTable>, netMinor: number | null, reason: string, at: number): Promise<Result<CreditNoteView>> {
  const left = await creditable(trx, invoice);
  if (left.net <= 0) return { kind: 'conflict', message: `Invoice ${invoiceNumber(invoice.number)} is credited in full already` };
  const net = netMinor ?? left.net;
  if (net <= 0 || net > left.net) {
    return { kind: 'invalid', message: `amount must be more than 0 and at most ${formatAmount(left.net, invoice.currency)} ${invoice.currency}, the net amount not yet credited` };
  }
  const tax = net === left.net ? left.tax : Math.min(left.tax, taxOn(net, invoice.tax_rate_bp ?? 0));
  const counter = await trx
    .updateTable('invoice_numbers')
    .set((eb) => ({ last: eb('last', '+', 1) }))
    .where('id', '=', 'credit_note')
    .returning('last')
    .executeTakeFirstOrThrow();
  const row: CreditNotesTable = {
    id: newId('cn'),
    number: Number(counter.last),
    invoice_id: invoice.id,
    account_id: invoice.account_id,
    currency: invoice.currency,
    net_minor: net,
    tax_minor: tax,
    total_minor: net + tax,
    reason,
    created_at: at,
  };
  await trx.insertInto('credit_notes').values(row).execute();
  await record(trx, { at, account_id: invoice.account_id, invoice_id: invoice.id, subject: 'credit_note', from_state: null, to_state: 'issued', reason: `credit note ${creditNoteNumber(row.number)} of ${formatAmount(row.total_minor, row.currency)} ${row.currency}: ${reason}` });
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
  constructor(private readonly kysely: Kysely<DatabaseSchema>) {}

  async get(id: string, accountId?: string): Promise<Result<CreditNoteView>> {
    let query = this.kysely.selectFrom('credit_notes').innerJoin('invoices', 'invoices.id', 'credit_notes.invoice_id').selectAll('credit_notes').select('invoices.number as invoice_number').where('credit_notes.id', '=', id);
    if (accountId !== undefined) query = query.where('credit_notes.account_id', '=', accountId);
    const row = await query.executeTakeFirst();
    if (!row) return { kind: 'not_found', message: `No credit note with id ${JSON.stringify(id.slice(0, 60))}` };
    return { kind: 'ok', value: creditNoteView(row, invoiceNumber(row.invoice_number)) };
  }

  /** The credit notes of these invoices, oldest first. */
  async of(invoiceIds: string[]): Promise<CreditNotesTable[]> {
    if (invoiceIds.length === 0) return [];
    return this.kysely.selectFrom('credit_notes').selectAll().where('invoice_id', 'in', invoiceIds).orderBy('number').execute();
  }
}
