// Charging and dunning (docs/billing.md): what is due is charged through the payment gateway, one
// invoice at a time, each claimed first so no two processes charge it; a decline is retried on the
// dunning schedule, and when the last retry fails the invoice is overdue and the account past due
// (402) until it is paid or voided. Payments (charged, reported by the gateway, or marked by the
// operator) and write-offs settle invoices and release the account; each change is recorded in the
// transaction that makes it.
import { sql, type Kysely } from 'kysely';
import { LeasedRows, type LeaseShape } from '../leases/index.js';
import type { Result } from '../result.js';
import { iso, MINUTE } from '../clock.js';
import { afterDecline, UNAVAILABLE_RETRY_MS } from './dunning.js';
import type { BillingStatus, DatabaseSchema, InvoicesTable } from '../db/index.js';
import type { BillingDeps } from './deps.js';
import { record, type Tx } from './events.js';
import type { ChargeOutcome } from './gateway.js';
import { invoiceNumber, type InvoiceState, type InvoiceView } from './invoice.js';
import type { InvoiceReader } from './views.js';
import type { BillingDialect } from './dialect.js';
import { creditable, writeCreditNote, type CreditNoteView } from './credit-notes.js';
import { parseAmount } from './money.js';

/** A claimed charge whose process died is claimed again after this long (same attempt, same idempotency key). */
const CHARGE_LEASE_MS = 15 * MINUTE;

/** What a run's charging did, added to its report. */
export interface ChargeTally {
  charged: Record<ChargeOutcome['kind'], number>;
  pastDue: number;
}

/**
 * Open invoices as leased work (leases/): due by next_attempt_at, which a claim moves on by the lease
 * (a charge whose process died is claimed again when it runs out); NULL is no attempt left.
 */
const CHARGES: LeaseShape = { table: 'invoices', key: ['id'], due: 'next_attempt_at', lease: null, waiting: sql`state = 'open'`, order: ['next_attempt_at', 'id'] };

export class Charging {
  private readonly due: LeasedRows<InvoicesTable>;

  constructor(
    private readonly o: BillingDeps,
    private readonly reader: InvoiceReader,
    private readonly dialect: BillingDialect,
  ) {
    this.due = new LeasedRows(o.db, CHARGES);
  }

  private get kysely(): Kysely<DatabaseSchema> {
    return this.o.db.kysely;
  }

  /** Charges every open invoice whose attempt is due, one at a time (each claimed first, so no two processes charge one invoice). */
  /** Open invoices whose charge is due and not claimed, and those claimed (being charged). */
  counts(at: number): Promise<{ due: number; held: number }> {
    return this.due.counts(at);
  }

  async chargeDue(at: number, report: ChargeTally): Promise<void> {
    if (!this.o.gateway.charges) return;
    // What is due as the run starts, each claimed in turn: an invoice declined now and due again at
    // once (its retry already late) waits for the next run rather than being charged twice in this one.
    const due = await this.kysely.selectFrom('invoices').select('id').where('state', '=', 'open').where('next_attempt_at', '<=', at).orderBy('next_attempt_at').orderBy('id').execute();
    for (const { id } of due) {
      const [lease] = await this.due.claim({ now: at, limit: 1, leaseMs: CHARGE_LEASE_MS, within: sql`id = ${id}` });
      if (!lease) continue; // another process has it
      const claimed = lease.row;
      const account = await this.o.accounts.find(claimed.account_id);
      const attempt = claimed.attempts + 1;
      let outcome: ChargeOutcome;
      try {
        outcome = await this.o.gateway.charge({
          invoiceId: claimed.id,
          invoiceNumber: invoiceNumber(claimed.number),
          accountId: claimed.account_id,
          amountMinor: Number(claimed.total_minor),
          currency: claimed.currency,
          attempt,
          customer: account?.gateway_customer ?? null,
          paymentMethod: account?.payment_method ?? null,
        });
      } catch (error) {
        outcome = { kind: 'unavailable', message: error instanceof Error ? error.message : String(error) };
      }
      report.charged[outcome.kind]++;
      if (await this.settleCharge(claimed, attempt, outcome, at)) report.pastDue++;
    }
  }

