// The payment gateway (docs/billing.md, "Charging"): one interface, two implementations. `manual`
// (the default) charges nothing: invoices stay open until the operator marks them paid. `stripe`
// charges the customer's saved payment method off-session through Stripe's PaymentIntents API.

/** What a gateway needs to charge one invoice. */
export interface ChargeRequest {
  invoiceId: string;
  /** The invoice number as shown to the customer, e.g. "FS-000042". */
  invoiceNumber: string;
  accountId: string;
  /** Integer minor units (cents), > 0. */
  amountMinor: number;
  /** ISO 4217, upper case ("EUR"). */
  currency: string;
  /** 1 for the first charge of this invoice, 2 for the first retry, …; part of the idempotency key. */
  attempt: number;
  /** The account's customer and payment method at the gateway, when the operator has set them. */
  customer: string | null;
  paymentMethod: string | null;
}

export type ChargeOutcome =
  /** Money taken; `reference` is the gateway's id for it (a PaymentIntent id). */
  | { kind: 'succeeded'; reference: string }
  /** The customer's side refused (card declined, no payment method, authentication needed): counts as a dunning attempt. */
  | { kind: 'declined'; code: string; message: string; reference: string | null }
  /** Our side or the gateway's failed (5xx, timeout, network): the same attempt is tried again later, not counted. */
  | { kind: 'unavailable'; message: string };

export interface PaymentGateway {
  /** "manual" or "stripe": shown to operators and recorded with each attempt. */
  readonly name: string;
  /** False for the manual gateway: nothing is charged, invoices wait for the operator. */
  readonly charges: boolean;
  charge(request: ChargeRequest): Promise<ChargeOutcome>;
}

/** The default: nothing is charged automatically; the operator marks invoices paid. */
export class ManualGateway implements PaymentGateway {
  readonly name = 'manual';
  readonly charges = false;

  charge(): Promise<ChargeOutcome> {
    return Promise.resolve({
      kind: 'unavailable',
      message: 'the manual gateway charges nothing; mark the invoice paid when the money arrives',
    });
  }
}
