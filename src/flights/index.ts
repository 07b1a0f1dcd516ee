export { flightRoutes } from './routes.js';
export { parseFlightQuery, parseFlightDate, QUERY_PARAMETERS, type FlightQuery } from './query.js';
export type { FlightResolver, ResolveContext } from './resolver.js';
export { FlightStatusResponse, type FlightStatusData } from './schema.js';
export { FlightLookupService, SETTLE_WINDOW_MS, type SourceEntry } from './lookup.js';
export { createRecordStore, type RecordStore } from './records.js';
export { ProofRenderer, PROOF_WIDTH, PROOF_HEIGHT, type Proof } from './proof.js';
export { classify, formatDelay, DELAY_THRESHOLD_MINUTES } from './verdict.js';
