// The batch's plan from a provider's cost table: a day of an airport's departures is read whole only
// where that costs fewer requests than asking for each of its flights.
import { describe, expect, it } from 'vitest';
import { DepartureDayCache, plan, plannedDay } from './plan.js';

const ADB = { lookup: 1, departuresDay: 2 };
const at = (origin: string | null, flightDate = '2026-02-20') => ({ origin, flightDate });

describe('the plan', () => {
  it('reads a day whole from three lookups of it (2 requests against 3), not for two (2 against 2)', () => {
    const lookups = [at('OTP'), at('OTP'), at('OTP'), at('LTN'), at('LTN'), at('OTP', '2026-02-21'), at(null)];
    const made = plan(lookups, ADB);
    expect(made.days).toEqual(['OTP|2026-02-20', 'OTP|2026-02-20', 'OTP|2026-02-20', null, null, null, null]);
    // One day (2) and four single lookups (1 each).
    expect(made.requests).toBe(6);
  });

  it('reads both boards of a day that is over and kept from five lookups of it (4 requests against 5), its departures alone from three or four', () => {
    const costs = { ...ADB, airportDay: 4 };
    const lookups = [
      ...Array.from({ length: 5 }, () => at('OTP')),
      ...Array.from({ length: 4 }, () => at('LTN')),
      ...Array.from({ length: 5 }, () => at('MAD', '2026-02-22')),
    ];
    const made = plan(lookups, costs, '2026-02-21');
    expect(made.days).toEqual([
      ...Array(5).fill('OTP|2026-02-20|both'),
      ...Array(4).fill('LTN|2026-02-20'),
      ...Array(5).fill('MAD|2026-02-22'),
    ]);
    expect(made.requests).toBe(4 + 2 + 2);
    // A provider that does not read past days: departures, as before.
    expect(plan(lookups, ADB, '2026-02-21').days[0]).toBe('OTP|2026-02-20');
    expect(plannedDay('OTP|2026-02-20|both')).toEqual({
      key: 'OTP|2026-02-20',
      airport: 'OTP',
      date: '2026-02-20',
      both: true,
    });
    expect(new DepartureDayCache().for('OTP|2026-02-20|both')!.planned('OTP', '2026-02-20')).toBe(true);
  });

  it('asks for every flight alone with a provider that cannot read a day whole', () => {
    const made = plan([at('OTP'), at('OTP'), at('OTP')], null);
    expect(made.days).toEqual([null, null, null]);
    expect(made.requests).toBe(3);
  });
});

describe('the days read', () => {
  it('reads a day once for all its lookups, and again after a failed read', async () => {
    const cache = new DepartureDayCache();
    const days = cache.for('OTP|2026-02-20')!;
    expect(days.planned('OTP', '2026-02-20')).toBe(true);
    expect(days.planned('OTP', '2026-02-21')).toBe(false);
    expect(cache.for(null)).toBeUndefined();
    let reads = 0;
    const read = () => days.read('sim|OTP|2026-02-20', async () => ++reads);
    expect(await Promise.all([read(), read(), read()])).toEqual([1, 1, 1]);
    let fail = true;
    const failing = () =>
      days.read('sim|LTN|2026-02-20', async () => {
        if (fail) throw new Error('board down');
        return 'ok';
      });
    await expect(failing()).rejects.toThrow('board down');
    fail = false;
    expect(await failing()).toBe('ok');
  });
});
