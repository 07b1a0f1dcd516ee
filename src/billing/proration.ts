// Proration of an upgrade (docs/billing.md, "Upgrade now"), after Stripe's: the plan fee is paid in
// advance per 30-day window, so moving to a dearer plan inside a window owes the difference of the
// two fees for the time left of it, and nothing for the time already spent on the old plan. Stripe
// credits the unused time at the old price and charges the rest at the new one, both to the second;
// here that is one amount, (new fee − old fee) × seconds left / seconds in the window, rounded once,
// half up, to the minor unit (as every amount on an invoice is). Pure: the dashboard's notice and the
// invoice line both come from these functions, so what the customer is told is what is billed.
import { DAY, HOUR, iso, MINUTE } from '../clock.js';
import { WINDOW_MS, type Window } from '../metering/index.js';

const SECOND = 1000;

/**
 * The prorated difference in minor units: (newFee − oldFee) × (time left / window), the time in
 * whole seconds (a started second is not billed, as Stripe prorates to the second), rounded half up
 * (exact: BigInt). Never negative: a cheaper plan, the same fee or no time left owe 0.
 */
export function prorate(oldFeeMinor: number, newFeeMinor: number, leftMs: number, windowMs = WINDOW_MS): number {
  const difference = newFeeMinor - oldFeeMinor;
  if (difference <= 0 || leftMs <= 0) return 0;
  const left = BigInt(Math.floor(Math.min(leftMs, windowMs) / SECOND));
  const whole = BigInt(Math.floor(windowMs / SECOND));
  return Number((2n * BigInt(difference) * left + whole) / (2n * whole));
}

/** "18 days 6 h", "1 day", "5 h", "12 min", "less than a minute": whole units, never rounded up. */
export function timeLeftWords(leftMs: number): string {
  const days = Math.floor(leftMs / DAY);
  const hours = Math.floor((leftMs % DAY) / HOUR);
  if (days > 0) return `${days} ${days === 1 ? 'day' : 'days'}${hours > 0 ? ` ${hours} h` : ''}`;
  if (hours > 0) return `${hours} h`;
  const minutes = Math.floor(leftMs / MINUTE);
  return minutes > 0 ? `${minutes} min` : 'less than a minute';
}

/** The invoice line's words: "Upgrade from Starter to Pro, prorated: 18 days 6 h of 30 days left in the window 2026-03-01 to 2026-03-30". */
export function upgradeDescription(from: string, to: string, leftMs: number, window: Window): string {
  const first = iso(window.start).slice(0, 10);
  const last = iso(window.end - 1).slice(0, 10);
  return `Upgrade from ${from} to ${to}, prorated: ${timeLeftWords(leftMs)} of ${WINDOW_MS / DAY} days left in the window ${first} to ${last}`;
}
