// The provider interface: the one shape every source of flight data implements (the simulated world,
// AeroDataBox, aviationstack, FlightAware AeroAPI). Three questions, each answered with an outcome of
// the spec's vocabulary (2.1) and provider-neutral records.
// Glossary (see GLOSSARY.md): a *provider* answers; its answer has an *outcome*; a *flight* is one leg
// under one designator on one flight date; a *board* is an airport's departures or arrivals list as it
// looks at one moment, made of *rows*.
//
// Times are epoch milliseconds (UTC); the HTTP edge formats them as ISO 8601. Providers that give
// local times (aviationstack) convert them before they answer.
import type { CallKind } from '../config.js';
import type { DoubtWeight } from './doubts.js';
import type { StatsSnapshot } from './stats.js';
export type { DoubtWeight };
/** A provider's answer class. `skipped` is never returned by a provider: the resolver assigns it. */
export type Outcome = 'hit' | 'incomplete' | 'miss' | 'skipped' | 'error';
export type Operation = 'passenger' | 'cargo' | 'military' | 'private';
export type Direction = 'departure' | 'arrival';
export type BoardKind = 'departures' | 'arrivals';

export interface AirportRef {
  /** null when the provider does not name the airport. */
  iata: string | null;
  icao: string | null;
}

export interface AirlineRef {
  name: string | null;
  iata: string | null;
  icao: string | null;
}

export interface AircraftRef {
  registration: string | null;
  /** ICAO 24-bit address, upper-case hex. */
  icao24: string | null;
  /** ICAO type designator, e.g. A21N. */
  typeIcao: string | null;
  /** IATA type code, e.g. 32Q. */
  typeIata: string | null;
  /** Human label, e.g. "Airbus A321neo". */
  label: string | null;
}

/**
 * How a provider knows a time (`data.sources[].times[].kind`): an off- or on-block (gate) time, a
 * take-off or landing (runway) time, an estimate the airline or airport revised, the provider's own
 * estimate or prediction, or the timetable.
 */
export type TimeKind = 'block' | 'runway' | 'revised' | 'estimated' | 'scheduled';

/** One end of a flight: what was planned, expected and seen there. */
export interface FlightEnd {
  airport: AirportRef;
  scheduled: number | null;
  /** The latest estimate; null until one is published. */
  estimated: number | null;
  /** Off-block (departure) or on-block (arrival) time once it happened. */
  actual: number | null;
  /** Take-off or landing runway, where published. */
  runway: string | null;
  /**
   * When the wheels left or touched the runway (actual take-off or landing), where the provider
   * gives it apart from the block time; what OpenSky's ADS-B data corroborates.
   */
  runwayAt?: number | null;
  /** What `estimated` is: revised by the airline or airport, or the provider's own estimate (the default). */
  estimatedKind?: 'revised' | 'estimated';
  /** What `actual` is: a block time (the default), or a runway time standing in for a missing one. */
  actualKind?: 'block' | 'runway';
}

/** Coarse phase every provider maps its own vocabulary onto. */
export type FlightPhase = 'scheduled' | 'departed' | 'landed' | 'cancelled' | 'diverted' | 'unknown';

/** The flight has left its origin in this phase (BoardRow.departed). */
export const hasLeft = (phase: FlightPhase): boolean =>
  phase === 'departed' || phase === 'landed' || phase === 'diverted';

/** One flight as a provider knows it at the moment of the call. */
export interface ProviderFlight {
  /** The provider that answered, e.g. `sim`. */
  provider: string;
  /** Designator the record was found under, normalised (`W63101`); a marketing number for a codeshare. */
  flightIata: string | null;
  flightIcao: string | null;
  /** ATC callsign when known (`WZZ3101`, `RYR5GK`). */
  callsign: string | null;
  airline: AirlineRef;
  /** Set when `flightIata` is a codeshare: the flight that actually operates. */
  operating: { flightIata: string | null; flightIcao: string | null; airline: AirlineRef } | null;
  /** Other designators sold on this flight. */
  codeshares: string[];
  operation: Operation;
  departure: FlightEnd;
  arrival: FlightEnd;
  /** Where the flight landed instead of its destination, when the provider names it. */
  divertedTo: AirportRef | null;
  phase: FlightPhase;
  cancelled: boolean;
  diverted: boolean;
  /** The provider's own status text, unmodified. */
  statusRaw: string | null;
  aircraft: AircraftRef | null;
  /** The moment this picture describes. */
  observedAt: number;
  /** The provider holds the settled record: actual arrival seen, or cancelled, or diverted and landed. */
  settled: boolean;
  /**
   * Where the provider's answer contradicts itself or cannot settle a verdict, one sentence each, for
   * the rationale ("the schedule is a copy of the actual times"). A flight with a doubt is `settled`
   * only when no reading of the doubted times could change its outcome (`doubtWeight`, weighed by
   * providers/doubts.ts); otherwise its verdict is given with lowered confidence and not stored
   * (docs/providers.md, "What real answers contain").
   */
  doubts?: string[];
  /** What the doubts bear on together; absent with doubts: the outcome itself is in doubt. */
  doubtWeight?: DoubtWeight;
}

