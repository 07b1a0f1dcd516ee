// Closing a calendar month: once its grace period has passed, one overage invoice per account with
// billed overage in it (a line per plan that priced it), read from metering's billable overage.
// Each month closed is a billing_runs row, finished once its drafts are written.
import type { Result } from '../result.js';
import { iso } from '../clock.js';
import { monthKey, monthName, monthStart, nextMonth, previousMonth } from './calendar.js';
import type { BillingDeps } from './deps.js';
import { total, type Draft, type Drafts } from './drafts.js';
import { lineTotal } from './money.js';
import { PlanCache } from './plans.js';
import type { BillingStore } from './store.js';

/** Months a run catches up on after a long stop (older ones: `invoices run --month`). */
const MAX_CATCH_UP = 24;

export class MonthClosing {
  constructor(
    private readonly o: BillingDeps,
    private readonly store: BillingStore,
    private readonly drafts: Drafts,
  ) {}

  /** The months whose grace period has passed and that no run has finished, oldest first. */
  async monthsToClose(at: number): Promise<number[]> {
    const current = monthStart(at);
    // The month just ended can be closed once its grace has passed; until then, the one before it.
    const last =
      at >= current + this.o.options.graceMs ? previousMonth(current) : previousMonth(previousMonth(current));
    const done = await this.store.lastClosedMonth();
    const first = done === null ? last : nextMonth(done);
    const months: number[] = [];
    for (let m = Math.max(first, monthsBefore(last, MAX_CATCH_UP - 1)); m <= last; m = nextMonth(m)) months.push(m);
    return months;
  }

  /** The operator runs a month's invoicing again: what is missing is written and opened, nothing twice. */
  async rerunMonth(period: number, at: number): Promise<Result<{ month: string; created: number; opened: number }>> {
    const { graceMs } = this.o.options;
    if (at < nextMonth(period) + graceMs) {
      return {
        kind: 'invalid',
        message: `month: ${monthKey(period)} can be invoiced from ${iso(nextMonth(period) + graceMs)} (its end and the grace period)`,
      };
    }
    const created = await this.closeMonth(period, at);
    return { kind: 'ok', value: { month: monthKey(period), created, opened: await this.drafts.open(at) } };
  }

  /**
   * Writes the overage invoices of the month starting at `period` (idempotent: run it again, or
   * on another process, and nothing is written twice); resolves with how many it wrote now.
   */
  async closeMonth(period: number, at: number): Promise<number> {
    const end = nextMonth(period);
    await this.store.startRun(period, at);
    const rows = await this.o.metering.billableOverage(period, end);
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
    const written = await this.drafts.write(
      [...drafts.values()].filter((d) => total(d) > 0),
      at,
    );
    await this.store.finishRun(period, at, written);
    return written;
  }
}

const monthsBefore = (start: number, count: number): number => {
  let m = start;
  for (let i = 0; i < count; i++) m = previousMonth(m);
  return m;
};
