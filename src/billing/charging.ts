// Charging and dunning (docs/billing.md): what is due is charged through the payment gateway, one
// invoice at a time, each claimed first so no two processes charge it; a decline is retried on the
// dunning schedule, and when the last retry fails the invoice is overdue and the account past due
// (402) until it is paid or voided. Payments (charged, reported by the gateway, or marked by the
// operator) settle invoices and release the account (write-offs and credit notes: corrections.ts);
// each change is recorded in the transaction that makes it.
import { sql } from 'kysely';
import { LeasedRows, type LeaseShape } from '../leases/index.js';
import type { Result } from '../result.js';
import { iso, MINUTE } from '../clock.js';
import { afterDecline, UNAVAILABLE_RETRY_MS } from './dunning.js';
import type { InvoicesTable } from '../db/index.js';
import type { BillingDeps } from './deps.js';
import type { ChargeOutcome } from './gateway.js';
import { invoiceNumber, type InvoiceView } from './invoice.js';
import type { InvoiceReader } from './views.js';
import { clip, paymentDifferences, type GatewayPayment } from './payments.js';
import { moveAccount, releaseAccount } from './standing.js';
import type { BillingStore } from './store.js';

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
const CHARGES: LeaseShape = {
  table: 'invoices',
  key: ['id'],
  due: 'next_attempt_at',
  lease: null,
  waiting: sql`state = 'open'`,
  order: ['next_attempt_at', 'id'],
};

export class Charging {
  private readonly due: LeasedRows<InvoicesTable>;

  constructor(
    private readonly o: BillingDeps,
    private readonly reader: InvoiceReader,
    private readonly store: BillingStore,
  ) {
    this.due = new LeasedRows(o.db, CHARGES);
  }

  /** Open invoices whose charge is due and not claimed, and those claimed (being charged). */
  counts(at: number): Promise<{ due: number; held: number }> {
    return this.due.counts(at);
  }