/** One flight as one board shows it (a board event's `data.flight`, docs/boards.md, before the engine's verdict). */
export interface BoardRow {
  /** Designator as the board prints it, e.g. `W6 3101`. */
  flightNumber: string;
  flightIata: string | null;
  flightIcao: string | null;
  callsign: string | null;
  direction: Direction;
  airline: AirlineRef;
  codeshares: string[];
  operation: Operation;
  aircraftType: string | null;
  /** Known once the aircraft is assigned; boards often leave it empty. */
  registration: string | null;
  origin: AirportRef;
  destination: AirportRef;
  divertedTo: AirportRef | null;
  /** Scheduled, estimated and actual time at this board's airport. */
  scheduledAt: number;
  estimatedAt: number | null;
  actualAt: number | null;
  /** The board's status text, unmodified. */
  status: string;
  cancelled: boolean;
  diverted: boolean;
  runway: string | null;
  /**
   * The flight has left its origin (for an arrivals row: it is in the air, or landed), from the
   * provider's structured data, never from its status text (which AeroAPI localises); absent when
   * the provider cannot tell.
   */
  departed?: boolean;
  /**
   * The flight's times at its other airport (a departures row: its arrival; an arrivals row: its
   * departure), where the provider's board gives both ends (the simulated world, AeroDataBox with legs, AeroAPI); absent otherwise.
   */
  otherEnd?: { scheduledAt: number; estimatedAt: number | null; actualAt: number | null };
}

export interface AircraftRecord extends AircraftRef {
  registration: string;
  airline: AirlineRef | null;
  operation: Operation;
  seats: number | null;
}

/** Why a call failed. All are safe to retry later. */
export type ProviderErrorKind = 'timeout' | 'aborted' | 'unavailable' | 'rate_limited' | 'bad_response';

export interface ProviderError {
  kind: ProviderErrorKind;
  message: string;
}

export type Answer<T> =
  | { outcome: 'hit'; value: T }
  | { outcome: 'incomplete'; value: T }
  | { outcome: 'miss' }
  | { outcome: 'error'; error: ProviderError };

export interface FlightLookup {
  /** Normalised IATA (or ICAO) designator, e.g. `W63101`. */
  designator: string;
  /** Scheduled departure date in UTC, YYYY-MM-DD. */
  flightDate: string;
  origin?: string | null;
  destination?: string | null;
  /** The departure's local date at its origin, if an earlier answer showed it: a by-local-date provider asks that file first (a hint). */
  localDate?: string | null;
  /**
   * The record the providers asked before have given (merged), for a provider that only corroborates
   * what others found (`FlightProvider.corroborates`); absent for the others.
   */
  known?: ProviderFlight | null;
}

export interface RotationQuery {
  registration: string;
  /** The ICAO 24-bit address, for a provider that tracks aircraft by it (OpenSky); null when unknown. */
  icao24: string | null;
  from: number;
  to: number;
}

export interface BoardRead {
  /** IATA code of the airport. */
  airport: string;
  board: BoardKind;
  /** Rows whose scheduled time at the airport lies in [from, to). */
  from: number;
  to: number;
}

/** One local day of an airport's board, read whole after the fact (docs/providers.md, "A past day's boards"). */
export interface BoardDay {
  /** IATA code of the airport. */
  airport: string;
  board: BoardKind;
  /** The airport's local date, YYYY-MM-DD: rows whose scheduled time there falls on it. */
  date: string;
}

export interface CallOptions {
  /** Aborted when the caller goes away, or (with a DeadlineExceeded reason) when the deadline passes. */
  signal?: AbortSignal;
  /**
   * The call's deadline: `bounded` (call.ts) aborts the signal then and answers `error` with kind
   * `timeout`; a provider budgets its retries by it and sets no timer of its own.
   */
  timeoutMs?: number;
  /** Counts the requests the call sends (a batch's provider calls, src/batches). */
  meter?: CallMeter;
  /**
   * A background call (a batch's): it takes a request slot only while a share of the per-minute
   * budget is left for single lookups and the board poller (budget.ts, backgroundReserve).
   */
  background?: boolean;
  /** Whole days of airports' departures that a batch's plan reads once for many lookups (src/batches/plan.ts). */
  departures?: DepartureDays;
}

/**
 * The flights the board poller saw with their final times (src/boards/observed.ts): a batch's plan
 * step 3 answers a lookup from them, with no provider request, when they hold everything a verdict needs.
 */
