// Credit windows (spec 8): 30 days each, the first starting when the plan starts and every next one
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
}

export function policyOf(principal: Principal): CreditPolicy {
  const { account } = principal;
  if (account.unlimited) return { included: null, overage: false };
  return { included: account.planIncluded ?? 0, overage: account.planOverage };
}

/** What the X-Credits-* headers and `credits` report. */
export interface CreditPosition {
  included: number | null;
  used: number;
  remaining: number | null;
  overage: number;
  window: Window;
}

export function positionOf(policy: CreditPolicy, used: number, window: Window): CreditPosition {
  if (policy.included === null) return { included: null, used, remaining: null, overage: 0, window };
  return {
    included: policy.included,
    used,
    remaining: Math.max(0, policy.included - used),
    overage: policy.overage ? Math.max(0, used - policy.included) : 0,
    window,
  };
}
