// Invoicing and charging (docs/billing.md). One periodic job on the service clock does, in order:
//   1. closes each calendar month once its grace period has passed: one overage invoice per account
//      with billed overage in it (a line per plan that priced it)            — closing.ts;
//   2. ends the subscriptions canceled at the end of their window        — cancellations.ts;
//      issues the plan fee of each active account's current 30-day window, in advance — fees.ts;
//   3. opens the drafts: each takes the next invoice number in the same transaction that opens it,
//      so numbers have no gaps, and a crash leaves drafts the next run opens — drafts.ts;
//   4. charges what is due through the payment gateway, retrying declines on the dunning schedule;
//      when the last retry fails the invoice is overdue and the account past due (402) until it is
//      paid or voided                                                         — charging.ts.
// Invoices are unique per account, kind and period, so a second run, a run on another process or a
// run after a crash stores nothing twice. Every state change is a billing_events row written in the
// same transaction as the change (store.ts). Readers see invoices through views.ts. Outside the job,
// an upgrade applies at once and its proration is invoiced at once (upgrades.ts). This class is
// the one face of those parts that routes, the CLI and the worker use.
import type { Result } from '../result.js';
import { monthKey } from './calendar.js';
import { Charging } from './charging.js';
import { Corrections } from './corrections.js';
import type { GatewayPayment } from './payments.js';
import { MonthClosing } from './closing.js';
import type { BillingDeps } from './deps.js';
import { Drafts } from './drafts.js';
import { FeeIssuing } from './fees.js';
import type { InvoiceKind, InvoiceState, InvoiceView } from './invoice.js';
import { InvoiceReader, type BillingEventView } from './views.js';
import { notifyBilling } from './notify.js';
import { endCanceled } from './cancellations.js';
import { CreditNotes, type CreditNoteView } from './credit-notes.js';
import { applyBuyerInput, type Buyer, type BuyerInput } from './parties.js';
import type { BuyerState } from './buyer.js';
import { BillingEmail } from './billing-email.js';
import { billingStore, type BillingStore } from './store.js';
import { Upgrades, type PlanChanged, type PlanChoice } from './upgrades.js';

export interface BillingReport {
  monthsClosed: string[];
  overageInvoices: number;
  feeInvoices: number;
  /** Subscriptions that ended with their window, as their customers asked. */
  canceled: number;
  opened: number;
  charged: { succeeded: number; declined: number; unavailable: number };
  pastDue: number;
  /** Ended between steps because the process is shutting down. */
  stopped?: boolean;
}

export class BillingService {
  private readonly drafts: Drafts;
  private readonly closing: MonthClosing;
  private readonly fees: FeeIssuing;
  private readonly charging: Charging;
  private readonly corrections: Corrections;
  private readonly reader: InvoiceReader;
  private readonly creditNotes: CreditNotes;
  private readonly store: BillingStore;
  private readonly upgrades: Upgrades;
  /** The customer's changes of the billing details, and the billing email's confirmation link. */
  readonly billingEmail: BillingEmail;

  constructor(private readonly o: BillingDeps) {
    this.store = billingStore(o.db);
    this.drafts = new Drafts(this.store, {
      seller: o.seller,
      charges: o.gateway.charges,
      namesQuery: (ids) => o.accounts.namesQuery(ids),
    });
    this.creditNotes = new CreditNotes(this.store);
    this.closing = new MonthClosing(o, this.store, this.drafts);
    this.fees = new FeeIssuing(o, this.store, this.drafts);
    this.reader = new InvoiceReader(o, this.store, this.creditNotes);
    this.charging = new Charging(o, this.reader, this.store);
    this.corrections = new Corrections(o, this.reader, this.store);
    this.billingEmail = new BillingEmail(o);
    this.upgrades = new Upgrades(o, this.store, this.drafts);
  }

  get gatewayName(): string {
    return this.o.gateway.name;
  }

  /** Charges due and charges in hand (the metrics' leased rows). */
  chargeCounts(): Promise<{ due: number; held: number }> {
    return this.charging.counts(this.o.clock.now());
  }

  /**
   * The periodic job: everything due as of `at` (the clock's time when the run fell due).
   * `stopping`: the process is shutting down; the run ends between its steps (each is safe to run
   * again, and the next run does what is left).
   */
  async run(at: number, stopping?: AbortSignal): Promise<BillingReport> {
    const report: BillingReport = {
      monthsClosed: [],
      overageInvoices: 0,
      feeInvoices: 0,
      canceled: 0,
      opened: 0,
      charged: { succeeded: 0, declined: 0, unavailable: 0 },
      pastDue: 0,
    };
    const stop = () => (stopping?.aborted ? ((report.stopped = true), true) : false);
    for (const period of await this.closing.monthsToClose(at)) {
      if (stop()) return report;
      report.overageInvoices += await this.closing.closeMonth(period, at);
      report.monthsClosed.push(monthKey(period));
    }
    if (stop()) return report;
    // Before the fees: a subscription that ends with its window is not billed the next one.
    report.canceled = await endCanceled(this.o.accounts, this.store, at);
    report.feeInvoices = await this.fees.issueFees(at);
    if (stop()) return report;
    report.opened = await this.drafts.open(at);
    if (stop()) return report;
    await this.charging.chargeDue(at, report);
    await this.notify(at);
    return report;
  }

