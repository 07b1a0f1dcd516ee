// Plan fees: each active account's current 30-day window is billed at the window's start, in
// advance, one fee invoice per account and window.
import { DAY, iso } from '../clock.js';
import { effectivePlan, type AccountRow } from '../accounts/index.js';
import { windowAt, type Window } from '../metering/index.js';
import type { BillingDeps } from './deps.js';
import type { Draft, Drafts } from './drafts.js';
import { MICRO } from './money.js';
import { PlanCache, type CatalogueTerms } from './plans.js';
import type { BillingStore } from './store.js';

export class FeeIssuing {
  constructor(
    private readonly o: BillingDeps,
    private readonly store: BillingStore,
    private readonly drafts: Drafts,
  ) {}

  /** The plan fee of each active account's current window, billed at the window's start. */
  async issueFees(at: number): Promise<number> {
    const have = await this.store.feeWindowsSince(at - 31 * DAY);
    const plans = new PlanCache(this.o.plans);
    const drafts: Draft[] = [];
    for (const account of await this.o.accounts.listAccounts()) {
      if (!billsFees(account)) continue;
      const window = windowAt(account.window_anchor, at);
      if (have.has(`${account.id} ${window.start}`)) continue;
      const planId = effectivePlan(account, window.start).planId;
      const plan = planId === null ? undefined : await plans.get(planId);
      if (!plan || plan.monthlyFeeMinor === 0) continue;
      drafts.push(feeDraft(account.id, plan, window));
    }
    return this.drafts.write(drafts, at);
  }
}

/** Whether the fee job bills this account's windows at all (an active subscription, counted and enabled). */
export const billsFees = (account: AccountRow): boolean =>
  account.unlimited === 0 && account.disabled === 0 && account.billing_status === 'active';

/** The fee invoice of one window, for the plan of that window. */
export function feeDraft(accountId: string, plan: CatalogueTerms, window: Window): Draft {
  return {
    accountId,
    kind: 'fee',
    periodStart: window.start,
    periodEnd: window.end,
    currency: plan.currency,
    lines: [
      {
        planId: plan.id,
        description: `Plan ${plan.name}, 30-day window ${iso(window.start).slice(0, 10)} to ${iso(window.end - 1).slice(0, 10)}`,
        quantity: 1,
        unitPriceMicroMinor: plan.monthlyFeeMinor * MICRO,
        amountMinor: plan.monthlyFeeMinor,
      },
    ],
    reason: `plan fee of the window starting ${iso(window.start)}`,
  };
}
