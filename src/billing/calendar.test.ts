import { describe, expect, it } from 'vitest';
import { monthKey, parseMonth } from './calendar.js';

describe('calendar months', () => {
  it('reads YYYY-MM as the UTC month it names, every year as written', () => {
    expect(parseMonth('2026-10')).toBe(Date.parse('2026-10-01T00:00:00Z'));
    expect(parseMonth('2026-12')).toBe(Date.parse('2026-12-01T00:00:00Z'));
    // Date.UTC would read the year 26 as 1926: the month echoed back must be the one asked.
    expect(monthKey(parseMonth('0026-10')!)).toBe('0026-10');
    expect(monthKey(parseMonth('0099-01')!)).toBe('0099-01');
    for (const bad of ['2026-13', '2026-00', '26-10', '2026-1', '2026-10-01', '']) expect(parseMonth(bad)).toBeNull();
  });
});