  /** Mails what billing events of the last two days say and was not told yet (notify.ts); how many. */
  async notify(at: number): Promise<number> {
    const { notices } = this.o;
    if (!notices) return 0;
    return notifyBilling({ store: this.store, reader: this.reader, creditNotes: this.creditNotes, notices }, at).catch(
      (error: unknown) => {
        this.o.logger.error({ err: error }, 'billing notices could not be queued');
        return 0;
      },
    );
  }

  // Plan changes (upgrades.ts): an upgrade at once, prorated and invoiced; anything else from the next window.
  /** What choosing each of `planIds` would do now (the dashboard's notice: the same quote the change bills). */
  async planChoices(accountId: string, planIds: string[]): Promise<{ at: number; choices: Map<string, PlanChoice> }> {
    const at = this.o.clock.now();
    const choices = new Map<string, PlanChoice>();
    const account = await this.o.accounts.find(accountId);
    if (!account) return { at, choices };
    for (const id of planIds) {
      const choice = await this.upgrades.consider(account, id, at);
      if (choice.kind === 'ok') choices.set(id, choice.value);
    }
    return { at, choices };
  }

  /**
   * Changes the account's catalogue plan: an upgrade at once (billed, prorated from `quotedAt` when
   * the customer was shown that quote less than an hour ago), anything else by the accounts' rule;
   * `onlyNow` refuses a change that would wait (the operator's `"effective": "now"`).
   */
  async changePlan(
    accountId: string,
    planId: string,
    o: { quotedAt?: number; onlyNow?: boolean } = {},
  ): Promise<Result<PlanChanged>> {
    const at = this.o.clock.now();
    const changed = await this.upgrades.change(accountId, planId, { ...o, at });
    if (changed.kind === 'ok' && changed.value.invoiceId !== null) await this.notify(at);
    return changed;
  }

  // Closing months (closing.ts).
  rerunMonth(period: number, at: number): Promise<Result<{ month: string; created: number; opened: number }>> {
    return this.closing.rerunMonth(period, at);
  }

  closeMonth(period: number, at: number): Promise<number> {
    return this.closing.closeMonth(period, at);
  }

  // Payments (charging.ts).
  async markPaid(id: string, reason?: string): Promise<Result<InvoiceView>> {
    const paid = await this.charging.markPaid(id, reason);
    if (paid.kind === 'ok') await this.notify(this.o.clock.now());
    return paid;
  }

  async paidByGateway(
    id: string,
    payment: GatewayPayment,
  ): Promise<Result<InvoiceView> | { kind: 'mismatch'; message: string }> {
    const paid = await this.charging.paidByGateway(id, payment);
    if (paid.kind === 'ok') await this.notify(this.o.clock.now());
    return paid;
  }

  failedAtGateway(id: string, reference: string, message: string): Promise<Result<null>> {
    return this.charging.failedAtGateway(id, reference, message);
  }

  // Write-offs and credit notes (corrections.ts).
  /** Voids or writes off an invoice; voiding an open one writes its credit note, which is mailed. */
  async close(id: string, to: 'void' | 'uncollectible', reason?: string): Promise<Result<InvoiceView>> {
    const closed = await this.corrections.close(id, to, reason);
    if (closed.kind === 'ok') await this.notify(this.o.clock.now());
    return closed;
  }

  // `amount` is the net to credit as typed ("12.50"); absent, all that is left.
  async credit(id: string, input: { amount?: string; reason: string }): Promise<Result<CreditNoteView>> {
    const reason = input.reason.trim() || 'credited by the operator';
    if (reason.length > 500)
      return { kind: 'invalid', message: 'reason must be at most 500 characters (it is printed on the credit note)' };
    const note = await this.corrections.credit(id, input.amount, reason);
    if (note.kind === 'ok') await this.notify(this.o.clock.now());
    return note;
  }

  creditNote(id: string, accountId?: string): Promise<Result<CreditNoteView>> {
    return this.creditNotes.get(id, accountId);
  }

  // The buyer's billing details (buyer.ts); the customer's changes and the billing email's confirmation: billingEmail.
  buyer(accountId: string): Promise<BuyerState> {
    return this.o.buyers.get(accountId);
  }

  /** Whether `input` would be accepted, changing nothing. */
  async checkBuyer(accountId: string, input: BuyerInput): Promise<Result<Buyer>> {
    const applied = applyBuyerInput(await this.o.buyers.get(accountId), input);
    return applied.ok ? { kind: 'ok', value: applied.value } : { kind: 'invalid', message: applied.message };
  }

  /** The operator's change (API): a billing email it gives counts as confirmed (billing-email.ts). */
  setBuyer(accountId: string, input: BuyerInput, prefix = 'billing.'): Promise<Result<BuyerState>> {
    return this.o.buyers.set(accountId, input, prefix, { confirmsEmail: true });
  }

  // The read views (views.ts).
  invoice(id: string, accountId?: string): Promise<Result<InvoiceView>> {
    return this.reader.invoice(id, accountId);
  }

  list(filter: {
    accountId?: string;
    customer?: boolean;
    state?: InvoiceState;
    kind?: InvoiceKind;
    period?: number;
    limit: number;
    before?: string;
  }): Promise<Result<InvoiceView[]>> {
    return this.reader.list(filter);
  }

  history(id: string): Promise<BillingEventView[]> {
    return this.reader.history(id);
  }

  accountHistory(accountId: string): Promise<BillingEventView[]> {
    return this.reader.accountHistory(accountId);
  }
}
