import { describe, expect, it } from 'vitest';
import { DAY } from '../clock.js';
import { positionOf, windowAt, WINDOW_MS } from './window.js';

const anchor = Date.UTC(2026, 0, 15, 10, 30);

describe('windowAt', () => {
  it('is 30 days long and starts at the anchor', () => {
    expect(WINDOW_MS).toBe(30 * DAY);
    expect(windowAt(anchor, anchor)).toEqual({ start: anchor, end: anchor + 30 * DAY });
  });

  it('rolls at the exact end of the previous window, not at a calendar month', () => {
    expect(windowAt(anchor, anchor + 30 * DAY - 1).start).toBe(anchor);
    expect(windowAt(anchor, anchor + 30 * DAY).start).toBe(anchor + 30 * DAY);
    // 15 Jan + 30 d = 14 Feb, not 15 Feb.
    expect(new Date(windowAt(anchor, Date.UTC(2026, 1, 14, 12)).start).toISOString()).toBe('2026-02-14T10:30:00.000Z');
  });

  it('lands a long-idle account in the right window, rolling from the anchor and not from its first request', () => {
    const now = anchor + 1000 * DAY + 5;
    const window = windowAt(anchor, now);
    expect(window.start).toBe(anchor + 990 * DAY); // 33 windows later
    expect(window.start).toBeLessThanOrEqual(now);
    expect(window.end).toBeGreaterThan(now);
  });

  it('never starts before the anchor', () => {
    expect(windowAt(anchor, anchor - DAY).start).toBe(anchor);
  });
});

describe('positionOf', () => {
  const window = windowAt(anchor, anchor);

  it('counts remaining down to zero and overage only when enabled', () => {
    expect(positionOf({ included: 100, overage: false }, 99, window)).toMatchObject({
      used: 99,
      remaining: 1,
      overage: 0,
    });
    expect(positionOf({ included: 100, overage: false }, 100, window)).toMatchObject({ remaining: 0, overage: 0 });
    expect(positionOf({ included: 100, overage: true }, 130, window)).toMatchObject({
      used: 130,
      remaining: 0,
      overage: 30,
    });
  });

  it('has no ceiling on unlimited accounts', () => {
    expect(positionOf({ included: null, overage: false }, 5, window)).toMatchObject({
      included: null,
      remaining: null,
      overage: 0,
      used: 5,
    });
  });
});
