// Invoicing and charging (docs/billing.md). One periodic job on the service clock does, in order:
//   1. closes each calendar month once its grace period has passed: one overage invoice per account
//      with billed overage in it (a line per plan that priced it);
//   2. issues the plan fee of each active account's current 30-day window, in advance;
//   3. opens the drafts: each takes the next invoice number in the same transaction that opens it,
//      so numbers have no gaps, and a crash leaves drafts the next run opens;
//   4. charges what is due through the payment gateway, retrying declines on the dunning schedule;
//      when the last retry fails the invoice is overdue and the account past due (402) until it is
//      paid or voided.
// Invoices are unique per account, kind and period (a unique key, inserted with ON CONFLICT DO
// NOTHING inside the transaction that writes their lines), so a second run, a run on another
// process or a run after a crash stores nothing twice. Every state change is a billing_events row
// written in the same transaction as the change.
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { AccountsService } from '../accounts/index.js';
import type { Result } from '../result.js';
import { effectivePlan } from '../accounts/index.js';
import { DAY, HOUR, iso, MINUTE, type Clock } from '../clock.js';
import type { BillingEventsTable, BillingStatus, Database, DatabaseSchema, InvoicesTable } from '../db/index.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import { billableOverage, windowAt } from '../metering/index.js';
import { monthKey, monthName, monthStart, nextMonth, previousMonth } from './calendar.js';
import type { ChargeOutcome, PaymentGateway } from './gateway.js';
import type { InvoiceKind, InvoiceLineView, InvoiceState, InvoiceView } from './invoice.js';
import { formatAmount, formatUnitPrice, lineTotal, MICRO } from './money.js';
import type { PlansService } from './plans.js';

export interface BillingOptions {
  /** How long after midnight on the 1st a month is closed, so requests in flight at midnight land in it. */
  graceMs: number;
  /** Retries after a declined first charge, as delays from the invoice's opening (default 1, 3 and 5 days). */
  retryDelaysMs: number[];
}

/** A charge that did not reach the gateway's answer (outage) is tried again this much later, as the same attempt. */
const UNAVAILABLE_RETRY_MS = HOUR;
/** A claimed charge whose process died is claimed again after this long (same attempt, same idempotency key). */
const CHARGE_LEASE_MS = 15 * MINUTE;
/** Invoices written or opened per transaction: bounded transactions, a bounded stall of other writers. */
const BATCH = 200;
/** Months a run catches up on after a long stop (older ones: `invoices run --month`). */
const MAX_CATCH_UP = 24;

export interface BillingReport {
  monthsClosed: string[];
  overageInvoices: number;
  feeInvoices: number;
  opened: number;
  charged: { succeeded: number; declined: number; unavailable: number };
  pastDue: number;
  /** Ended between steps because the process is shutting down. */
  stopped?: boolean;
}

interface Draft {
  accountId: string;
  kind: InvoiceKind;
  periodStart: number;
  periodEnd: number;
  currency: string;
  lines: { planId: string; description: string; quantity: number; unitPriceMicroMinor: number; amountMinor: number }[];
  reason: string;
}

type Tx = Transaction<DatabaseSchema>;
type Event = Omit<BillingEventsTable, 'id'>;

export class BillingService {
  constructor(
    private readonly o: {
      db: Database;
      clock: Clock;
      accounts: AccountsService;
      plans: PlansService;
      gateway: PaymentGateway;
      logger: Logger;
      options: BillingOptions;
    },
  ) {}

  private get kysely(): Kysely<DatabaseSchema> {
    return this.o.db.kysely;
  }

  private get options(): BillingOptions {
    return this.o.options;
  }

  get gatewayName(): string {
    return this.o.gateway.name;
  }

