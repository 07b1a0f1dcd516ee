// What the flight lookup calls to turn a parsed query into a response. The resolver over the
// provider interface arrives with the flight lookup issue; until then the route answers 500.
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