  /** Writes what a charge attempt did; true when it made the account past due. */
  private async settleCharge(invoice: InvoicesTable, attempt: number, outcome: ChargeOutcome, at: number): Promise<boolean> {
    const gateway = this.o.gateway.name;
    if (outcome.kind === 'succeeded') {
      await this.pay(invoice.id, at, `charged by ${gateway} (${outcome.reference}), attempt ${attempt}`, { attempts: attempt, gateway_ref: outcome.reference });
      return false;
    }
    return this.kysely.transaction().execute(async (trx) => {
      const base = { at, account_id: invoice.account_id, invoice_id: invoice.id, subject: 'charge' as const, from_state: null };
      if (outcome.kind === 'unavailable') {
        await trx.updateTable('invoices').set({ next_attempt_at: at + UNAVAILABLE_RETRY_MS, updated_at: at }).where('id', '=', invoice.id).where('state', '=', 'open').execute();
        await record(trx, { ...base, to_state: 'unavailable', reason: `${gateway} unavailable on attempt ${attempt} (not counted; tried again in 1 hour): ${outcome.message}`.slice(0, 500) });
        return false;
      }
      const { next, final: finalAttempt } = afterDecline(attempt, Number(invoice.finalized_at ?? at), at, this.o.options.retryDelaysMs);
      await trx
        .updateTable('invoices')
        .set({ attempts: attempt, next_attempt_at: next, overdue: finalAttempt ? 1 : 0, gateway_ref: outcome.reference, updated_at: at })
        .where('id', '=', invoice.id)
        .where('state', '=', 'open')
        .execute();
      await record(trx, {
        ...base,
        to_state: 'declined',
        reason: `${gateway} declined attempt ${attempt} (${outcome.code}: ${outcome.message})${next === null ? '; no retries left' : `; next attempt ${iso(next)}`}`.slice(0, 500),
      });
      if (!finalAttempt) return false;
      return this.moveAccount(trx, invoice.account_id, 'active', 'past_due', at, `invoice ${invoiceNumber(invoice.number)} unpaid after ${attempt} attempts`);
    });
  }

  /** Marks an open (or uncollectible) invoice paid and lets its account go back to active if nothing else holds it past due. */
  private async pay(id: string, at: number, reason: string, extra: Partial<InvoicesTable> = {}): Promise<Result<InvoiceView>> {
    const changed = await this.kysely.transaction().execute(async (trx) => {
      const invoice = await this.dialect.invoiceForUpdate(trx, id);
      if (!invoice) return { kind: 'not_found' as const, message: `No invoice with id ${JSON.stringify(id.slice(0, 60))}` };
      if (invoice.state !== 'open' && invoice.state !== 'uncollectible') {
        return { kind: 'conflict' as const, message: `Invoice ${invoiceNumber(invoice.number)} is ${invoice.state}; only open or uncollectible invoices can be paid` };
      }
      const updated = await trx
        .updateTable('invoices')
        .set({ ...extra, state: 'paid', paid_at: at, next_attempt_at: null, overdue: 0, updated_at: at })
        .where('id', '=', id)
        .where('state', '=', invoice.state)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return { kind: 'conflict' as const, message: 'The invoice changed meanwhile; try again' };
      await record(trx, { at, account_id: invoice.account_id, invoice_id: id, subject: 'invoice', from_state: invoice.state, to_state: 'paid', reason });
      await this.releaseAccount(trx, invoice.account_id, at, `invoice ${invoiceNumber(invoice.number)} paid`);
      return { kind: 'ok' as const, value: id };
    });
    return changed.kind === 'ok' ? this.reader.invoice(id) : changed;
  }

  /** The operator marks an invoice paid (money arrived outside the gateway, or the manual gateway). */
  markPaid(id: string, reason?: string): Promise<Result<InvoiceView>> {
    return this.pay(id, this.o.clock.now(), reason?.trim() || 'marked paid by the operator');
  }

