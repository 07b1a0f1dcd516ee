// What the verdict says about why a disrupted flight was disrupted (`data.circumstances`, docs/flight-lookup.md, "Circumstances"),
// and the words it uses: the cause kinds of the simulated world's ground truth, and how far the
// evidence supports the airline's defence of extraordinary circumstances (Art. 5(3)).
import type { WeatherFlag } from '../weather/index.js';

/** The disruptions whose circumstances are gathered. */
export type Outcome = 'cancelled' | 'diverted' | 'delayed';

export type CauseKind =
  'none' | 'weather' | 'atc' | 'airport' | 'technical' | 'crew' | 'airline_strike' | 'third_party_strike' | 'knock_on';
export const CAUSES: readonly (CauseKind | 'unknown')[] = [
  'none',
  'weather',
  'atc',
  'airport',
  'technical',
  'crew',
  'airline_strike',
  'third_party_strike',
  'knock_on',
  'unknown',
];

/**
 * `likely_extraordinary`: the evidence shows a circumstance the case law counts as extraordinary
 * (weather beyond the limits aircraft land and leave in, at the time); `possibly_extraordinary`: one
 * that may be (an airport-wide wave of delays or cancellations, or a strike day, the boards show with
 * no report of its cause); `not_indicated`: the evidence was looked at and shows none (what is left is
 * the airline's own: a technical fault, its crew, its staff's strike); `unknown`: a part that could
 * show one could not be gathered, and the rest shows none.
 */
export type ExtraordinaryAssessment = 'likely_extraordinary' | 'possibly_extraordinary' | 'not_indicated' | 'unknown';
export const ASSESSMENTS: readonly ExtraordinaryAssessment[] = [
  'likely_extraordinary',
  'possibly_extraordinary',
  'not_indicated',
  'unknown',
];

export interface LegRef {
  flightNumber: string;
  flightDate: string;
  origin: string;
  destination: string;
}

/** One report consulted at an airport the flight (or its origin leg) used, around its times there: flagged or not (a clean report is evidence too). */
export interface WeatherEvidence {
  airport: string;
  at: string;
  /** Empty when the report shows no weather that matters. */
  flags: WeatherFlag[];
  /** The METAR as issued. */
  report: string;
}

/**
 * What the usual of an airport's window is: `days_before`, the mean of the same window on the days
 * before that the boards were watched in those hours; `published_rates`, the window's own scheduled
 * flights times the published shares of flights delayed and cancelled (a day read after the fact, or
 * watched boards with no day before watched then); `published_delays`, watched boards whose window the
 * poll kept whole: delays as `published_rates`, cancellations as `days_before` (docs/weather.md, "Usual").
 */
export type Baseline = 'days_before' | 'published_delays' | 'published_rates';
export const BASELINES: readonly Baseline[] = ['days_before', 'published_delays', 'published_rates'];

/** What an airport's boards showed in a window, and what they usually show then. */
export interface AirportFigures {
  airport: string;
  from: string;
  to: string;
  cancelled: number;
  delayed: number;
  usual: { cancelled: number; delayed: number };
  baseline: Baseline;
}

/** One disruption an airport's boards showed: a flight delayed, cancelled or diverted, when it was due there and when it was seen. */
export interface BoardSighting {
  type: 'flight.delayed' | 'flight.cancelled' | 'flight.diverted';
  flightId: string;
  /** The flight's designator as the board gave it (ICAO, else as printed), normalised (`AFR7127`); null on events stored before 0012. */
  flight: string | null;
  airport: string;
  board: string;
  scheduledAt: number;
  carrier: string | null;
  seenAt: number;
}

/**
 * What the circumstances read of the boards the service watches (no provider call): the boards'
 * store implements it (src/boards/store.ts), as the webhook fan-out implements the boards' subscribers.
 */
export interface BoardHistory {
  /** Disruptions of these types shown on the airport's boards for flights due there in [from, to). */
  sightings(
    airport: string,
    types: readonly BoardSighting['type'][],
    from: number,
    to: number,
  ): Promise<BoardSighting[]>;
  /** Cancellations of the carrier's flights (IATA, else ICAO code) due in [from, to), on every watched board. */
  carrierCancellations(carrier: string, from: number, to: number): Promise<BoardSighting[]>;
  /**
   * The same, counted per hour of the flights' time (the usual of a window is the sum of its hours on
   * the days before: counted by the database, not read), by airport or by carrier.
   */
  hourly(
    by: 'airport' | 'carrier',
    value: string,
    type: BoardSighting['type'],
    from: number,
    to: number,
  ): Promise<HourTally[]>;
  /**
   * Whether the poller read the airport's boards during the hours [from, to) or soon enough after that
   * they still listed the flights due then: what the boards showed of those hours was seen (the test is
   * the store's: src/boards/store.ts).
   */
  watchedAt(airport: string, from: number, to: number): Promise<boolean>;
}

/** One flight as a past day's board showed it at its end (a departure or an arrival), read after the fact. */
export interface PastMovement {
  board: 'departures' | 'arrivals';
  /** The designator as a lookup normalises it (`W63101`). */
  flight: string;
  /** Every designator the row gives it (IATA, ICAO, callsign), normalised: how the boards' events name it. */
  designators: string[];
  /** The operating carrier (IATA, else ICAO). */
  carrier: string | null;
  scheduledAt: number;
  /** When it left (departures) or arrived (arrivals), else the last estimate; null when the board gave neither. */
  at: number | null;
  cancelled: boolean;
  diverted: boolean;
  registration: string | null;
  /** The airport at its other end (IATA, else ICAO). */
  other: string | null;
  /** The board's airport (IATA). */
  airport: string;
  /** When it left (departures) or arrived (arrivals); null when the board did not say (unlike `at`, never an estimate). */
  actualAt: number | null;
  /** Its other end's scheduled and actual times, where the board gives them once final (the simulated world, AeroDataBox, AeroAPI). */
  otherScheduledAt: number | null;
  otherActualAt: number | null;
}

