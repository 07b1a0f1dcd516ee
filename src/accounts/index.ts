export {
  AccountsService,
  SLUG_PATTERN,
  type CreateAccountInput,
  type UpdateAccountInput,
} from './service.js';
export { MAX_INCLUDED, effectivePlan, type Plan, type CataloguePlan, type PlanLookup, type PlanInput } from './plans.js';
export type { AccountView, CreatedKey, KeyView } from './view.js';
export { accountRoutes, type PlanSummary } from './routes.js';
export { principalFor } from './principal.js';
export type { Tx } from './dialect.js';
