// Billing (docs/billing.md): the plan catalogue, money as integers, invoices (overage monthly in
// arrears, the plan fee per window in advance), the payment gateway (manual or Stripe) and dunning.
export { PlansService, PLAN_ID_PATTERN, type PlanInput, type PlanView } from './plans.js';
export { CURRENCIES } from './money.js';
export { BillingService, DEFAULT_BILLING, invoiceNumber, type BillingOptions, type BillingReport } from './invoicing.js';
export { parseMonth, monthKey } from './calendar.js';
export { ManualGateway, type PaymentGateway, type ChargeOutcome, type ChargeRequest } from './gateway.js';
export { StripeGateway } from './stripe.js';
export { SimulatedGateway } from './simulated-gateway.js';
export { invoiceRoutes } from './routes.js';
export { stripeEventRoutes } from './stripe-routes.js';
export type { InvoiceView, InvoiceState, InvoiceKind } from './invoice.js';
