// Whether a payment the gateway reports is the invoice's money, without a database: exactly its total,
// its currency in any case, and its customer when the account has one at the gateway.
import { describe, expect, it } from 'vitest';
import { paymentDifferences } from './payments.js';

const INVOICE = { amountMinor: 4900, currency: 'EUR', customer: 'cus_123' };
const paid = { reference: 'pi_1', amountMinor: 4900, currency: 'eur', customer: 'cus_123' };

describe('a payment reported by the gateway', () => {
  it("is the invoice's money when amount, currency (any case) and customer match", () => {
    expect(paymentDifferences(paid, INVOICE)).toEqual([]);
  });

  it('names each difference: less or more than the total, another currency, another customer', () => {
    expect(paymentDifferences({ ...paid, amountMinor: 1 }, INVOICE)).toEqual(['amount 1 (expected 4900, minor units)']);
    expect(paymentDifferences({ ...paid, amountMinor: 4901 }, INVOICE)).toHaveLength(1);
    expect(paymentDifferences({ ...paid, amountMinor: null, currency: null, customer: null }, INVOICE)).toEqual([
      'amount missing (expected 4900, minor units)',
      'currency missing (expected EUR)',
      'customer none (expected cus_123)',
    ]);
  });

  it('leaves the customer out when the account has none at the gateway, and clips what the event wrote', () => {
    expect(paymentDifferences({ ...paid, customer: 'cus_other' }, { ...INVOICE, customer: null })).toEqual([]);
    const [difference] = paymentDifferences({ ...paid, currency: 'x'.repeat(500) }, INVOICE);
    expect(difference!.length).toBeLessThan(100);
  });
});
