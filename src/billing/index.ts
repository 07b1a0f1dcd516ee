// Billing (docs/billing.md): the plan catalogue and money as integers. Invoicing and charging follow.
export { PlansService, PLAN_ID_PATTERN, type PlanInput, type PlanView } from './plans.js';
export { CURRENCIES } from './money.js';
