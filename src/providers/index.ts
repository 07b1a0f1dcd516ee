// Flight-data providers (docs/providers.md): the one interface every source implements, deadlines
// and cancellation, the real providers' adapters and the HTTP client they share.
export type * from './types.js';
export { bounded, pause } from './call.js';
export { CALL_KINDS, hasLeft } from './types.js';
export { designatorsOf } from './measured.js';
export { AeroDataBoxProvider, AERODATABOX_URL } from './aerodatabox.js';
export { AeroApiProvider, AEROAPI_URL } from './aeroapi.js';
export { AviationstackProvider, AVIATIONSTACK_URL } from './aviationstack.js';
export { OpenSkyProvider, OPENSKY_URL, OPENSKY_AUTH_URL } from './opensky.js';
export { ProviderStats, type StatsSnapshot } from './stats.js';
export { Upstream, type Query, type UpstreamSettings } from './upstream.js';
export { backgroundReserve } from './budget.js';
export { measured, failed, statusOf } from './measured.js';
export { checkProviders, type ProviderCheck } from './check.js';
export {
  combineWeights,
  OUTCOME_THRESHOLDS_MINUTES,
  TAXI_IN_MAX_MINUTES,
  weigh,
  weightOf,
  type Weighed,
} from './doubts.js';
