// EU261 / UK261: what a disrupted flight owes its passengers, by route, carrier and outcome, with
// the claim deadlines; GET /api/v1/compensation (docs/compensation.md).
export { REGION_GROUPS, regionOf, sharedRegion, type RegionGroup } from './regions.js';
export {
  assess,
  carrierOf,
  findAirport,
  operatingCarrier,
  EU261_DELAY_MINUTES,
  type Assessment,
  type AssessmentInput,
  type Band,
  type Outcome,
} from './assess.js';
export { compensationRoutes, parseCompensationQuery } from './routes.js';
export { AssessmentSchema } from './schema.js';
export { claimDeadlines, LIMITATION_REVIEWED, type ClaimDeadline } from './deadlines.js';
