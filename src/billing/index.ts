// Billing (docs/billing.md): the plan catalogue, money as integers, invoices (overage monthly in
// arrears, the plan fee per window in advance), the payment gateway (manual, simulated or Stripe)
// and dunning; their customer routes, Stripe's events, and the renderers the dashboard shares.
export { PlansService, PLAN_ID_PATTERN, type PlanInput, type PlanView } from './plans.js';
export { CURRENCIES } from './money.js';
export { BillingService } from './service.js';
export { parseMonth } from './calendar.js';
export { ManualGateway, type PaymentGateway } from './gateway.js';
export { gatewayFor } from './choose-gateway.js';
export { SimulatedGateway } from './simulated-gateway.js';
export { StripeGateway } from './stripe.js';
export { invoiceRoutes } from './routes.js';
export { stripeEventRoutes } from './stripe-routes.js';
export { billingCapability } from './capability.js';
export { CreditNoteParams, CreditNoteSchema, InvoiceParams, InvoiceSchema } from './schema.js';
export { creditNotePdf, invoicePdf } from './render-pdf.js';
export { creditNoteContent, groupThousands, INVOICE_CSP, invoiceContent, utcDay } from './render-html.js';
export { BuyerDetails, type BuyerState } from './buyer.js';
export { CONFIRM_LIMITS, CONFIRM_MS } from './billing-email.js';
export { countryName, type Buyer, type BuyerInput, type Seller } from './parties.js';
export type { CreditNoteView } from './credit-notes.js';
export type { InvoiceView, InvoiceState, InvoiceKind } from './invoice.js';
export type { PlanChanged, PlanChoice, UpgradeQuote } from './upgrades.js';
