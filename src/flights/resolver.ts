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
 * What a lookup comes to: the answer (a flight found, or not found with why), or no answer because
 * no provider could be asked about a flight none of the others found (each that answered said
 * `miss`, the rest failed): the flight may exist where we could not look. Nothing was stored then
 * and the lookup can be retried safely; the HTTP edge answers it as a 500 naming every provider,
 * with `sources` beside the message.
 */
export type Resolution =
  | { kind: 'answered'; data: FlightStatusData }
  | {
      kind: 'unavailable';
      message: string;
      /** Every configured provider and what it answered, as a found flight's `data.sources`. */
      sources: FlightStatusData['sources'];
    };

export interface FlightResolver {
  resolve(query: FlightQuery, context: ResolveContext): Promise<Resolution>;
  /**
   * The route's fast path: a settled record's replay as the JSON of `data`, sent as it was stored
   * instead of parsed and serialised again (a third of a replay's cost); null when the query is not
   * such a replay (then `resolve` answers it). Absent: every query goes through `resolve`.
   */
  replay?(query: FlightQuery, context: ResolveContext): Promise<string | null>;
}