  /** The periodic job: everything due as of `at` (the clock's time when the run fell due). */
  /**
   * `stopping`: the process is shutting down; the run ends between its steps (each is safe to run
   * again, and the next run does what is left).
   */
  async run(at: number, stopping?: AbortSignal): Promise<BillingReport> {
    const report: BillingReport = {
      monthsClosed: [],
      overageInvoices: 0,
      feeInvoices: 0,
      opened: 0,
      charged: { succeeded: 0, declined: 0, unavailable: 0 },
      pastDue: 0,
    };
    const stop = () => (stopping?.aborted ? ((report.stopped = true), true) : false);
    for (const period of await this.monthsToClose(at)) {
      if (stop()) return report;
      report.overageInvoices += await this.closeMonth(period, at);
      report.monthsClosed.push(monthKey(period));
    }
    if (stop()) return report;
    report.feeInvoices = await this.issueFees(at);
    if (stop()) return report;
    report.opened = await this.openDrafts(at);
    if (stop()) return report;
    await this.chargeDue(at, report);
    return report;
  }

  /** The months whose grace period has passed and that no run has finished, oldest first. */
  private async monthsToClose(at: number): Promise<number[]> {
    const current = monthStart(at);
    // The month just ended can be closed once its grace has passed; until then, the one before it.
    const last = at >= current + this.options.graceMs ? previousMonth(current) : previousMonth(previousMonth(current));
    const done = await this.kysely.selectFrom('billing_runs').select((eb) => eb.fn.max('period_start').as('latest')).where('finished_at', 'is not', null).executeTakeFirst();
    const first = done?.latest == null ? last : nextMonth(Number(done.latest));
    const months: number[] = [];
    for (let m = Math.max(first, monthsBefore(last, MAX_CATCH_UP - 1)); m <= last; m = nextMonth(m)) months.push(m);
    return months;
  }

  /** The operator runs a month's invoicing again: what is missing is written and opened, nothing twice. */
  async rerunMonth(period: number, at: number): Promise<Result<{ month: string; created: number; opened: number }>> {
    if (at < nextMonth(period) + this.options.graceMs) {
      return { kind: 'invalid', message: `month: ${monthKey(period)} can be invoiced from ${iso(nextMonth(period) + this.options.graceMs)} (its end and the grace period)` };
    }
    const created = await this.closeMonth(period, at);
    return { kind: 'ok', value: { month: monthKey(period), created, opened: await this.openDrafts(at) } };
  }

  /**
   * Writes the overage invoices of the month starting at `period` (idempotent: run it again, or
   * on another process, and nothing is written twice); resolves with how many it wrote now.
   */
  async closeMonth(period: number, at: number): Promise<number> {
    const end = nextMonth(period);
    await this.kysely.insertInto('billing_runs').values({ period_start: period, started_at: at, finished_at: null, invoices: 0 }).onConflict((oc) => oc.column('period_start').doNothing()).execute();
    const rows = await billableOverage(this.o.db, period, end);
    const drafts = new Map<string, Draft>();
    const plans = new PlanCache(this.o.plans);
    for (const row of rows) {
      const plan = await plans.get(row.plan_id!);
      if (!plan) continue;
      const requests = Number(row.requests);
      const draft = drafts.get(row.account_id) ?? {
        accountId: row.account_id,
        kind: 'overage' as const,
        periodStart: period,
        periodEnd: end,
        currency: plan.currency,
        lines: [],
        reason: `overage of ${monthName(period)}`,
      };
      draft.lines.push({
        planId: plan.id,
        description: `Requests past the allowance in ${monthName(period)}, plan ${plan.name}`,
        quantity: requests,
        unitPriceMicroMinor: plan.overagePriceMicroMinor,
        amountMinor: lineTotal(requests, plan.overagePriceMicroMinor),
      });
      drafts.set(row.account_id, draft);
    }
    const written = await this.writeDrafts([...drafts.values()].filter((d) => total(d) > 0), at);
    await this.kysely
      .updateTable('billing_runs')
      .set((eb) => ({ finished_at: at, invoices: eb('invoices', '+', written) }))
      .where('period_start', '=', period)
      .execute();
    return written;
  }