/**
 * What came of asking for an airport's boards of one past local day: `read` (kept, now or before);
 * `not_available` (the provider holds no board of that day: outside its stored range, or it failed);
 * `not_offered` (no provider configured reads a past day's boards); `not_over` (the day has not ended
 * long enough ago for its flights to be final).
 */
export type DayRead = 'read' | 'not_available' | 'not_offered' | 'not_over';

/**
 * Airport evidence for any past window (docs/boards.md, "A past day's boards"): an airport's boards of a past local day,
 * read whole from the provider when the poller did not watch them, and kept (src/boards/days.ts).
 */
export interface PastBoards {
  /** Makes sure the airport's boards of its local date are read (once: kept, and shared by every later ask). */
  read(
    airport: string,
    date: string,
    call: { signal: AbortSignal; meter?: { requests: number }; background?: boolean },
  ): Promise<DayRead>;
  /** The flights of the airport's read days scheduled there in [from, to), both boards. */
  movements(airport: string, from: number, to: number): Promise<PastMovement[]>;
  /** Every kept row of the aircraft (by registration) scheduled in [from, to), at any airport, watched or read. */
  aircraft(registration: string, from: number, to: number): Promise<PastMovement[]>;
  /** Whether every row of the airport's boards scheduled in [from, to) is kept: hours the poll kept whole, the rest in days read whole (so a flight not on them did not fly there then). */
  held(airport: string, from: number, to: number): Promise<boolean>;
  /** How many of the airport's days this process has read: figures worked out from its rows before may lack theirs. */
  version(airport: string): number;
}

/**
 * What could be looked at, part by part (docs/weather.md, "What was not seen"). A part not looked at is never read as
 * "nothing happened" (docs/weather.md, "What was not seen").
 * - weather, per airport and window asked: `read` (reports were had), `not_available` (no reports: the
 *   airport has no station we know, or the weather provider had none or failed);
 * - boards, per airport and window of its figures: `watched` (the poller read them at the time),
 *   `read` (not watched, but the airport's boards of that local day were read after the fact from the
 *   provider: how the day ended, not when its cancellations were announced), `not_watched` (neither:
 *   no provider configured reads a past day's board, or the day is not over yet), `not_available`
 *   (the provider holds no board of that day: outside its stored range, or it failed), `not_kept`
 *   (this service keeps no boards of those hours: no database, or past FLIGHTSTATUS_RETENTION_DAYS);
 * - aircraft: `followed` (its day was read from a provider and the flight found in it), `boards` (the
 *   aircraft's flights the finding needs were all on the boards the service kept, watched or read
 *   after the fact, so its day was not asked: circumstances/kept-day.ts), `not_needed` (a diversion:
 *   where it landed decides, and the aircraft's other flights do not bear on it), `no_registration` (the record
 *   names no aircraft), `not_offered` (no provider offers an aircraft's day), `not_available` (the
 *   providers that do had no answer, or an answer without this flight).
 */
export type WeatherSeen = 'read' | 'not_available';
export type BoardsSeen = 'watched' | 'read' | 'not_watched' | 'not_available' | 'not_kept';
export type AircraftSeen = 'followed' | 'boards' | 'not_needed' | 'no_registration' | 'not_offered' | 'not_available';
export const WEATHER_SEEN: readonly WeatherSeen[] = ['read', 'not_available'];
export const BOARDS_SEEN: readonly BoardsSeen[] = ['watched', 'read', 'not_watched', 'not_available', 'not_kept'];
export const AIRCRAFT_SEEN: readonly AircraftSeen[] = [
  'followed',
  'boards',
  'not_needed',
  'no_registration',
  'not_offered',
  'not_available',
];

export interface Seen {
  weather: { airport: string; from: string; to: string; status: WeatherSeen }[];
  boards: { airport: string; from: string; to: string; status: BoardsSeen }[];
  aircraft: AircraftSeen;
}

/** A cancellation on the boards within this of the flight's time was made on the day (the airport, the weather); earlier, it was planned (a strike, a roster). */
export const SHORT_NOTICE = 4 * 60 * 60_000;

/** One hour's count: events of a type for flights due in [hour, hour + 1 h), and how many appeared within 4 hours of their time. */
export interface HourTally {
  hour: number;
  count: number;
  shortNotice: number;
}

export interface Circumstances {
  assessment: ExtraordinaryAssessment;
  cause: CauseKind | 'unknown';
  /** The leg of the same aircraft where a knock-on delay started; null when it started on this flight. */
  originLeg: LegRef | null;
  weather: WeatherEvidence[];
  airport: AirportFigures[];
  /** What was looked at, and what could not be. */
  seen: Seen;
  /** Plain sentences: what was found, the rule and the case law it bears on, what could not be checked. */
  reasons: string[];
  /**
   * A cancellation: when the boards this service watched first showed it cancelled (the latest it can
   * have been announced: a bound, not the airline's notice), or null where no watched board showed it
   * (not watched then, or a past day's board, which shows how the day ended). Absent for other outcomes.
   */
  cancellationSeenAt?: string | null;
}
