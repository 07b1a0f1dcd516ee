// Dunning's rules, as pure functions (docs/billing.md, "Dunning and past due"): when a declined
// charge is tried again, and when the last decline makes the invoice overdue and its account past
// due. charging.ts writes what they decide.
import { HOUR } from '../clock.js';

/** A charge that did not reach the gateway's answer (outage) is tried again this much later, as the same attempt. */
export const UNAVAILABLE_RETRY_MS = HOUR;

export interface AfterDecline {
  /** When the next attempt falls due; null when this was the last. */
  next: number | null;
  /** The last attempt failed: the invoice is overdue and its account past due. */
  final: boolean;
}

/**
 * After the `attempt`-th charge of an invoice opened at `openedAt` is declined at `at`: the retries
 * fall due at their delays from the opening (not from the decline, so a late run does not push the
 * schedule back), never before now; the attempt after the last delay is the final one.
 */
export function afterDecline(
  attempt: number,
  openedAt: number,
  at: number,
  retryDelaysMs: readonly number[],
): AfterDecline {
  const delay = retryDelaysMs[attempt - 1];
  if (delay === undefined) return { next: null, final: true };
  return { next: Math.max(at, openedAt + delay), final: false };
}