  /** The plan fee of each active account's current window, billed at the window's start. */
  private async issueFees(at: number): Promise<number> {
    const issued = await this.kysely
      .selectFrom('invoices')
      .select(['account_id', 'period_start'])
      .where('kind', '=', 'fee')
      .where('period_start', '>', at - 31 * DAY)
      .execute();
    const have = new Set(issued.map((r) => `${r.account_id} ${Number(r.period_start)}`));
    const plans = new PlanCache(this.o.plans);
    const drafts: Draft[] = [];
    for (const account of await this.o.accounts.listAccounts()) {
      if (account.unlimited === 1 || account.disabled === 1 || account.billing_status !== 'active') continue;
      const window = windowAt(account.window_anchor, at);
      if (have.has(`${account.id} ${window.start}`)) continue;
      const planId = effectivePlan(account, window.start).planId;
      const plan = planId === null ? undefined : await plans.get(planId);
      if (!plan || plan.monthlyFeeMinor === 0) continue;
      drafts.push({
        accountId: account.id,
        kind: 'fee',
        periodStart: window.start,
        periodEnd: window.end,
        currency: plan.currency,
        lines: [
          {
            planId: plan.id,
            description: `Plan ${plan.name}, 30-day window ${iso(window.start).slice(0, 10)} to ${iso(window.end).slice(0, 10)}`,
            quantity: 1,
            unitPriceMicroMinor: plan.monthlyFeeMinor * MICRO,
            amountMinor: plan.monthlyFeeMinor,
          },
        ],
        reason: `plan fee of the window starting ${iso(window.start)}`,
      });
    }
    return this.writeDrafts(drafts, at);
  }

