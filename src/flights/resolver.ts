// What the flight lookup route calls to turn a parsed query into a response: FlightLookupService
// (lookup.ts) over the providers; tests of metering may put a simpler one in its place.
import type { FlightQuery } from './query.js';
import type { FlightStatusData } from './schema.js';

export interface ResolveContext {
  /** Aborted when the client goes away or the service shuts down. */
  signal: AbortSignal;
  requestId: string;
}

export interface FlightResolver {
  resolve(query: FlightQuery, context: ResolveContext): Promise<FlightStatusData>;
}
