// Invoices from draft to open. Closing a month and issuing plan fees both hand their drafts here:
// written once each (unique per account, kind and period: a unique key, inserted with ON CONFLICT DO
// NOTHING inside the transaction that writes their lines), so a second run, a run on another
// process or a run after a crash stores nothing twice; then opened, each taking the next invoice
// number in the same transaction that opens it, so numbers have no gaps, and a crash leaves drafts
// the next run opens. Opening freezes what the invoice states: parties, tax, due date (issue.ts).
import type { CompiledQuery, Insertable } from 'kysely';
import type { InvoicesTable } from '../db/index.js';
import { newId } from '../ids.js';
import { invoiceNumber, type InvoiceKind } from './invoice.js';
import { issueColumns } from './issue.js';
import type { BillingStore } from './store.js';
import type { Seller } from './parties.js';

/** Who an opening invoice is between: the configured seller, and the accounts' names for buyers without a legal name. */
export interface Parties {
  seller: Seller;
  /** Whether the payment gateway charges invoices (frozen on each: it decides how to pay). */
  charges: boolean;
  /** The accounts capability's statement reading names, run in the opening transaction. */
  namesQuery(accountIds: string[]): CompiledQuery<{ id: string; name: string }>;
}

/** Invoices written or opened per transaction: bounded transactions, a bounded stall of other writers. */
const BATCH = 200;

export interface Draft {
  accountId: string;
  kind: InvoiceKind;
  periodStart: number;
  periodEnd: number;
  currency: string;
  lines: { planId: string; description: string; quantity: number; unitPriceMicroMinor: number; amountMinor: number }[];
  reason: string;
}

export const total = (draft: Draft): number => draft.lines.reduce((sum, line) => sum + line.amountMinor, 0);

export class Drafts {
  constructor(
    private readonly store: BillingStore,
    private readonly parties: Parties,
  ) {}

  /** Inserts drafts that do not exist yet, each with its lines and its record, in bounded transactions. */
  async write(drafts: Draft[], at: number): Promise<number> {
    // One order on every process: two runs at once wait on each other's keys, never deadlock.
    drafts.sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0));
    let written = 0;
    for (let i = 0; i < drafts.length; i += BATCH) {
      written += await this.store.transaction(async (tx) => {
        let count = 0;
        for (const draft of drafts.slice(i, i + BATCH)) if ((await writeDraft(tx, draft, at)) !== null) count++;
        return count;
      });
    }
    return written;
  }

  /** Opens every draft: the next number, then `open`, in one transaction per batch. */
  async open(at: number): Promise<number> {
    let opened = 0;
    for (;;) {
      const count = await this.store.transaction(async (tx) => {
        // Another process opening drafts at once takes other rows; both draw numbers from one counter row.
        const drafts = await tx.draftsToOpen(BATCH);
        if (drafts.length === 0) return 0;
        let number = (await tx.takeNumbers('invoice', drafts.length)) - drafts.length;
        // The buyers' details and names as they are now, in this transaction: frozen on each invoice it opens.
        const accountIds = [...new Set(drafts.map((d) => d.account_id))];
        const buyers = await tx.buyers(accountIds);
        const names = new Map((await tx.run(this.parties.namesQuery(accountIds))).rows.map((r) => [r.id, r.name]));
        for (const draft of drafts) {
          // Due at once; only a charging gateway acts on it (the CLI, on the manual gateway, may open invoices the service charges).
          await tx.setInvoice(draft.id, {
            number: ++number,
            state: 'open',
            finalized_at: at,
            next_attempt_at: at,
            updated_at: at,
            ...issueColumns(buyers.get(draft.account_id), {
              accountName: names.get(draft.account_id) ?? null,
              netMinor: Number(draft.total_minor),
              seller: this.parties.seller,
              charges: this.parties.charges,
              at,
            }),
          });
          await tx.record({
            at,
            account_id: draft.account_id,
            invoice_id: draft.id,
            subject: 'invoice',
            from_state: 'draft',
            to_state: 'open',
            reason: `opened as ${invoiceNumber(number)}`,
          });
        }
        return drafts.length;
      });
      opened += count;
      if (count < BATCH) return opened;
    }
  }
}

/**
 * Inserts one draft with its lines and its record in `tx` (a store inside a transaction) unless its
 * account, kind and period have an invoice; its id, or null when one was there.
 */
export async function writeDraft(tx: BillingStore, draft: Draft, at: number): Promise<string | null> {
  const id = newId('inv');
  const lines = draft.lines.map((line, n) => ({
    line: n + 1,
    plan_id: line.planId,
    description: line.description,
    quantity: line.quantity,
    unit_price_micro_minor: line.unitPriceMicroMinor,
    amount_minor: line.amountMinor,
  }));
  if (!(await tx.insertDraft(draftRow(id, draft, at), lines))) return null;
  await tx.record({
    at,
    account_id: draft.accountId,
    invoice_id: id,
    subject: 'invoice',
    from_state: null,
    to_state: 'draft',
    reason: draft.reason,
  });
  return id;
}

/** A draft's invoice row: no number, nothing charged, nothing frozen yet. */
function draftRow(id: string, draft: Draft, at: number): Insertable<InvoicesTable> {
  return {
    id,
    number: null,
    account_id: draft.accountId,
    kind: draft.kind,
    period_start: draft.periodStart,
    period_end: draft.periodEnd,
    currency: draft.currency,
    total_minor: total(draft),
    state: 'draft',
    attempts: 0,
    next_attempt_at: null,
    overdue: 0,
    gateway_ref: null,
    created_at: at,
    finalized_at: null,
    paid_at: null,
    updated_at: at,
  };
}