  /**
   * A payment the gateway reports (Stripe's payment_intent.succeeded) settles the invoice it names,
   * but only when it is that invoice's money: the amount received, the currency and (when the account
   * has a customer at the gateway) the customer must be the invoice's. The metadata that names the
   * invoice is only a label anyone able to create a payment can write; a 1-cent payment in another
   * currency from another customer naming the invoice must not settle it. A mismatch leaves the
   * invoice as it is, is recorded with it (a `charge` → `mismatch` event, once per payment and
   * difference) and logged as a warning; the caller still acknowledges the event (docs/billing.md).
   */
  async paidByGateway(id: string, payment: GatewayPayment): Promise<Result<InvoiceView> | { kind: 'mismatch'; message: string }> {
    const invoice = await this.kysely.selectFrom('invoices').select(['account_id', 'number', 'total_minor', 'currency']).where('id', '=', id).executeTakeFirst();
    if (!invoice) return { kind: 'not_found', message: `No invoice with id ${JSON.stringify(id.slice(0, 60))}` };
    const account = await this.o.accounts.find(invoice.account_id);
    const differences = paymentDifferences(payment, { amountMinor: Number(invoice.total_minor), currency: invoice.currency, customer: account?.gateway_customer ?? null });
    if (differences.length === 0) {
      return this.pay(id, this.o.clock.now(), `${this.o.gateway.name} reports payment ${payment.reference}`, { gateway_ref: payment.reference });
    }
    const number = invoiceNumber(invoice.number);
    const reason = `${this.o.gateway.name} reports payment ${clip(payment.reference)} naming invoice ${number}, not settled: ${differences.join('; ')}`.slice(0, 500);
    const at = this.o.clock.now();
    // Stripe may deliver one event more than once: one record per payment and difference.
    const recorded = await this.kysely.transaction().execute(async (trx) => {
      const seen = await trx.selectFrom('billing_events').select('id').where('invoice_id', '=', id).where('subject', '=', 'charge').where('to_state', '=', 'mismatch').where('reason', '=', reason).executeTakeFirst();
      if (seen) return false;
      await record(trx, { at, account_id: invoice.account_id, invoice_id: id, subject: 'charge', from_state: null, to_state: 'mismatch', reason });
      return true;
    });
    // Ids and amounts only: nothing here is a secret (the event's signature and the keys never reach this far).
    this.o.logger.warn({ invoiceId: id, invoiceNumber: number, payment: clip(payment.reference), differences, repeated: !recorded }, 'gateway payment does not match its invoice; not settled');
    return { kind: 'mismatch', message: reason };
  }

  /** A failure the gateway reports later (Stripe's payment_intent.payment_failed): recorded with the invoice; dunning continues on its schedule. */
  async failedAtGateway(id: string, reference: string, message: string): Promise<Result<null>> {
    const invoice = await this.kysely.selectFrom('invoices').select(['account_id']).where('id', '=', id).executeTakeFirst();
    if (!invoice) return { kind: 'not_found', message: `No invoice with id ${JSON.stringify(id.slice(0, 60))}` };
    await this.kysely.transaction().execute((trx) =>
      record(trx, { at: this.o.clock.now(), account_id: invoice.account_id, invoice_id: id, subject: 'charge', from_state: null, to_state: 'failed', reason: `${this.o.gateway.name} reports ${reference} failed: ${message}`.slice(0, 500) }),
    );
    return { kind: 'ok', value: null };
  }

