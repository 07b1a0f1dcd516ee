// Dunning's schedule without a database: retries at their delays from the opening, never in the past,
// and the decline after the last delay is final.
import { describe, expect, it } from 'vitest';
import { DAY } from '../clock.js';
import { afterDecline } from './dunning.js';

const OPENED = Date.UTC(2026, 2, 1);
const DELAYS = [1 * DAY, 3 * DAY, 5 * DAY];
const HOUR_LATE = 60 * 60_000;

describe('dunning', () => {
  it('retries a declined charge at its delay from the opening, whenever the decline was', () => {
    expect(afterDecline(1, OPENED, OPENED, DELAYS)).toEqual({ next: OPENED + DAY, final: false });
    expect(afterDecline(2, OPENED, OPENED + DAY + HOUR_LATE, DELAYS)).toEqual({ next: OPENED + 3 * DAY, final: false });
    expect(afterDecline(3, OPENED, OPENED + 3 * DAY, DELAYS)).toEqual({ next: OPENED + 5 * DAY, final: false });
  });

  it('retries at once when the run comes after the next delay has passed, never in the past', () => {
    const late = OPENED + 4 * DAY;
    expect(afterDecline(2, OPENED, late, DELAYS)).toEqual({ next: late, final: false });
  });

  it('makes the decline after the last delay final', () => {
    expect(afterDecline(4, OPENED, OPENED + 5 * DAY, DELAYS)).toEqual({ next: null, final: true });
    expect(afterDecline(1, OPENED, OPENED, [])).toEqual({ next: null, final: true });
  });
});
