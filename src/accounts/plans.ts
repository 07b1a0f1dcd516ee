// An account's plan: a custom allowance or a plan of billing's catalogue, a change that waits for
// the next 30-day window, and an upgrade that applies at once (billing decides and bills it; its
// columns are here) (docs/billing.md). The rules the accounts service applies to plans live here.
import type { Failure } from '../result.js';
import { windowAt } from '../metering/index.js';
import { flag, type AccountRow } from './repository.js';

export interface Plan {
  included: number;
  overage: boolean;
}

/** What the accounts need of a catalogue plan (billing's PlansService provides it). */
export interface CataloguePlan {
  id: string;
  currency: string;
  included: number;
  overage: boolean;
}

export interface PlanLookup {
  find(id: string): Promise<CataloguePlan | undefined>;
}

/** A plan as given: overage defaults to off. */
export interface PlanInput {
  included: number;
  overage?: boolean;
}

/** Plan allowances above this are certainly typos (a billion requests per window). */
export const MAX_INCLUDED = 1_000_000_000;

export const NO_PENDING_PLAN = {
  next_plan_id: null,
  next_plan_from: null,
  next_plan_included: null,
  next_plan_overage: null,
} as const;

/** The plan of the window starting at `windowStart`: a pending change applies from its window on (as the admission decides). */
export function effectivePlan(
  account: AccountRow,
  windowStart: number,
): { planId: string | null; included: number | null; overage: boolean } {
  if (account.next_plan_id !== null && account.next_plan_from !== null && windowStart >= account.next_plan_from) {
    return {
      planId: account.next_plan_id,
      included: account.next_plan_included ?? 0,
      overage: account.next_plan_overage === 1,
    };
  }
  return { planId: account.plan_id, included: account.plan_included, overage: account.plan_overage === 1 };
}

/** What is wrong with a custom allowance, or null. */
export function checkPlan(plan: PlanInput): string | null {
  if (!Number.isSafeInteger(plan.included) || plan.included < 0 || plan.included > MAX_INCLUDED) {
    return `plan.included must be an integer from 0 to ${MAX_INCLUDED}`;
  }
  return null;
}

/**
 * The columns that subscribe `account` to catalogue plan `planId`. An account without a running
 * subscription starts on it at once; otherwise the current window keeps its plan to its end and
 * the new one applies from the next window (asking for the current plan again cancels a pending
 * change). One currency per account: its invoices never mix currencies.
 */
export async function planChange(
  plans: PlanLookup,
  account: AccountRow,
  planId: string,
  now: number,
): Promise<Partial<AccountRow> | Failure> {
  const plan = await plans.find(planId);
  if (!plan)
    return {
      kind: 'invalid',
      message: `planId: no plan with id ${JSON.stringify(planId.slice(0, 60))} in the catalogue`,
    };
  const current = effectivePlan(account, windowAt(account.window_anchor, now).start);
  const running =
    current.included !== null && (account.billing_status === 'active' || account.billing_status === 'past_due');
  if (!running) {
    return { plan_id: plan.id, plan_included: plan.included, plan_overage: flag(plan.overage), ...NO_PENDING_PLAN };
  }
  if (current.planId !== null) {
    const was = await plans.find(current.planId);
    if (was && was.currency !== plan.currency) {
      return {
        kind: 'invalid',
        message: `planId: plan ${plan.id} is priced in ${plan.currency} but this account's plan ${was.id} is in ${was.currency}; an account keeps one currency`,
      };
    }
  }
  // Whatever was pending and is already in effect becomes the current plan first.
  const settled: Partial<AccountRow> = {
    plan_id: current.planId,
    plan_included: current.included,
    plan_overage: flag(current.overage),
  };
  if (current.planId === plan.id) return { ...settled, ...NO_PENDING_PLAN };
  return {
    ...settled,
    next_plan_id: plan.id,
    next_plan_included: plan.included,
    next_plan_overage: flag(plan.overage),
    next_plan_from: windowAt(account.window_anchor, now).end,
  };
}

/**
 * The columns of an upgrade that applies at once, inside the window in progress: the new plan from
 * now on (its allowance for this window; what was used counts against it), nothing pending, and no
 * cancellation (choosing a plan withdraws one, as planChange does). The window keeps its anchor.
 */
export function upgradeColumns(plan: CataloguePlan, at: number): Partial<AccountRow> {
  return {
    plan_id: plan.id,
    plan_included: plan.included,
    plan_overage: flag(plan.overage),
    ...NO_PENDING_PLAN,
    cancel_at: null,
    updated_at: at,
  };
}
