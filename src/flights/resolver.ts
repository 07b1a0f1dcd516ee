// What the flight lookup route calls to turn a parsed query into a response: FlightLookupService
// (lookup.ts) over the providers; tests of metering may put a simpler one in its place.
import type { FlightQuery } from './query.js';
import type { FlightStatusData } from './schema.js';

export interface ResolveContext {
  /** Aborted when the client goes away or the service shuts down. */
  signal: AbortSignal;
  requestId: string;
}

/**
 * `data` already serialised as JSON: a replay sends its stored record as it was stored instead of
 * parsing and serialising it again (a third of a replay's cost).
 */
export interface SerializedData {
  json: string;
}

export interface FlightResolver {
  resolve(query: FlightQuery, context: ResolveContext): Promise<FlightStatusData | SerializedData>;
}