  /** Inserts drafts that do not exist yet, each with its lines and its record, in bounded transactions. */
  private async writeDrafts(drafts: Draft[], at: number): Promise<number> {
    // One order on every process: two runs at once wait on each other's keys, never deadlock.
    drafts.sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0));
    let written = 0;
    for (let i = 0; i < drafts.length; i += BATCH) {
      written += await this.kysely.transaction().execute(async (trx) => {
        let count = 0;
        for (const draft of drafts.slice(i, i + BATCH)) {
          const id = newId('inv');
          const inserted = await trx
            .insertInto('invoices')
            .values({
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
            })
            .onConflict((oc) => oc.columns(['account_id', 'kind', 'period_start']).doNothing())
            .returning('id')
            .executeTakeFirst();
          if (!inserted) continue;
          await trx
            .insertInto('invoice_lines')
            .values(
              draft.lines.map((line, n) => ({
                invoice_id: id,
                line: n + 1,
                plan_id: line.planId,
                description: line.description,
                quantity: line.quantity,
                unit_price_micro_minor: line.unitPriceMicroMinor,
                amount_minor: line.amountMinor,
              })),
            )
            .execute();
          await record(trx, { at, account_id: draft.accountId, invoice_id: id, subject: 'invoice', from_state: null, to_state: 'draft', reason: draft.reason });
          count++;
        }
        return count;
      });
    }
    return written;
  }

  /** Opens every draft: the next number, then `open`, in one transaction per batch. */
  private async openDrafts(at: number): Promise<number> {
    const postgres = this.o.db.kind === 'postgres';
    let opened = 0;
    for (;;) {
      const count = await this.kysely.transaction().execute(async (trx) => {
        let query = trx.selectFrom('invoices').select(['id', 'account_id']).where('state', '=', 'draft').orderBy('created_at').orderBy('id').limit(BATCH);
        // Another process opening drafts at once takes other rows; both draw numbers from one counter row.
        if (postgres) query = query.forUpdate().skipLocked();
        const drafts = await query.execute();
        if (drafts.length === 0) return 0;
        const counter = await trx
          .updateTable('invoice_numbers')
          .set((eb) => ({ last: eb('last', '+', drafts.length) }))
          .where('id', '=', 'invoice')
          .returning('last')
          .executeTakeFirstOrThrow();
        let number = Number(counter.last) - drafts.length;
        for (const draft of drafts) {
          await trx
            .updateTable('invoices')
            // Due at once; only a charging gateway acts on it (the CLI, on the manual gateway, may open invoices the service charges).
            .set({ number: ++number, state: 'open', finalized_at: at, next_attempt_at: at, updated_at: at })
            .where('id', '=', draft.id)
            .execute();
          await record(trx, { at, account_id: draft.account_id, invoice_id: draft.id, subject: 'invoice', from_state: 'draft', to_state: 'open', reason: `opened as ${invoiceNumber(number)}` });
        }
        return drafts.length;
      });
      opened += count;
      if (count < BATCH) return opened;
    }
  }

  /** Charges every open invoice whose attempt is due, one at a time (each claimed first, so no two processes charge one invoice). */
  private async chargeDue(at: number, report: BillingReport): Promise<void> {
    if (!this.o.gateway.charges) return;
    const due = await this.kysely
      .selectFrom('invoices')
      .select(['id', 'next_attempt_at'])
      .where('state', '=', 'open')
      .where('next_attempt_at', '<=', at)
      .orderBy('next_attempt_at')
      .orderBy('id')
      .execute();
    for (const row of due) {
      const claimed = await this.kysely
        .updateTable('invoices')
        .set({ next_attempt_at: at + CHARGE_LEASE_MS })
        .where('id', '=', row.id)
        .where('state', '=', 'open')
        .where('next_attempt_at', '=', row.next_attempt_at)
        .returningAll()
        .executeTakeFirst();
      if (!claimed) continue;
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
      const delays = this.options.retryDelaysMs;
      const finalAttempt = attempt > delays.length;
      const opened = Number(invoice.finalized_at ?? at);
      const next = finalAttempt ? null : Math.max(at, opened + delays[attempt - 1]!);
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
      const invoice = await trx.selectFrom('invoices').selectAll().where('id', '=', id).executeTakeFirst();
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
    return changed.kind === 'ok' ? this.invoice(id) : changed;
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
    const changed = await this.kysely.transaction().execute(async (trx) => {
      const invoice = await trx.selectFrom('invoices').selectAll().where('id', '=', id).executeTakeFirst();
      if (!invoice) return { kind: 'not_found' as const, message: `No invoice with id ${JSON.stringify(id.slice(0, 60))}` };
      if (!from.includes(invoice.state)) {
        return { kind: 'conflict' as const, message: `Invoice ${invoice.number === null ? invoice.id : invoiceNumber(invoice.number)} is ${invoice.state}; only ${from.join(' or ')} invoices can be made ${to}` };
      }
      const updated = await trx
        .updateTable('invoices')
        .set({ state: to, next_attempt_at: null, overdue: 0, updated_at: at })
        .where('id', '=', id)
        .where('state', '=', invoice.state)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return { kind: 'conflict' as const, message: 'The invoice changed meanwhile; try again' };
      await record(trx, { at, account_id: invoice.account_id, invoice_id: id, subject: 'invoice', from_state: invoice.state, to_state: to, reason: reason?.trim() || `marked ${to} by the operator` });
      await this.releaseAccount(trx, invoice.account_id, at, `invoice ${invoice.number === null ? invoice.id : invoiceNumber(invoice.number)} ${to}`);
      return { kind: 'ok' as const };
    });
    return changed.kind === 'ok' ? this.invoice(id) : changed;
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

  /** One invoice as its readers see it; `accountId` limits it to that account (the customer's view). */
  async invoice(id: string, accountId?: string): Promise<Result<InvoiceView>> {
    let query = this.kysely.selectFrom('invoices').selectAll().where('id', '=', id);
    if (accountId !== undefined) query = query.where('account_id', '=', accountId).where('state', '!=', 'draft');
    const row = await query.executeTakeFirst();
    if (!row) return { kind: 'not_found', message: `No invoice with id ${JSON.stringify(id.slice(0, 60))}` };
    return { kind: 'ok', value: (await this.views([row]))[0]! };
  }

  /** Newest first. Customers (with `accountId`) never see drafts. `before`: an invoice id, for the next page. */
  async list(filter: { accountId?: string; customer?: boolean; state?: InvoiceState; kind?: InvoiceKind; period?: number; limit: number; before?: string }): Promise<Result<InvoiceView[]>> {
    let query = this.kysely.selectFrom('invoices').selectAll();
    if (filter.accountId !== undefined) query = query.where('account_id', '=', filter.accountId);
    if (filter.customer) query = query.where('state', '!=', 'draft');
    if (filter.state !== undefined) query = query.where('state', '=', filter.state);
    if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
    if (filter.period !== undefined) query = query.where('period_start', '>=', filter.period).where('period_start', '<', nextMonth(filter.period));
    if (filter.before !== undefined) {
      const cursor = await this.kysely.selectFrom('invoices').select(['created_at', 'id']).where('id', '=', filter.before).executeTakeFirst();
      if (!cursor) return { kind: 'invalid', message: `before: no invoice with id ${JSON.stringify(filter.before.slice(0, 60))}` };
      const createdAt = Number(cursor.created_at);
      query = query.where((eb) => eb.or([eb('created_at', '<', createdAt), eb.and([eb('created_at', '=', createdAt), eb('id', '<', cursor.id)])]));
    }
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
    return { kind: 'ok', value: await this.views(rows) };
  }

  /** Every recorded change of an invoice (its states and charge attempts), oldest first. */
  async history(id: string): Promise<{ at: string; subject: string; from: string | null; to: string; reason: string }[]> {
    const rows = await this.kysely.selectFrom('billing_events').selectAll().where('invoice_id', '=', id).orderBy('id').execute();
    return rows.map(eventView);
  }

  /** An account's subscription changes (past due and back), oldest first. */
  async accountHistory(accountId: string): Promise<{ at: string; subject: string; from: string | null; to: string; reason: string }[]> {
    const rows = await this.kysely.selectFrom('billing_events').selectAll().where('account_id', '=', accountId).where('subject', '=', 'account').orderBy('id').execute();
    return rows.map(eventView);
  }

  private async views(rows: InvoicesTable[]): Promise<InvoiceView[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const lines = await this.kysely.selectFrom('invoice_lines').selectAll().where('invoice_id', 'in', ids).orderBy('invoice_id').orderBy('line').execute();
    const accounts = new Map<string, { slug: string; name: string }>();
    for (const accountId of new Set(rows.map((r) => r.account_id))) {
      const account = await this.o.accounts.find(accountId);
      accounts.set(accountId, { slug: account?.slug ?? '', name: account?.name ?? '' });
    }
    return rows.map((row) => {
      const account = accounts.get(row.account_id)!;
      return {
        id: row.id,
        number: row.number === null ? null : invoiceNumber(row.number),
        accountId: row.account_id,
        accountSlug: account.slug,
        accountName: account.name,
        kind: row.kind,
        state: row.state,
        currency: row.currency,
        total: formatAmount(Number(row.total_minor), row.currency),
        totalMinor: Number(row.total_minor),
        periodStart: iso(Number(row.period_start)),
        periodEnd: iso(Number(row.period_end)),
        createdAt: iso(Number(row.created_at)),
        finalizedAt: row.finalized_at === null ? null : iso(Number(row.finalized_at)),
        paidAt: row.paid_at === null ? null : iso(Number(row.paid_at)),
        nextAttemptAt: row.next_attempt_at === null || row.state !== 'open' || !this.o.gateway.charges ? null : iso(Number(row.next_attempt_at)),
        attempts: row.attempts,
        lines: lines
          .filter((l) => l.invoice_id === row.id)
          .map((l): InvoiceLineView => ({
            description: l.description,
            planId: l.plan_id,
            quantity: Number(l.quantity),
            unitPrice: row.kind === 'fee' ? formatAmount(Number(l.unit_price_micro_minor) / MICRO, row.currency) : formatUnitPrice(Number(l.unit_price_micro_minor), row.currency),
            amount: formatAmount(Number(l.amount_minor), row.currency),
            amountMinor: Number(l.amount_minor),
          })),
      };
    });
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

/** "FS-000042": what customers and operators see. */
export function invoiceNumber(number: number | null): string {
  return number === null ? 'draft' : `FS-${String(number).padStart(6, '0')}`;
}

const total = (draft: Draft): number => draft.lines.reduce((sum, line) => sum + line.amountMinor, 0);

const monthsBefore = (start: number, count: number): number => {
  let m = start;
  for (let i = 0; i < count; i++) m = previousMonth(m);
  return m;
};

async function record(trx: Tx, event: Event): Promise<void> {
  await trx.insertInto('billing_events').values(event).execute();
}

function eventView(row: Selectable<BillingEventsTable>) {
  return { at: iso(Number(row.at)), subject: row.subject, from: row.from_state, to: row.to_state, reason: row.reason };
}

/** Plans looked up once per run. */
class PlanCache {
  private readonly seen = new Map<string, Awaited<ReturnType<PlansService['find']>>>();
  constructor(private readonly plans: PlansService) {}
  async get(id: string) {
    if (!this.seen.has(id)) this.seen.set(id, await this.plans.find(id));
    return this.seen.get(id);
  }
}
