// Following a watched flight through the providers (docs/watches.md, "Followed through the
// providers"): what a provider's answer looks like as the two board rows the board engine reads (its
// departure and its arrival, as the origin's and the destination's boards would show it), and when
// the flight is asked next, from the phase the answer shows. Pure: follow.ts asks and stores.
import { HOUR, MINUTE } from '../clock.js';
import type { ReferenceAirports } from '../airports/index.js';
import { hasLeft, type BoardRow, type FlightLookup, type ProviderFlight } from '../providers/index.js';
import { offsetMinutes } from '../providers/zones.js';
import { utcDatesOf } from '../flights/index.js';
import type { Watch } from '../boards/index.js';

/** The first question: this long before the flight date begins (UTC; 14 hours more for a local date). */
export const FIRST_ASK_BEFORE_MS = 3 * HOUR;
const LOCAL_AHEAD_MS = 14 * HOUR;
/** Before departure, one question this long before the (estimated) departure: delays announced early. */
export const BEFORE_DEPARTURE_MS = 2 * HOUR;
/** After the (estimated) departure and arrival: the time a provider takes to show the movement. */
export const AFTER_MOVEMENT_MS = 20 * MINUTE;
/** The shortest gap between two questions about one flight. */
export const MIN_GAP_MS = 15 * MINUTE;
/** Back-off after a failed question (doubled each time, at most MAX_BACKOFF_MS). */
export const BACKOFF_MS = 10 * MINUTE;
export const MAX_BACKOFF_MS = 4 * HOUR;
/** A flight not found this many times in a row is no longer followed (the settle job decides it). */
export const MAX_MISSES = 3;
/**
 * Following ends this long after its date began (UTC; 14 hours later for a local date): when the
 * settle job asks about every watch of the date anyway, with its own back-off (settle.ts).
 */
export const FOLLOW_FOR_MS = 30 * HOUR;
/** Following's end for a flight date (FOLLOW_FOR_MS). */
export const followEndsAt = (flightDate: string, basis: 'utc' | 'local') =>
  Date.parse(`${flightDate}T00:00:00Z`) + FOLLOW_FOR_MS + (basis === 'local' ? LOCAL_AHEAD_MS : 0);

/** What the follower remembers of one flight between questions (followed_flights.state). */
export interface FollowState {
  /** The board engine's memory of the flight as each end's board would show it. */
  departure: Watch | null;
  arrival: Watch | null;
  /** The last answer's flight: the settle job's record when it is settled (no request again). */
  last: ProviderFlight | null;
  /** Failed questions in a row (errors, refusals), and answers that did not find it. */
  failures: number;
  /** Answers in a row that showed the expected movement (departure, arrival) overdue and not yet seen. */
  overdue?: number;
  misses: number;
  /**
   * The route the first answer showed (a watch may name neither end): later questions name its
   * origin, the UTC date of its departure (a local-date watch's first question may ask two) and its
   * local date (a by-local-date provider's one file).
   */
  route?: { origin: string | null; destination: string | null; localDate?: string | null; utcDate?: string | null };
  /** Why it is not asked any more: `settled`, `not_found`, `expired`, `on_boards` (a flight nobody watches any more is forgotten). */
  done: string | null;
  /**
   * `arrival`: handed over by the board poll once its origin's board showed it gone to an airport no
   * board read shows; that board sent the departure's events, following sees the arrival only.
   */
  only?: 'arrival';
}

export const initialState = (): FollowState => ({
  departure: null,
  arrival: null,
  last: null,
  failures: 0,
  misses: 0,
  done: null,
});

/** When a flight first becomes worth one question: a few hours before its date begins, or now. */
export function firstAskAt(flightDate: string, basis: 'utc' | 'local', at: number): number {
  const start = Date.parse(`${flightDate}T00:00:00Z`) - (basis === 'local' ? LOCAL_AHEAD_MS : 0);
  return Math.max(at, start - FIRST_ASK_BEFORE_MS);
}

/**
 * The leg of an answer the watch means: on its route where it names one, and for a local-date watch
 * departing on that date at its origin's clock; else the first.
 */
export function legOf(
  legs: ProviderFlight[],
  flight: Pick<FollowedFlight, 'origin' | 'destination' | 'flight_date' | 'date_basis'>,
  airports: ReferenceAirports,
): ProviderFlight | null {
  const on = (ref: { iata: string | null; icao: string | null }, code: string | null) =>
    !code || ref.iata === code || ref.icao === code;
  const dated = (l: ProviderFlight) => flight.date_basis === 'utc' || localDateOf(airports, l) === flight.flight_date;
  return (
    legs.find((l) => on(l.departure.airport, flight.origin) && on(l.arrival.airport, flight.destination) && dated(l)) ??
    null
  );
}

