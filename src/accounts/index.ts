// Accounts, their plans and their API keys, as the operator API, the CLI and the dashboard manage
// them; GET /api/v1/account answers a key's own account (docs/metering.md).
export { AccountsService, SLUG_PATTERN, type CreateAccountInput, type UpdateAccountInput } from './service.js';
export {
  MAX_INCLUDED,
  effectivePlan,
  type Plan,
  type CataloguePlan,
  type PlanLookup,
  type PlanInput,
} from './plans.js';
export type { AccountView, CreatedKey, KeyView } from './view.js';
export type { AccountRow } from './repository.js';
export { accountRoutes, type PlanSummary } from './routes.js';
export { principalFor } from './principal.js';
export type { Tx } from './dialect.js';
