// Credit windows (docs/billing.md, "Subscriptions"): 30 days each, the first starting when the plan starts and every next one
// starting where the previous ended, whether or not the account made a request. The window at any
// moment is therefore pure arithmetic on the anchor: an account idle for a year lands in the right
// window with nothing to roll forward, and unused credits stay behind in the window they belonged to.
import { DAY } from '../clock.js';
import type { Principal } from '../auth/principal.js';

export const WINDOW_MS = 30 * DAY;

export interface Window {
  start: number;
  end: number;
}

export function windowAt(anchor: number, now: number): Window {
  const elapsed = Math.max(0, now - anchor);
  const start = anchor + Math.floor(elapsed / WINDOW_MS) * WINDOW_MS;
  return { start, end: start + WINDOW_MS };
}

/** How many credits an account may take in a window. `included: null` means unlimited. */
export interface CreditPolicy {
  included: number | null;
  /** Served past the allowance (and billed) instead of refused. */
  overage: boolean;
  /** The catalogue plan that prices overage in this window; null on custom allowances. */
  planId: string | null;
}

/**
 * The policy of the window starting at `windowStart`: a plan change waiting for a window applies
 * from that window on, decided here on every admission (no job has to run at the boundary, and no
 * window ever starts on the old plan).
 */
export function policyOf(principal: Principal, windowStart: number): CreditPolicy {
  const { account } = principal;
  if (account.unlimited) return { included: null, overage: false, planId: null };
  const next = account.nextPlan;
  if (next && windowStart >= next.from) return { included: next.included, overage: next.overage, planId: next.id };
  return { included: account.planIncluded ?? 0, overage: account.planOverage, planId: account.planId };
}

/** What the X-Credits-* headers and `credits` report. */
export interface CreditPosition {
  included: number | null;
  used: number;
  remaining: number | null;
  overage: number;
  window: Window;
}

export function positionOf(
  policy: Pick<CreditPolicy, 'included' | 'overage'>,
  used: number,
  window: Window,
): CreditPosition {
  if (policy.included === null) return { included: null, used, remaining: null, overage: 0, window };
  return {
    included: policy.included,
    used,
    remaining: Math.max(0, policy.included - used),
    overage: policy.overage ? Math.max(0, used - policy.included) : 0,
    window,
  };
}
