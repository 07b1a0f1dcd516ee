// A simulated payment gateway for demos and the manual-clock walkthrough (docs/billing.md): it
// charges nothing real but answers as Stripe's documented test payment methods do, so a new user can
// watch a charge succeed, a card decline, dunning and past due without a Stripe account.
//   pm_card_chargeDeclined…          declined (card_declined; …InsufficientFunds: insufficient_funds)
//   pm_card_authenticationRequired   declined (authentication_required)
//   any other payment method         succeeded
//   no payment method or customer    declined (no_payment_method / no_customer)
import type { ChargeOutcome, ChargeRequest, PaymentGateway } from './gateway.js';

export class SimulatedGateway implements PaymentGateway {
  readonly name = 'simulated';
  readonly charges = true;

  charge(request: ChargeRequest): Promise<ChargeOutcome> {
    const reference = `sim_pi_${request.invoiceId}_${request.attempt}`;
    const declined = (code: string, message: string): ChargeOutcome => ({ kind: 'declined', code, message, reference });
    const method = request.paymentMethod;
    if (!request.customer)
      return Promise.resolve({
        kind: 'declined',
        code: 'no_customer',
        message: 'the account has no customer at the gateway',
        reference: null,
      });
    if (!method)
      return Promise.resolve({
        kind: 'declined',
        code: 'no_payment_method',
        message: 'the account has no payment method to charge',
        reference: null,
      });
    if (method === 'pm_card_chargeDeclinedInsufficientFunds')
      return Promise.resolve(declined('insufficient_funds', 'Your card has insufficient funds.'));
    if (method.startsWith('pm_card_chargeDeclined'))
      return Promise.resolve(declined('card_declined', 'Your card was declined.'));
    if (method === 'pm_card_authenticationRequired')
      return Promise.resolve(declined('authentication_required', 'Your card requires authentication.'));
    return Promise.resolve({ kind: 'succeeded', reference });
  }
}
