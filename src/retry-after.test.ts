import { describe, expect, it } from 'vitest';
import { retryAfterMs } from './retry-after.js';

describe('Retry-After', () => {
  const now = Date.UTC(2026, 10, 26, 12, 0, 0);

  it('reads delay-seconds', () => {
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('1.5', now)).toBe(1500);
    expect(retryAfterMs(['30', '60'], now)).toBe(30_000);
    // Finite however long: the caller clamps it (a webhook receiver to an hour, a provider to 15 minutes).
    expect(retryAfterMs('9'.repeat(400), now)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('reads HTTP dates in the three forms of RFC 9110, a past one as 0', () => {
    expect(retryAfterMs('Thu, 26 Nov 2026 12:05:00 GMT', now)).toBe(300_000);
    expect(retryAfterMs('Thursday, 26-Nov-26 12:05:00 GMT', now)).toBe(300_000);
    expect(retryAfterMs('Thu Nov 26 12:05:00 2026', now)).toBe(300_000);
    expect(retryAfterMs('Thu, 26 Nov 2026 11:00:00 GMT', now)).toBe(0);
  });

  it('reads nothing else', () => {
    // "-5" and "12" are dates to Date.parse (the years 2001 and 2001): not to an HTTP client.
    for (const bad of [undefined, '', '   ', '-5', '12:00', '1e9', 'soon', '0x10'])
      expect(retryAfterMs(bad, now), String(bad)).toBeNull();
  });
});
