// What the flight lookup route calls to turn a parsed query into a response: FlightLookupService
// (lookup.ts) over the providers; tests of metering may put a simpler one in its place.
import type { ConnectionShare } from '../db/index.js';
import type { CallOptions, ObservedFlights } from '../providers/index.js';
import type { FlightQuery } from './query.js';
import type { FlightStatusData } from './schema.js';

export interface ResolveContext {
  /** Aborted when the client goes away or the service shuts down. */
  signal: AbortSignal;
  requestId: string;
  /**
   * What a batch adds to its provider calls (src/batches): their requests counted, the background
   * share of the budget, the days of departures its plan reads whole, a longer deadline.
   */
  call?: Pick<CallOptions, 'meter' | 'background' | 'departures' | 'timeoutMs'>;
  /**
   * A batch's plan step 3: the flights the board poller saw final, asked before any provider; a flight
   * they hold whole is answered from them (source `boards`) and no provider is asked for it.
   */
  observed?: ObservedFlights;
  /**
   * A batch's share of the database pool (db/share.ts): the resolve's reads and writes (the stored
   * record, the observations, the boards' history, the record it stores) wait for room in it, with
   * no deadline; its provider calls do not. Absent: straight to the pool (a single lookup).
   */
  share?: ConnectionShare;
}

/**
 * `data` already serialised as JSON: a replay sends its stored record as it was stored instead of
 * parsing and serialising it again (a third of a replay's cost).
 */
export interface SerializedData {
  json: string;
}

/**
 * No provider could be asked about a flight none of the others found (each that answered said
 * `miss`, the rest failed): the flight may exist where we could not look. Nothing was stored and
 * the lookup can be retried safely; the HTTP edge answers it as a 500 naming every provider, with
 * `sources` beside the message.
 */
export interface ProvidersUnavailable {
  unavailable: string;
  /** Every configured provider and what it answered, as a found flight's `data.sources`. */
  sources: FlightStatusData['sources'];
}

export interface FlightResolver {
  resolve(query: FlightQuery, context: ResolveContext): Promise<FlightStatusData | SerializedData | ProvidersUnavailable>;
}
