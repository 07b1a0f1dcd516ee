// Upgrade now (docs/billing.md, "Upgrade now"): a customer on an active subscription who chooses a
// plan of the same currency with a higher fee gets it at once, inside the window in progress (its
// allowance for this window, what was used counting against it, its overage terms), and owes the
// difference of the two fees for the time left of the window (proration.ts), on an invoice of its
// own opened at once. Any other choice keeps the accounts' rule: it waits for the next window
// (docs/billing.md, "Subscriptions").
//
// One transaction holds the whole change: the account's plan (a statement that changes nothing
// when the row is no longer as it was read, so two upgrades at once bill once), the window's fee for
// the plan it started on when the job has not billed it yet (else the job, running after, would bill
// the new plan's whole fee on top of the proration), the upgrade's invoice and the record of it.
import type { Result } from '../result.js';
import { effectivePlan, type AccountRow } from '../accounts/index.js';
import { HOUR } from '../clock.js';
import { windowAt, type Window } from '../metering/index.js';
import type { BillingDeps } from './deps.js';
import { writeDraft, type Draft, type Drafts } from './drafts.js';
import { billsFees, feeDraft } from './fees.js';
import { formatAmount, MICRO } from './money.js';
import type { CatalogueTerms } from './plans.js';
import { prorate, timeLeftWords, upgradeDescription } from './proration.js';
import type { BillingStore } from './store.js';
import { decideTax, ratePercent, taxOn } from './tax.js';

/**
 * How long a quote the customer was shown is billed as shown (Stripe's `proration_date`): the
 * proration counts from the time of the quote, so the amount confirmed is the amount invoiced. An
 * older quote is priced again at the change; that is never more (less of the window is left).
 */
export const QUOTE_MS = HOUR;

export interface UpgradeQuote {
  from: CatalogueTerms;
  to: CatalogueTerms;
  /** The instant the proration counts from: the change, or a quote shown less than QUOTE_MS before it. */
  at: number;
  window: Window;
  leftMs: number;
  /** "18 days 6 h". */
  left: string;
  currency: string;
  netMinor: number;
  taxMinor: number;
  /** What the invoice will ask for: the net and its VAT, as the invoice computes them when it opens. */
  totalMinor: number;
  /** "19" when VAT is charged, else null. */
  taxPercent: string | null;
  net: string;
  total: string;
}

export type PlanChoice =
  | { kind: 'upgrade'; quote: UpgradeQuote }
  /** It waits for the next window, starting at `from`: a plan not dearer, or a subscription not active. */
  | { kind: 'next_window'; from: number }
  /** The plan of the window in progress again: a pending change is dropped. */
  | { kind: 'current' }
  /** No running subscription: the plan starts at once, unprorated (the first subscription's rule). */
  | { kind: 'start' };

export interface PlanChanged {
  /** What happened: the choice's kind. */
  effective: PlanChoice['kind'];
  /** The invoice of the prorated difference; null when nothing is owed (or no upgrade). */
  invoiceId: string | null;
  quote: UpgradeQuote | null;
}

/** Thrown to roll the upgrade back when its invoice's key is taken (an upgrade billed from the same instant). */
class Taken extends Error {}

export class Upgrades {
  constructor(
    private readonly o: BillingDeps,
    private readonly store: BillingStore,
    private readonly drafts: Drafts,
  ) {}

  /** What choosing `planId` does for `account` at `at`: the dashboard's notice and the bill both come from here. */
  async consider(account: AccountRow, planId: string, at: number, quotedAt?: number): Promise<Result<PlanChoice>> {
    const to = await this.o.plans.find(planId);
    if (!to)
      return {
        kind: 'invalid',
        message: `planId: no plan with id ${JSON.stringify(planId.slice(0, 60))} in the catalogue`,
      };
    const window = windowAt(account.window_anchor, at);
    const current = effectivePlan(account, window.start);
    const running =
      current.included !== null && (account.billing_status === 'active' || account.billing_status === 'past_due');
    if (!running) return ok({ kind: 'start' });
    if (current.planId === to.id) return ok({ kind: 'current' });
    const from = current.planId === null ? undefined : await this.o.plans.find(current.planId);
    if (!from || !billsFees(account) || from.currency !== to.currency || to.monthlyFeeMinor <= from.monthlyFeeMinor)
      return ok({ kind: 'next_window', from: window.end });
    return ok({ kind: 'upgrade', quote: await this.quote(account.id, from, to, window, at, quotedAt) });
  }

