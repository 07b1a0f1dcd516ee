// The flight lookup: one flight's settled, explained status, from the providers or the records
// kept for replay (docs/flight-lookup.md).
export { flightRoutes } from './routes.js';
export {
  isDesignator,
  parseFlightQuery,
  parseFlightDate,
  QUERY_PARAMETERS,
  querySchema,
  type FlightQuery,
} from './query.js';
export type { FlightResolver, Resolution, ResolveContext } from './resolver.js';
export { FlightStatusResponse, type FlightStatusData } from './schema.js';
export { FlightLookupService } from './lookup.js';
export { SETTLE_WINDOW_MS, type SourceEntry } from './live.js';
export { LocalDateResolver, localIso, localTimesOf, shownLocal, utcDatesOf } from './local.js';
export type { RecordStore } from './records.js';
export { ProofRenderer, ProofUnavailableError, PROOF_WIDTH, PROOF_HEIGHT, type Proof } from './proof.js';
export { classify, shownArrivalDelay } from './verdict.js';
export { formatDelay } from './rationale.js';
export { DELAY_THRESHOLD_MINUTES } from './shapes.js';

export { createRecordStore } from './dialect.js';
export { flightsCapability } from './capability.js';
export { PNG_SIGNATURE, pngChunk } from './png.js';