  /** void (a mistake: draft or open) or uncollectible (written off: open); either releases the account. */
  async close(id: string, to: 'void' | 'uncollectible', reason?: string): Promise<Result<InvoiceView>> {
    const at = this.o.clock.now();
    const from: InvoiceState[] = to === 'void' ? ['draft', 'open'] : ['open'];
    const why = reason?.trim() || `marked ${to} by the operator`;
    const changed = await rolledBackOnConflict(this.kysely, async (trx): Promise<Result<null>> => {
      const invoice = await this.dialect.invoiceForUpdate(trx, id);
      if (!invoice) return { kind: 'not_found' as const, message: `No invoice with id ${JSON.stringify(id.slice(0, 60))}` };
      if (!from.includes(invoice.state)) {
        return { kind: 'conflict' as const, message: `Invoice ${invoice.number === null ? invoice.id : invoiceNumber(invoice.number)} is ${invoice.state}; only ${from.join(' or ')} invoices can be made ${to}` };
      }
      // An issued invoice is cancelled by a credit note, never by changing it.
      if (to === 'void' && invoice.state === 'open') {
        const note = await writeCreditNote(trx, invoice, null, why, at);
        if (note.kind !== 'ok') return note;
      }
      await this.closeIn(trx, invoice, to, why, at);
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
    return rolledBackOnConflict(this.kysely, async (trx): Promise<Result<CreditNoteView>> => {
      const invoice = await this.dialect.invoiceForUpdate(trx, id);
      if (!invoice) return { kind: 'not_found', message: `No invoice with id ${JSON.stringify(id.slice(0, 60))}` };
      const parsed = amount === undefined ? null : parseAmount(amount, invoice.currency, 'amount');
      if (parsed && !parsed.ok) return { kind: 'invalid', message: parsed.message };
      const amountMinor = parsed ? parsed.value : null;
      const name = invoice.number === null ? invoice.id : invoiceNumber(invoice.number);
      if (invoice.state !== 'open' && invoice.state !== 'paid') {
        return { kind: 'conflict', message: `Invoice ${name} is ${invoice.state}; only open or paid invoices can be credited` };
      }
      const full = invoice.state === 'open';
      if (full && amountMinor !== null && amountMinor !== (await creditable(trx, invoice)).net) {
        return { kind: 'conflict', message: `Invoice ${name} is open: it is credited in full (then a correct one is issued); a part can be credited once it is paid` };
      }
      const note = await writeCreditNote(trx, invoice, full ? null : amountMinor, reason, at);
      if (note.kind !== 'ok') return note;
      if (full) await this.closeIn(trx, invoice, 'void', `credited in full by ${note.value.number}: ${reason}`, at);
      return note;
    });
  }

  /** Closes `invoice` inside `trx`; throws Conflict (rolling the transaction back) when it changed meanwhile. */
  private async closeIn(trx: Tx, invoice: InvoicesTable, to: 'void' | 'uncollectible', reason: string, at: number): Promise<void> {
    const updated = await trx
      .updateTable('invoices')
      .set({ state: to, next_attempt_at: null, overdue: 0, updated_at: at })
      .where('id', '=', invoice.id)
      .where('state', '=', invoice.state)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) throw new Conflict('The invoice changed meanwhile; try again');
    await record(trx, { at, account_id: invoice.account_id, invoice_id: invoice.id, subject: 'invoice', from_state: invoice.state, to_state: to, reason });
    await this.releaseAccount(trx, invoice.account_id, at, `invoice ${invoice.number === null ? invoice.id : invoiceNumber(invoice.number)} ${to}`);
  }

  /** Past due → active once no open invoice of the account is overdue. */
  private async releaseAccount(trx: Tx, accountId: string, at: number, reason: string): Promise<void> {
    const holding = await trx.selectFrom('invoices').select('id').where('account_id', '=', accountId).where('state', '=', 'open').where('overdue', '=', 1).executeTakeFirst();
    if (!holding) await this.moveAccount(trx, accountId, 'past_due', 'active', at, reason);
  }

  /** Moves the subscription from `from` to `to` (only from it) and records why; true when it moved. */
  private async moveAccount(trx: Tx, accountId: string, from: BillingStatus, to: BillingStatus, at: number, reason: string): Promise<boolean> {
    const result = await trx.executeQuery(this.o.accounts.billingStatusQuery(accountId, from, to, at));
    if (Number(result.numAffectedRows ?? 0) !== 1) return false;
    await record(trx, { at, account_id: accountId, invoice_id: null, subject: 'account', from_state: from, to_state: to, reason });
    return true;
  }
}

/** A change that lost a race: thrown inside a transaction so that nothing of it is kept. */
class Conflict extends Error {}

/** `work` in one transaction; a Conflict it throws rolls everything back and is answered as a conflict. */
async function rolledBackOnConflict<T>(kysely: Kysely<DatabaseSchema>, work: (trx: Tx) => Promise<Result<T>>): Promise<Result<T>> {
  try {
    return await kysely.transaction().execute(work);
  } catch (error) {
    if (error instanceof Conflict) return { kind: 'conflict', message: error.message };
    throw error;
  }
}

/** What the gateway says was paid (Stripe's PaymentIntent): read from its event, compared with the invoice. */
export interface GatewayPayment {
  /** The gateway's id for the payment (pi_…). */
  reference: string;
  /** Minor units received (Stripe's `amount_received`, else `amount`); null when the event has none. */
  amountMinor: number | null;
  /** ISO 4217, any case; null when absent. */
  currency: string | null;
  /** The gateway's customer who paid (cus_…); null when none. */
  customer: string | null;
}

/** How a reported payment differs from the invoice, in words for the operator; empty when it is the invoice's money. */
export function paymentDifferences(payment: GatewayPayment, expected: { amountMinor: number; currency: string; customer: string | null }): string[] {
  const differences: string[] = [];
  // Exactly the total: less is not the invoice paid, more is a payment for something else.
  if (payment.amountMinor !== expected.amountMinor) differences.push(`amount ${payment.amountMinor ?? 'missing'} (expected ${expected.amountMinor}, minor units)`);
  if (payment.currency?.toUpperCase() !== expected.currency.toUpperCase()) differences.push(`currency ${clip(payment.currency ?? 'missing')} (expected ${expected.currency})`);
  // An account without a gateway customer has nobody to compare with: amount and currency decide.
  if (expected.customer !== null && payment.customer !== expected.customer) differences.push(`customer ${clip(payment.customer ?? 'none')} (expected ${expected.customer})`);
  return differences;
}

/** Values from an event, shortened before they reach a row or a log line. */
const clip = (text: string): string => (text.length > 60 ? `${text.slice(0, 60)}…` : text);