  /** Charges every open invoice whose attempt is due, one at a time (each claimed first, so no two processes charge one invoice). */
  async chargeDue(at: number, report: ChargeTally): Promise<void> {
    if (!this.o.gateway.charges) return;
    // What is due as the run starts, each claimed in turn: an invoice declined now and due again at
    // once (its retry already late) waits for the next run rather than being charged twice in this one.
    for (const id of await this.store.dueCharges(at)) {
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
  private async settleCharge(
    invoice: InvoicesTable,
    attempt: number,
    outcome: ChargeOutcome,
    at: number,
  ): Promise<boolean> {
    const gateway = this.o.gateway.name;
    if (outcome.kind === 'succeeded') {
      await this.pay(invoice.id, at, `charged by ${gateway} (${outcome.reference}), attempt ${attempt}`, {
        attempts: attempt,
        gateway_ref: outcome.reference,
      });
      return false;
    }
    return this.store.transaction(async (tx) => {
      const base = {
        at,
        account_id: invoice.account_id,
        invoice_id: invoice.id,
        subject: 'charge' as const,
        from_state: null,
      };
      if (outcome.kind === 'unavailable') {
        await tx.setInvoiceIn(invoice.id, 'open', { next_attempt_at: at + UNAVAILABLE_RETRY_MS, updated_at: at });
        await tx.record({
          ...base,
          to_state: 'unavailable',
          reason:
            `${gateway} unavailable on attempt ${attempt} (not counted; tried again in 1 hour): ${outcome.message}`.slice(
              0,
              500,
            ),
        });
        return false;
      }
      const { next, final: finalAttempt } = afterDecline(
        attempt,
        Number(invoice.finalized_at ?? at),
        at,
        this.o.options.retryDelaysMs,
      );
      await tx.setInvoiceIn(invoice.id, 'open', {
        attempts: attempt,
        next_attempt_at: next,
        overdue: finalAttempt ? 1 : 0,
        gateway_ref: outcome.reference,
        updated_at: at,
      });
      await tx.record({
        ...base,
        to_state: 'declined',
        reason:
          `${gateway} declined attempt ${attempt} (${outcome.code}: ${outcome.message})${next === null ? '; no retries left' : `; next attempt ${iso(next)}`}`.slice(
            0,
            500,
          ),
      });
      if (!finalAttempt) return false;
      return moveAccount(
        tx,
        this.o.accounts,
        invoice.account_id,
        'active',
        'past_due',
        at,
        `invoice ${invoiceNumber(invoice.number)} unpaid after ${attempt} attempts`,
      );
    });
  }

  /** Marks an open (or uncollectible) invoice paid and lets its account go back to active if nothing else holds it past due. */
  private async pay(
    id: string,
    at: number,
    reason: string,
    extra: Partial<InvoicesTable> = {},
  ): Promise<Result<InvoiceView>> {
    const changed = await this.store.transaction(async (tx) => {
      const invoice = await tx.invoiceForUpdate(id);
      if (!invoice)
        return { kind: 'not_found' as const, message: `No invoice with id ${JSON.stringify(id.slice(0, 60))}` };
      if (invoice.state !== 'open' && invoice.state !== 'uncollectible') {
        return {
          kind: 'conflict' as const,
          message: `Invoice ${invoiceNumber(invoice.number)} is ${invoice.state}; only open or uncollectible invoices can be paid`,
        };
      }
      const updated = await tx.setInvoiceIn(id, invoice.state, {
        ...extra,
        state: 'paid',
        paid_at: at,
        next_attempt_at: null,
        overdue: 0,
        updated_at: at,
      });
      if (!updated) return { kind: 'conflict' as const, message: 'The invoice changed meanwhile; try again' };
      await tx.record({
        at,
        account_id: invoice.account_id,
        invoice_id: id,
        subject: 'invoice',
        from_state: invoice.state,
        to_state: 'paid',
        reason,
      });
      await releaseAccount(
        tx,
        this.o.accounts,
        invoice.account_id,
        at,
        `invoice ${invoiceNumber(invoice.number)} paid`,
      );
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
  async paidByGateway(
    id: string,
    payment: GatewayPayment,
  ): Promise<Result<InvoiceView> | { kind: 'mismatch'; message: string }> {
    const invoice = await this.store.invoice(id);
    if (!invoice) return { kind: 'not_found', message: `No invoice with id ${JSON.stringify(id.slice(0, 60))}` };
    const account = await this.o.accounts.find(invoice.account_id);
    const differences = paymentDifferences(payment, {
      amountMinor: Number(invoice.total_minor),
      currency: invoice.currency,
      customer: account?.gateway_customer ?? null,
    });
    if (differences.length === 0) {
      return this.pay(id, this.o.clock.now(), `${this.o.gateway.name} reports payment ${payment.reference}`, {
        gateway_ref: payment.reference,
      });
    }
    const number = invoiceNumber(invoice.number);
    const reason =
      `${this.o.gateway.name} reports payment ${clip(payment.reference)} naming invoice ${number}, not settled: ${differences.join('; ')}`.slice(
        0,
        500,
      );
    const at = this.o.clock.now();
    // Stripe may deliver one event more than once: one record per payment and difference.
    const event = {
      at,
      account_id: invoice.account_id,
      invoice_id: id,
      subject: 'charge' as const,
      from_state: null,
      to_state: 'mismatch',
      reason,
    };
    const recorded = await this.store.transaction(async (tx) => {
      if (await tx.recorded(event)) return false;
      await tx.record(event);
      return true;
    });
    // Ids and amounts only: nothing here is a secret (the event's signature and the keys never reach this far).
    this.o.logger.warn(
      { invoiceId: id, invoiceNumber: number, payment: clip(payment.reference), differences, repeated: !recorded },
      'gateway payment does not match its invoice; not settled',
    );
    return { kind: 'mismatch', message: reason };
  }

  /** A failure the gateway reports later (Stripe's payment_intent.payment_failed): recorded with the invoice; dunning continues on its schedule. */
  async failedAtGateway(id: string, reference: string, message: string): Promise<Result<null>> {
    const invoice = await this.store.invoice(id);
    if (!invoice) return { kind: 'not_found', message: `No invoice with id ${JSON.stringify(id.slice(0, 60))}` };
    await this.store.record({
      at: this.o.clock.now(),
      account_id: invoice.account_id,
      invoice_id: id,
      subject: 'charge',
      from_state: null,
      to_state: 'failed',
      reason: `${this.o.gateway.name} reports ${reference} failed: ${message}`.slice(0, 500),
    });
    return { kind: 'ok', value: null };
  }
}
