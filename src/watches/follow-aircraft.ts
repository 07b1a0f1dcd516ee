// The aircraft's day of a followed flight (docs/watches.md, "Predictions of a followed flight"): before
// it leaves, the flight's last question before departure reads the aircraft's flights of the day
// (FlightProvider.lookupRotation, the read the circumstances trace a delay with) and predicts from them as the board poll
// predicts from its boards (boards/predict.ts): `flight.predicted_qualifying` when its inbound aircraft
// is so late on an earlier leg that the departure cannot leave less than 3 hours late. Where the
// registration is known from an earlier answer, that read *is* the question (the watched flight is
// one of the aircraft's legs): no request more. Pure: follow.ts asks and stores.
import { HOUR, MINUTE } from '../clock.js';
import type { ReferenceAirports } from '../airports/index.js';
import { Fleet, predict, type Prediction, type PredictionContext } from '../boards/index.js';
import { hasLeft, type CallOptions, type FlightProvider, type ProviderFlight } from '../providers/index.js';
import { legOf, nextAskAt, rowOf, type FollowState } from './follow-plan.js';

/** The aircraft's flights read before the departure: its day so far (the poll's `leftHere` looks as far back). */
export const AIRCRAFT_DAY_BEFORE_MS = 20 * HOUR;
/** No aircraft's day is read this close to the departure: a prediction would come too late to be worth a request. */
export const LEAST_LEAD_MS = 30 * MINUTE;

/**
 * The registration whose day to read for a prediction of the flight as `flight` shows it at `at`; null
 * when none is worth reading: not a passenger departure still to leave at least LEAST_LEAD_MS ahead,
 * no aircraft named, only its arrival followed, or the engine has predicted or qualified it already.
 */
export function aircraftToRead(flight: ProviderFlight | null, state: FollowState, at: number): string | null {
  if (!flight || state.only === 'arrival') return null;
  const departure = state.departure;
  if ((departure?.predictedAt ?? null) !== null || (departure?.qualifiedAt ?? null) !== null) return null;
  if (flight.operation !== 'passenger' || flight.cancelled || flight.diverted || hasLeft(flight.phase)) return null;
  if (flight.departure.actual !== null || flight.departure.scheduled === null) return null;
  const departs = flight.departure.estimated ?? flight.departure.scheduled;
  if (departs - at < LEAST_LEAD_MS) return null;
  return flight.aircraft?.registration ?? null;
}

/**
 * Whether an answer that first names the aircraft is the flight's last before it leaves (the next
 * question is planned after the departure): its day is then read at once, or never before departure.
 */
export const lastBeforeDeparture = (flight: ProviderFlight, at: number, overdue: number): boolean => {
  const next = nextAskAt(flight, at, overdue).at;
  const departs = flight.departure.estimated ?? flight.departure.scheduled;
  return next === null || departs === null || next >= departs;
};

/** The window of the aircraft's day read for a departure: from AIRCRAFT_DAY_BEFORE_MS before it to just after it. */
export function aircraftDayWindow(flight: ProviderFlight): { from: number; to: number } {
  const departs = flight.departure.scheduled!;
  return { from: departs - AIRCRAFT_DAY_BEFORE_MS, to: departs + MINUTE };
}

/**
 * The aircraft's flights before `leg` (aircraftToRead named its registration), from the first
 * provider that offers and answers the read; null when none could (the flight is then asked itself,
 * and nothing is predicted).
 */
export async function readAircraftDay(
  providers: readonly FlightProvider[],
  leg: ProviderFlight,
  options: CallOptions,
): Promise<ProviderFlight[] | null> {
  for (const provider of providers) {
    if (!provider.lookupRotation || provider.corroborates) continue;
    const answer = await provider.lookupRotation(
      { registration: leg.aircraft!.registration!, icao24: leg.aircraft?.icao24 ?? null, ...aircraftDayWindow(leg) },
      options,
    );
    if (answer.outcome === 'hit' || answer.outcome === 'incomplete') return answer.value;
  }
  return null;
}

const normalised = (designator: string) => designator.replace(/\s+/g, '').toUpperCase();

/**
 * The watched flight among the aircraft's legs: one of its designators is the watch's, on the watch's
 * route and date (legOf); null when the aircraft's day does not show it (the flight is then asked itself).
 */
export function watchedLegIn(
  day: readonly ProviderFlight[],
  flight: Parameters<typeof legOf>[1] & { flight_number: string },
  airports: ReferenceAirports,
): ProviderFlight | null {
  const designator = normalised(flight.flight_number);
  const named = day.filter((l) =>
    [l.flightIata, l.flightIcao, ...l.codeshares].some((d) => d !== null && normalised(d) === designator),
  );
  return legOf(named, flight, airports);
}

/**
 * The prediction for the departure `flight` from the aircraft's day, as the board poll makes it from
 * its boards: every leg of the day as its origin's and destination's rows (boards/chain.ts), the
 * aircraft based at the departure's airport when it left from there earlier that day.
 */
export function predictFromDay(
  flight: ProviderFlight,
  day: readonly ProviderFlight[],
  designator: string,
  airports: ReferenceAirports,
  at: number,
): Prediction | null {
  const departure = rowOf(flight, 'departure', designator);
  if (!departure?.registration) return null;
  const rows = day
    .filter((l) => l.aircraft?.registration === departure.registration)
    .flatMap((l) => {
      const number = l.flightIata ?? l.flightIcao ?? designator;
      return [rowOf(l, 'departure', number), rowOf(l, 'arrival', number)].filter((r) => r !== null);
    });
  const origin = departure.origin.iata;
  const context: PredictionContext = {
    fleet: Fleet.of([rows]),
    leftHere: (_registration, before) =>
      day.some(
        (l) =>
          l.departure.airport.iata === origin &&
          l.departure.scheduled !== null &&
          l.departure.scheduled < before &&
          l.departure.scheduled >= before - AIRCRAFT_DAY_BEFORE_MS,
      ),
    zone: (iata) => (iata ? (airports.find(iata)?.timezone ?? null) : null),
  };
  return predict(departure, context, at);
}