  private async quote(
    accountId: string,
    from: CatalogueTerms,
    to: CatalogueTerms,
    window: Window,
    now: number,
    quotedAt?: number,
  ): Promise<UpgradeQuote> {
    const fresh = quotedAt !== undefined && quotedAt <= now && now - quotedAt <= QUOTE_MS && quotedAt >= window.start;
    const at = fresh ? quotedAt : now;
    const leftMs = window.end - at;
    const netMinor = prorate(from.monthlyFeeMinor, to.monthlyFeeMinor, leftMs, window.end - window.start);
    // The tax as the invoice will state it when it opens, now (issue.ts): the seller's and buyer's countries.
    const { seller } = this.o;
    const buyer = await this.o.buyers.get(accountId);
    const tax = decideTax(seller, buyer, now);
    const taxMinor = taxOn(netMinor, tax.rateBp);
    const money = (minor: number) => formatAmount(minor, to.currency);
    return {
      from,
      to,
      at,
      window,
      leftMs,
      left: timeLeftWords(leftMs),
      currency: to.currency,
      netMinor,
      taxMinor,
      totalMinor: netMinor + taxMinor,
      taxPercent: tax.rateBp > 0 ? ratePercent(tax.rateBp) : null,
      net: money(netMinor),
      total: money(netMinor + taxMinor),
    };
  }

  /**
   * Changes the plan: an upgrade at once, billed; anything else by the accounts' rule (from the next
   * window). `onlyNow`: the operator asked for the change to apply now, so a change that would wait
   * is refused instead. A change that lost a race reads the account again once.
   */
  async change(
    accountId: string,
    planId: string,
    o: { at: number; quotedAt?: number; onlyNow?: boolean },
  ): Promise<Result<PlanChanged>> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const account = await this.o.accounts.find(accountId);
      if (!account) return { kind: 'not_found', message: `No account with id or slug "${accountId}"` };
      const choice = await this.consider(account, planId, o.at, o.quotedAt);
      if (choice.kind !== 'ok') return choice;
      const chosen = choice.value;
      if (chosen.kind !== 'upgrade') {
        if (o.onlyNow && chosen.kind === 'next_window')
          return {
            kind: 'conflict',
            message: `planId: only an upgrade (a plan with a higher fee in the same currency, on an active subscription) applies now; this change would wait for the next window (${new Date(chosen.from).toISOString()}): send it without "effective": "now"`,
          };
        const changed = await this.o.accounts.updateAccount(account.id, { planId });
        if (changed.kind !== 'ok') return changed;
        return ok({ effective: chosen.kind, invoiceId: null, quote: null });
      }
      const billed = await this.bill(account, chosen.quote, o.at);
      if (billed === 'moved') continue;
      if (billed === 'taken')
        return {
          kind: 'conflict',
          message: 'Another plan change was billed from this same instant: reload the page and choose again.',
        };
      if (billed.invoiceId !== null) await this.drafts.open(o.at);
      return ok({ effective: 'upgrade', invoiceId: billed.invoiceId, quote: chosen.quote });
    }
    return {
      kind: 'conflict',
      message: 'The plan changed while this change was made: reload the page and choose again.',
    };
  }

  /** The upgrade's one transaction; 'moved' when the account changed since it was read (nothing written). */
  private async bill(
    account: AccountRow,
    quote: UpgradeQuote,
    at: number,
  ): Promise<{ invoiceId: string | null } | 'moved' | 'taken'> {
    const { from, to } = quote;
    try {
      return await this.store.transaction(async (tx) => {
        // First, so that a second upgrade at once waits here and then finds the row changed.
        if ((await tx.run(this.o.accounts.upgradeQuery(account, to, at))).changed !== 1) return 'moved' as const;
        // The window's fee is the plan it started on; written here only if the job has not yet.
        if (from.monthlyFeeMinor > 0) await writeDraft(tx, feeDraft(account.id, from, quote.window), at);
        let invoiceId: string | null = null;
        if (quote.netMinor > 0) {
          invoiceId = await writeDraft(tx, upgradeDraft(account.id, quote), at);
          if (invoiceId === null) throw new Taken();
        }
        await tx.record({
          at,
          account_id: account.id,
          invoice_id: invoiceId,
          subject: 'plan',
          from_state: from.id,
          to_state: to.id,
          reason: `upgraded at once from ${from.name} to ${to.name}, ${quote.left} of the window left: ${quote.net} ${quote.currency} prorated`,
        });
        return { invoiceId };
      });
    } catch (error) {
      if (error instanceof Taken) return 'taken';
      throw error;
    }
  }
}

/** The upgrade's invoice: one line, the prorated difference, for the rest of the window. */
function upgradeDraft(accountId: string, quote: UpgradeQuote): Draft {
  return {
    accountId,
    kind: 'upgrade',
    periodStart: quote.at,
    periodEnd: quote.window.end,
    currency: quote.currency,
    lines: [
      {
        planId: quote.to.id,
        description: upgradeDescription(quote.from.name, quote.to.name, quote.leftMs, quote.window),
        quantity: 1,
        unitPriceMicroMinor: quote.netMinor * MICRO,
        amountMinor: quote.netMinor,
      },
    ],
    reason: `upgrade from ${quote.from.id} to ${quote.to.id}, prorated for ${quote.left} left of the window`,
  };
}

const ok = <T>(value: T): Result<T> => ({ kind: 'ok', value });
