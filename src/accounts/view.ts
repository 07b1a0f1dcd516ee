// What readers see of an account and its keys (operator API, CLI, dashboard): the subscription, the
// current window's credits from metering, and the keys by prefix (never their hash).
import { iso } from '../clock.js';
import type { BillingStatus } from '../db/index.js';
import type { MeteringService } from '../metering/index.js';
import { positionOf, windowAt } from '../metering/index.js';
import { effectivePlan, type Plan } from './plans.js';
import type { AccountRow, KeyRow } from './repository.js';

export interface AccountView {
  id: string;
  slug: string;
  name: string;
  unlimited: boolean;
  disabled: boolean;
  createdAt: string;
  updatedAt: string;
  subscription: {
    status: BillingStatus;
    /** The allowance of the current window. */
    plan: Plan | null;
    /** The catalogue plan of the current window; null on a custom allowance or none. */
    planId: string | null;
    /** A plan change waiting for the next window (docs/billing.md). */
    pendingPlan: { planId: string; included: number; overage: boolean; from: string } | null;
    /** Start of the first window; windows roll every 30 days from here. */
    windowAnchor: string;
    /** When a cancellation the customer asked for takes effect (the end of the window); null: none. */
    cancelAt: string | null;
  };
  /** Where the payment gateway charges this account (null until the operator sets them). */
  billing: { gatewayCustomer: string | null; paymentMethod: string | null };
  /** Null on unlimited accounts, like the account call's `credits`. */
  credits: {
    included: number;
    used: number;
    remaining: number;
    overage: number;
    periodStart: string;
    periodEnd: string;
  } | null;
  /** Lifetime count of metered requests. */
  requestCount: number;
  keys: KeyView[];
}

export interface KeyView {
  keyId: string;
  name: string;
  keyPrefix: string;
  disabled: boolean;
  createdAt: string;
}

export interface CreatedKey extends KeyView {
  accountId: string;
  /** The plaintext key, returned this once and never again. */
  key: string;
}

/** The account as of `now`, with its usage in the current window. */
export async function accountView(
  account: AccountRow,
  keys: KeyRow[],
  metering: MeteringService,
  now: number,
): Promise<AccountView> {
  const window = windowAt(account.window_anchor, now);
  const plan = effectivePlan(account, window.start);
  const pending =
    account.next_plan_id !== null && account.next_plan_from !== null && account.next_plan_from > window.start;
  let credits: AccountView['credits'] = null;
  if (account.unlimited === 0) {
    const used = await metering.usedInWindow(account.id, window.start);
    const position = positionOf({ included: plan.included ?? 0, overage: plan.overage }, used, window);
    credits = {
      included: position.included ?? 0,
      used: position.used,
      remaining: position.remaining ?? 0,
      overage: position.overage,
      periodStart: iso(window.start),
      periodEnd: iso(window.end),
    };
  }
  return {
    id: account.id,
    slug: account.slug,
    name: account.name,
    unlimited: account.unlimited === 1,
    disabled: account.disabled === 1,
    createdAt: iso(account.created_at),
    updatedAt: iso(account.updated_at),
    subscription: {
      status: account.billing_status,
      plan: plan.included === null ? null : { included: plan.included, overage: plan.overage },
      planId: plan.planId,
      pendingPlan: pending
        ? {
            planId: account.next_plan_id!,
            included: account.next_plan_included ?? 0,
            overage: account.next_plan_overage === 1,
            from: iso(account.next_plan_from!),
          }
        : null,
      windowAnchor: iso(account.window_anchor),
      cancelAt: account.cancel_at === null ? null : iso(account.cancel_at),
    },
    billing: { gatewayCustomer: account.gateway_customer, paymentMethod: account.payment_method },
    credits,
    requestCount: await metering.requestCount(account.id),
    keys: keys.map(keyView),
  };
}

export function keyView(row: KeyRow): KeyView {
  return {
    keyId: row.id,
    name: row.name,
    keyPrefix: row.prefix,
    disabled: row.disabled === 1,
    createdAt: iso(row.created_at),
  };
}
