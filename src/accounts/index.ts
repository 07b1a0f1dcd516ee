export {
  AccountsService,
  SLUG_PATTERN,
  MAX_INCLUDED,
  type AccountView,
  type CreatedKey,
  type KeyView,
  type Plan,
  type CataloguePlan,
  type PlanLookup,
  effectivePlan,
  type CreateAccountInput,
  type PlanInput,
  type UpdateAccountInput,
} from './service.js';
export { accountRoutes, type PlanSummary } from './routes.js';
