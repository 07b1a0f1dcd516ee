// A payment the gateway reports names the invoice it pays in metadata anyone able to create a
// payment can write: it settles that invoice only when it is that invoice's money (charging.ts's
// paidByGateway). The comparison, in words for the operator.

/** What the gateway says was paid (Stripe's PaymentIntent): read from its event, compared with the invoice. */
export interface GatewayPayment {
  /** The gateway's id for the payment (pi_…). */
  reference: string;
  /** Minor units received (Stripe's `amount_received`, else `amount`); null when the event has none. */
  amountMinor: number | null;
  /** ISO 4217, any case; null when absent. */
  currency: string | null;
  /** The gateway's customer who paid (cus_…); null when none. */
  customer: string | null;
}

/** How a reported payment differs from the invoice, in words for the operator; empty when it is the invoice's money. */
export function paymentDifferences(
  payment: GatewayPayment,
  expected: { amountMinor: number; currency: string; customer: string | null },
): string[] {
  const differences: string[] = [];
  // Exactly the total: less is not the invoice paid, more is a payment for something else.
  if (payment.amountMinor !== expected.amountMinor)
    differences.push(`amount ${payment.amountMinor ?? 'missing'} (expected ${expected.amountMinor}, minor units)`);
  if (payment.currency?.toUpperCase() !== expected.currency.toUpperCase())
    differences.push(`currency ${clip(payment.currency ?? 'missing')} (expected ${expected.currency})`);
  // An account without a gateway customer has nobody to compare with: amount and currency decide.
  if (expected.customer !== null && payment.customer !== expected.customer)
    differences.push(`customer ${clip(payment.customer ?? 'none')} (expected ${expected.customer})`);
  return differences;
}

/** Values from an event, shortened before they reach a row or a log line. */
export const clip = (text: string): string => (text.length > 60 ? `${text.slice(0, 60)}…` : text);
