// The payment gateway the configuration names (FLIGHTSTATUS_BILLING_GATEWAY, docs/billing.md).
import type { BillingConfig } from '../config.js';
import { ManualGateway, type PaymentGateway } from './gateway.js';
import { SimulatedGateway } from './simulated-gateway.js';
import { StripeGateway } from './stripe.js';

/** How long one Stripe request may take (Stripe answers a charge in seconds). */
const STRIPE_TIMEOUT_MS = 30_000;

export function gatewayFor(settings: BillingConfig): PaymentGateway {
  const { stripe } = settings;
  if (settings.gateway === 'stripe' && stripe)
    return new StripeGateway({ apiKey: stripe.key, baseUrl: stripe.url, timeoutMs: STRIPE_TIMEOUT_MS });
  return settings.gateway === 'simulated' ? new SimulatedGateway() : new ManualGateway();
}
