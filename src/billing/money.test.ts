import { describe, expect, it } from 'vitest';
import { formatAmount, formatUnitPrice, lineTotal, parseAmount, parseUnitPrice } from './money.js';

describe('money as integers', () => {
  it('reads amounts and per-request prices exactly, in minor and micro-minor units', () => {
    expect(parseAmount('49.00', 'EUR', 'fee')).toEqual({ ok: true, value: 4900 });
    expect(parseAmount('49', 'EUR', 'fee')).toEqual({ ok: true, value: 4900 });
    expect(parseAmount('0.1', 'EUR', 'fee')).toEqual({ ok: true, value: 10 });
    expect(parseAmount('1500', 'JPY', 'fee')).toEqual({ ok: true, value: 1500 });
    expect(parseUnitPrice('0.002', 'EUR', 'price')).toEqual({ ok: true, value: 200_000 });
    expect(parseUnitPrice('0.00000001', 'EUR', 'price')).toEqual({ ok: true, value: 1 });
    // 0.1 + 0.2 in floats is 0.30000000000000004; here it is exact.
    expect(parseUnitPrice('0.3', 'EUR', 'price')).toEqual({ ok: true, value: 30_000_000 });
  });

  it('refuses what is not an exact amount in the currency, saying what it wants', () => {
    for (const bad of ['', '-1', '1e3', '4.999', '1,5', ' 12 3', '9999999']) {
      const parsed = parseAmount(bad, 'EUR', 'monthlyFee');
      expect(parsed.ok, bad).toBe(false);
      if (!parsed.ok)
        expect(parsed.message).toMatch(/^monthlyFee must be a EUR amount such as 49\.00, with at most 2 decimals/);
    }
    expect(parseAmount('1.5', 'JPY', 'fee').ok).toBe(false);
    expect(parseUnitPrice('0.000000001', 'EUR', 'price').ok).toBe(false);
  });

  it('writes them back as the shortest exact decimals', () => {
    expect(formatAmount(4900, 'EUR')).toBe('49.00');
    expect(formatAmount(5, 'EUR')).toBe('0.05');
    expect(formatAmount(1500, 'JPY')).toBe('1500');
    expect(formatUnitPrice(200_000, 'EUR')).toBe('0.002');
    expect(formatUnitPrice(100_000_000, 'EUR')).toBe('1');
    expect(formatUnitPrice(1, 'EUR')).toBe('0.00000001');
  });

  it('rounds a line once, half up, on its total', () => {
    expect(lineTotal(1234, 200_000)).toBe(247); // 246.8 cents
    expect(lineTotal(5, 100_000)).toBe(1); // 0.5 cents rounds up
    expect(lineTotal(4, 100_000)).toBe(0);
    expect(lineTotal(10_000_000, 999_999)).toBe(9_999_990); // no float error at scale
  });
});
