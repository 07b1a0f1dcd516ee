// Corrections of issued invoices (docs/billing.md, "Credit notes"): the operator voids one (a
// mistake: a draft, or an open one, which writes its credit note), writes one off (uncollectible),
// or credits one in full or in part. Each is one transaction that holds the invoice, changes it only
// from the state it read, records why and releases the account when nothing else holds it past due.
import type { Result } from '../result.js';
import type { InvoicesTable } from '../db/index.js';
import type { BillingDeps } from './deps.js';
import { creditable, writeCreditNote, type CreditNoteView } from './credit-notes.js';
import { invoiceNumber, type InvoiceState, type InvoiceView } from './invoice.js';
import { parseAmount } from './money.js';
import { releaseAccount } from './standing.js';
import type { BillingStore } from './store.js';
import type { InvoiceReader } from './views.js';

export class Corrections {
  constructor(
    private readonly o: Pick<BillingDeps, 'clock' | 'accounts'>,
    private readonly reader: InvoiceReader,
    private readonly store: BillingStore,
  ) {}

  /** void (a mistake: draft or open) or uncollectible (written off: open); either releases the account. */
  async close(id: string, to: 'void' | 'uncollectible', reason?: string): Promise<Result<InvoiceView>> {
    const at = this.o.clock.now();
    const from: InvoiceState[] = to === 'void' ? ['draft', 'open'] : ['open'];
    const why = reason?.trim() || `marked ${to} by the operator`;
    const changed = await rolledBackOnConflict(this.store, async (tx): Promise<Result<null>> => {
      const invoice = await tx.invoiceForUpdate(id);
      if (!invoice)
        return { kind: 'not_found' as const, message: `No invoice with id ${JSON.stringify(id.slice(0, 60))}` };
      if (!from.includes(invoice.state)) {
        return {
          kind: 'conflict' as const,
          message: `Invoice ${invoice.number === null ? invoice.id : invoiceNumber(invoice.number)} is ${invoice.state}; only ${from.join(' or ')} invoices can be made ${to}`,
        };
      }
      // An issued invoice is cancelled by a credit note, never by changing it.
      if (to === 'void' && invoice.state === 'open') {
        const note = await writeCreditNote(tx, invoice, null, why, at);
        if (note.kind !== 'ok') return note;
      }
      await this.closeIn(tx, invoice, to, why, at);
      return { kind: 'ok', value: null };
    });
    return changed.kind === 'ok' ? this.reader.invoice(id) : changed;
  }

  /**
   * A credit note on an issued invoice (credit-notes.ts): an open one in full, which voids it; a paid
   * one in full or in part. `amount`: the net to credit as typed ("12.50", in the invoice's
   * currency); absent, all that is left.
   */
  async credit(id: string, amount: string | undefined, reason: string): Promise<Result<CreditNoteView>> {
    const at = this.o.clock.now();
    return rolledBackOnConflict(this.store, async (tx): Promise<Result<CreditNoteView>> => {
      const invoice = await tx.invoiceForUpdate(id);
      if (!invoice) return { kind: 'not_found', message: `No invoice with id ${JSON.stringify(id.slice(0, 60))}` };
      const parsed = amount === undefined ? null : parseAmount(amount, invoice.currency, 'amount');
      if (parsed && !parsed.ok) return { kind: 'invalid', message: parsed.message };
      const amountMinor = parsed ? parsed.value : null;
      const name = invoice.number === null ? invoice.id : invoiceNumber(invoice.number);
      if (invoice.state !== 'open' && invoice.state !== 'paid') {
        return {
          kind: 'conflict',
          message: `Invoice ${name} is ${invoice.state}; only open or paid invoices can be credited`,
        };
      }
      const full = invoice.state === 'open';
      if (full && amountMinor !== null && amountMinor !== (await creditable(tx, invoice)).net) {
        return {
          kind: 'conflict',
          message: `Invoice ${name} is open: it is credited in full (then a correct one is issued); a part can be credited once it is paid`,
        };
      }
      const note = await writeCreditNote(tx, invoice, full ? null : amountMinor, reason, at);
      if (note.kind !== 'ok') return note;
      if (full) await this.closeIn(tx, invoice, 'void', `credited in full by ${note.value.number}: ${reason}`, at);
      return note;
    });
  }

  /** Closes `invoice` inside `tx`'s transaction; throws Conflict (rolling it back) when it changed meanwhile. */
  private async closeIn(
    tx: BillingStore,
    invoice: InvoicesTable,
    to: 'void' | 'uncollectible',
    reason: string,
    at: number,
  ): Promise<void> {
    const updated = await tx.setInvoiceIn(invoice.id, invoice.state, {
      state: to,
      next_attempt_at: null,
      overdue: 0,
      updated_at: at,
    });
    if (!updated) throw new Conflict('The invoice changed meanwhile; try again');
    await tx.record({
      at,
      account_id: invoice.account_id,
      invoice_id: invoice.id,
      subject: 'invoice',
      from_state: invoice.state,
      to_state: to,
      reason,
    });
    await releaseAccount(
      tx,
      this.o.accounts,
      invoice.account_id,
      at,
      `invoice ${invoice.number === null ? invoice.id : invoiceNumber(invoice.number)} ${to}`,
    );
  }
}

/** A change that lost a race: thrown inside a transaction so that nothing of it is kept. */
class Conflict extends Error {}

/** `work` in one transaction; a Conflict it throws rolls everything back and is answered as a conflict. */
async function rolledBackOnConflict<T>(
  store: BillingStore,
  work: (tx: BillingStore) => Promise<Result<T>>,
): Promise<Result<T>> {
  try {
    return await store.transaction(work);
  } catch (error) {
    if (error instanceof Conflict) return { kind: 'conflict', message: error.message };
    throw error;
  }
}