/** The answer as the board row of one end (null when the provider gives no scheduled time there). */
export function rowOf(flight: ProviderFlight, direction: 'departure' | 'arrival', designator: string): BoardRow | null {
  const end = direction === 'departure' ? flight.departure : flight.arrival;
  const other = direction === 'departure' ? flight.arrival : flight.departure;
  if (end.scheduled === null) return null;
  return {
    flightNumber: flight.flightIata ?? flight.flightIcao ?? designator,
    flightIata: flight.flightIata,
    flightIcao: flight.flightIcao,
    callsign: flight.callsign,
    direction,
    airline: flight.airline,
    codeshares: flight.codeshares,
    operation: flight.operation,
    aircraftType: flight.aircraft?.typeIcao ?? flight.aircraft?.typeIata ?? null,
    registration: flight.aircraft?.registration ?? null,
    origin: flight.departure.airport,
    destination: flight.arrival.airport,
    divertedTo: flight.divertedTo,
    scheduledAt: end.scheduled,
    estimatedAt: end.estimated,
    actualAt: end.actual,
    status: flight.statusRaw ?? flight.phase,
    cancelled: flight.cancelled,
    diverted: flight.diverted,
    runway: end.runway,
    departed: hasLeft(flight.phase),
    ...(other.scheduled !== null
      ? { otherEnd: { scheduledAt: other.scheduled, estimatedAt: other.estimated, actualAt: other.actual } }
      : {}),
  };
}

/** The record is as complete as following can make it: landed with its arrival time, cancelled, or diverted and down. */
export const isComplete = (flight: ProviderFlight): boolean =>
  flight.cancelled || flight.settled || (flight.arrival.actual !== null && !flight.diverted);

/** The wait after the n-th answer in a row that shows an expected movement overdue: an hour, doubled, at most 6 hours. */
export const overdueMs = (n: number) => Math.min(6 * HOUR, HOUR * 2 ** Math.max(0, n - 1));

/**
 * When to ask next after an answer (`at: null`: nothing more to ask), and how many answers in a row
 * have shown the expected movement overdue. Before departure, once a couple of hours before it and
 * once just after it; in the air, once just after the expected arrival; after landing, until the
 * record is complete. A movement that is overdue and still not shown (a provider that never gives
 * the arrival time) is asked about less and less often (overdueMs); a diversion hourly until down.
 */
export function nextAskAt(flight: ProviderFlight, at: number, overdue = 0): { at: number | null; overdue: number } {
  if (isComplete(flight)) return { at: null, overdue: 0 };
  const later = (t: number) => ({ at: Math.max(t, at + MIN_GAP_MS), overdue: 0 });
  const late = () => ({ at: at + Math.max(MIN_GAP_MS, overdueMs(overdue + 1)), overdue: overdue + 1 });
  const dep = flight.departure;
  const arr = flight.arrival;
  if (flight.diverted) return later(at + HOUR);
  if (!hasLeft(flight.phase) && dep.actual === null) {
    const departs = dep.estimated ?? dep.scheduled;
    if (departs === null) return late();
    if (at < departs - BEFORE_DEPARTURE_MS - MIN_GAP_MS) return later(departs - BEFORE_DEPARTURE_MS);
    return at < departs + AFTER_MOVEMENT_MS ? later(departs + AFTER_MOVEMENT_MS) : late();
  }
  const arrives = arr.estimated ?? arr.scheduled;
  if (arrives === null || at >= arrives + AFTER_MOVEMENT_MS) return late();
  return later(arrives + AFTER_MOVEMENT_MS);
}

/** The back-off after `failures` failed questions in a row, at least what the provider asked (Retry-After). */
export function backoffMs(failures: number, askedMs = 0): number {
  return Math.max(askedMs, Math.min(MAX_BACKOFF_MS, BACKOFF_MS * 2 ** Math.max(0, failures - 1)));
}

/** A followed flight as its watches ask it (followed_flights). */
type FollowedFlight = {
  flight_number: string;
  flight_date: string;
  date_basis: 'utc' | 'local';
  origin: string | null;
  destination: string | null;
};

/**
 * The UTC dates a question asks, in turn until one finds the flight: the one the first answer showed;
 * a UTC watch's own date; the UTC dates a local-date watch's day spans at its origin (both neighbours
 * when its origin is not known yet), as a lookup with `dateBasis=local` asks them.
 */
export function questionDates(airports: ReferenceAirports, f: FollowedFlight, state: FollowState): string[] {
  if (state.route?.utcDate) return [state.route.utcDate];
  if (f.date_basis === 'utc') return [f.flight_date];
  const origin = f.origin ?? state.route?.origin ?? null;
  const zone = origin ? airports.find(origin)?.timezone : undefined;
  return utcDatesOf(f.flight_date, zone ? offsetMinutes(zone, Date.parse(`${f.flight_date}T12:00:00Z`)) : null);
}

/** The departure's local date at its origin (a provider filing by local date asks that file first). */
export function localDateOf(airports: ReferenceAirports, leg: ProviderFlight): string | null {
  const at = leg.departure.scheduled;
  const zone = leg.departure.airport.iata ? airports.find(leg.departure.airport.iata)?.timezone : undefined;
  if (at === null || !zone) return null;
  return new Date(at + offsetMinutes(zone, at) * 60_000).toISOString().slice(0, 10);
}

/**
 * The question of one UTC date (questionDates): the watch's flight, naming the origin the first
 * answer showed when the watch names none (one file, not three), and the local date (a local-date
 * watch's own before any answer).
 */
export const lookupOf = (f: FollowedFlight, state: FollowState, flightDate: string): FlightLookup => ({
  designator: f.flight_number,
  flightDate,
  origin: f.origin ?? state.route?.origin ?? null,
  destination: f.destination,
  localDate: state.route?.localDate ?? (f.date_basis === 'local' ? f.flight_date : null),
});
