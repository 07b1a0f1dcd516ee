// The proration of an upgrade (docs/billing.md, "Upgrade now"): the rounding rule, its bounds, and
// the words the notice and the invoice line use.
import { describe, expect, it } from 'vitest';
import { DAY, HOUR, MINUTE } from '../clock.js';
import { WINDOW_MS } from '../metering/index.js';
import { prorate, timeLeftWords, upgradeDescription } from './proration.js';

const SECONDS_IN_WINDOW = WINDOW_MS / 1000; // 2,592,000

describe('prorate', () => {
  it('is the fee difference times the share of the window left, rounded half up once to the minor unit', () => {
    // (49.00 − 10.00) × 18.25 / 30 = 23.725 → 23.73 (half up, not to even).
    expect(prorate(1000, 4900, 18 * DAY + 6 * HOUR)).toBe(2373);
    // Half the window: exactly half the difference.
    expect(prorate(1000, 4900, 15 * DAY)).toBe(1950);
    // Just under a half cent rounds down, a half cent up: 1 cent × 1,295,999 / 2,592,000 and × 1,296,000 / 2,592,000.
    expect(prorate(0, 1, 1_295_999_000)).toBe(0);
    expect(prorate(0, 1, 1_296_000_000)).toBe(1);
    // The whole window left: the whole difference.
    expect(prorate(1000, 4900, WINDOW_MS)).toBe(3900);
  });

  it('counts whole seconds, as Stripe prorates to the second: a started second is not billed', () => {
    expect(prorate(0, SECONDS_IN_WINDOW, 1_999)).toBe(1);
    expect(prorate(0, SECONDS_IN_WINDOW, 2_000)).toBe(2);
    expect(prorate(0, SECONDS_IN_WINDOW, 999)).toBe(0);
  });

  it('is never negative, and nothing for a plan that is not dearer, or no time left', () => {
    expect(prorate(4900, 1000, 15 * DAY)).toBe(0); // a downgrade
    expect(prorate(4900, 4900, 15 * DAY)).toBe(0); // the same fee
    expect(prorate(0, 0, 15 * DAY)).toBe(0); // fee-free to fee-free
    expect(prorate(1000, 4900, 0)).toBe(0);
    expect(prorate(1000, 4900, -HOUR)).toBe(0);
    // More than a window left (never the case in a window) is bounded by the window.
    expect(prorate(1000, 4900, 2 * WINDOW_MS)).toBe(3900);
  });

  it('works in currencies without minor units and on large fees, exactly', () => {
    expect(prorate(1000, 3000, 15 * DAY)).toBe(1000); // ¥1,000 → ¥3,000, half a window left
    // €1,000,000 a window (the largest fee a plan takes), a third of a second short of a whole window: no float error.
    expect(prorate(0, 100_000_000, WINDOW_MS - 333)).toBe(99_999_961);
  });
});

describe('timeLeftWords', () => {
  it('says days and hours, never rounding up', () => {
    expect(timeLeftWords(18 * DAY + 6 * HOUR + 59 * MINUTE)).toBe('18 days 6 h');
    expect(timeLeftWords(DAY + 30 * MINUTE)).toBe('1 day');
    expect(timeLeftWords(30 * DAY)).toBe('30 days');
    expect(timeLeftWords(5 * HOUR + 10 * MINUTE)).toBe('5 h');
    expect(timeLeftWords(12 * MINUTE + 59_000)).toBe('12 min');
    expect(timeLeftWords(59_000)).toBe('less than a minute');
  });

  it('describes the invoice line with the window as every invoice shows periods (first and last UTC day)', () => {
    const start = Date.UTC(2026, 2, 1, 12);
    expect(upgradeDescription('Starter', 'Pro', 18 * DAY + 6 * HOUR, { start, end: start + WINDOW_MS })).toBe(
      'Upgrade from Starter to Pro, prorated: 18 days 6 h of 30 days left in the window 2026-03-01 to 2026-03-31',
    );
  });
});
