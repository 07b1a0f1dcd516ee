// What an assessment means for an amount owed: at risk, not at risk, or not known.
import { describe, expect, it } from 'vitest';
import { amountAtRisk } from './risk.js';

describe('amountAtRisk', () => {
  it('is at risk where the evidence shows extraordinary circumstances, not where it shows none, and not known where it could not be gathered', () => {
    expect(amountAtRisk('likely_extraordinary')).toBe(true);
    expect(amountAtRisk('possibly_extraordinary')).toBe(true);
    expect(amountAtRisk('not_indicated')).toBe(false);
    // A check not made is not "not at risk": the filter owed_not_at_risk must not offer such a row as safe.
    expect(amountAtRisk('unknown')).toBeNull();
  });
});