export interface ObservedFlights {
  /**
   * The flight departing `origin` under `designator` on `flightDate`, as the origin's departures board
   * and the destination's arrivals board showed it final, settled; null when the boards did not show
   * all of it (no origin given, an end not watched, a diversion, no aircraft named).
   */
  find(lookup: FlightLookup): Promise<ProviderFlight | null>;
}

export interface CallMeter {
  requests: number;
}

/**
 * The days of departures a batch reads whole: an airport's flights departing on one local day, read
 * from its board once and shared by every lookup of a flight among them. A provider that can read
 * such a day (`costs`) answers a lookup of a planned day from it.
 */
export interface DepartureDays {
  /** The plan reads this airport's departures of this local date (YYYY-MM-DD) whole. */
  planned(airport: string, localDate: string): boolean;
  /** The day as `fetch` reads it, fetched once per key and shared (a failed fetch is not kept). */
  read<T>(key: string, fetch: () => Promise<T>): Promise<T>;
}

/**
 * What a provider's questions cost in requests, as docs/providers.md ("What a call costs") states them:
 * the table a batch's plan decides from. Only providers that can read a day of departures whole have it.
 */
export interface CallCosts {
  /** A lookup of one flight, as usually answered (the local date's file). */
  lookup: number;
  /** One airport's departures of one local day, flights with both ends. */
  departuresDay: number;
  /** Both boards of one airport's past local day (`readBoardDay`, departures and arrivals), where the provider reads them. */
  airportDay?: number;
}

/** The questions, by name (declared with the setting that sets latency and failures per kind). */
export { CALL_KINDS, type CallKind } from '../config.js';
/** What the stats count calls by: the flight provider's call kinds, and a weather provider's one. */
export type CountedKind = CallKind | 'weather';

/** What the operator sees of a provider (GET /api/admin/v1/providers). */
export interface ProviderStatus {
  name: string;
  /** The base URL called (never a key); null for the simulated world. */
  url: string | null;
  requestsPerMinute: number | null;
  /** `open`: skipped after failures in a row until the cool-down ends; `half-open`: the next call is a trial. */
  circuit: 'closed' | 'open' | 'half-open';
  /** How long a 429's Retry-After still closes the provider. */
  retryAfterMs: number;
  stats: StatsSnapshot | null;
}

/** One call that shows whether the provider answers and takes the key (`flightstatus providers check`). */
export interface CheckResult {
  ok: boolean;
  message: string;
  durationMs: number;
}

export interface FlightProvider {
  /** Short stable name used in records and configuration, e.g. `sim`. */
  readonly name: string;
  /** Present when the provider can read a day of an airport's departures whole (a batch's plan). */
  readonly costs?: CallCosts;
  /**
   * A provider that adds evidence about a record others found, never a record of its own (OpenSky:
   * actual take-off and landing seen by ADS-B). It is asked with `known`, after a settled answer too,
   * and supplies only the runway times it saw.
   */
  readonly corroborates?: boolean;
  /**
   * Every leg flown under the designator on the flight date (narrowed by origin/destination when
   * given). `hit` when every returned flight is settled, `incomplete` when one is still to fly or in
   * the air, `miss` when the designator does not fly that day.
   */
  lookupFlight(lookup: FlightLookup, options?: CallOptions): Promise<Answer<ProviderFlight[]>>;
  /** The board as it looks now. `hit` with possibly no rows; `error` when it could not be read. */
  readBoard(read: BoardRead, options?: CallOptions): Promise<Answer<BoardRow[]>>;
  /**
   * A past local day of the airport's board as it ended (final times, cancellations, diversions), read
   * whole: the airport-wide figures of a flight whose airports the poller did not watch (src/boards/days.ts).
   * `hit` with the day's rows; `miss` when the provider holds no board of that airport and day (outside
   * its stored range, or an airport it does not cover). Absent where the provider cannot read a past
   * day's board (aviationstack's timetable is today's only; OpenSky has no schedule).
   */
  readBoardDay?(day: BoardDay, options?: CallOptions): Promise<Answer<BoardRow[]>>;
  /** The aircraft behind a registration. */
  lookupAircraft(registration: string, options?: CallOptions): Promise<Answer<AircraftRecord>>;
  /**
   * The flights one aircraft flew or is to fly with a scheduled departure in [from, to) (at most two
   * days), oldest first: its rotation, for tracing where a delay started. `hit` with possibly none;
   * `miss` when the provider does not know the aircraft. Absent where the provider cannot ask it.
   */
  lookupRotation?(query: RotationQuery, options?: CallOptions): Promise<Answer<ProviderFlight[]>>;
  /** Counters and state, for providers that call out. */
  status?(): ProviderStatus;
  /** Calls the provider once, as cheaply as it allows, to prove the address and the key. */
  check?(options?: CallOptions): Promise<CheckResult>;
}
