// `flight.predicted_qualifying` (docs/boards.md, "Predictions"): the aircraft due to operate a
// departure is late on an earlier leg so that the departure cannot leave less than 3 hours late. The
// aircraft's legs before the departure (chain.ts: every board of the pass that lists its
// registration) are walked back to the last one it has flown or is flying, then projected forward:
// each leg leaves no earlier than its schedule, its published time and the aircraft's readiness (the
// leg before's arrival plus the type's minimum turnaround), and lasts at least the share of its
// scheduled block time no flight undercuts; the departure is projected at the aircraft's readiness.
import { EU261_DELAY_MINUTES } from '../compensation/index.js';
import type { BoardRow } from '../providers/index.js';
import { offsetMinutes } from '../providers/zones.js';
import type { Prediction, PredictionLeg } from './engine.js';
import { orderOf, type Fleet, type FleetLeg } from './chain.js';
import { minTurnaroundMinutes } from './turnaround.js';

const MINUTE = 60_000;
/** Projected delay that predicts qualification: 3 h; 3 h 15 when the inbound has not left yet. */
const PREDICT_HIGH_MINUTES = EU261_DELAY_MINUTES;
const PREDICT_MEDIUM_MINUTES = EU261_DELAY_MINUTES + 15;
/**
 * The least share of its scheduled block time a leg not yet landed is assumed to take: schedules are
 * padded, and flights that leave late make up some of it (in the simulated world 99.9 % of flights
 * take more than 0.84 of theirs; docs/boards.md, "Predictions").
 */
const LEAST_BLOCK_SHARE = 0.85;
/**
 * Earlier legs looked at, the inbound included: the inbound and the leg before it. Further back, a
 * carrier has time to swap the aircraft or cancel, and predictions resting on more legs were right less
 * often (docs/boards.md, "Predictions").
 */
const MAX_LEGS = 2;

/** What a prediction reads besides the departure's row: the pass's fleet, and what this airport's board has shown before. */
export interface PredictionContext {
  fleet: Fleet;
  /** Whether the aircraft left this airport earlier in its day (this airport's departures watches): it is based here. */
  leftHere(registration: string, before: number): boolean;
  /** IANA zone of an airport; null when unknown. */
  zone(iata: string | null): string | null;
}

export function predict(departure: BoardRow, context: PredictionContext, at: number): Prediction | null {
  const { fleet } = context;
  if (
    departure.operation !== 'passenger' ||
    departure.cancelled ||
    departure.actualAt !== null ||
    !departure.registration
  )
    return null;
  const chain = chainBefore(departure, fleet.legsOf(departure.registration));
  if (chain.length === 0) return null;
  const inbound = chain[chain.length - 1]!;
  // The inbound has left (or landed): its own arrival time is what counts; otherwise a published
  // time anywhere in the chain is an announcement that may still move, held to a higher bar.
  const airborne = inbound.arrivalActual !== null || inbound.departed;
  if (airborne && inbound.arrivalActual === null && inbound.arrivalEstimate === null) return null;
  const legs: PredictionLeg[] = [];
  let ready = -Infinity;
  for (const leg of chain) {
    const projected = project(leg, ready, at);
    const turnaround = minTurnaroundMinutes(leg.aircraftType ?? departure.aircraftType);
    legs.push({ ...projected, turnaroundMinutes: turnaround });
    ready = projected.projectedArrivalAt + turnaround * MINUTE;
  }
  const projectedDepartureAt = Math.max(departure.scheduledAt, ready, at);
  const projectedDelayMinutes = Math.trunc((projectedDepartureAt - departure.scheduledAt) / MINUTE);
  if (projectedDelayMinutes < (airborne ? PREDICT_HIGH_MINUTES : PREDICT_MEDIUM_MINUTES)) return null;
  const last = legs[legs.length - 1]!;
  if (backAfterNight(departure, projectedDepartureAt, last.turnaroundMinutes, inbound, context)) return null;
  return {
    registration: departure.registration,
    projectedDepartureAt,
    projectedDelayMinutes,
    confidence: airborne ? 'high' : 'medium',
    minTurnaroundMinutes: last.turnaroundMinutes,
    inbound: {
      flightNumber: inbound.flightNumber,
      origin: inbound.origin,
      scheduledArrivalAt: last.scheduledArrivalAt,
      projectedArrivalAt: last.projectedArrivalAt,
      status: inbound.status,
    },
    basis: legs,
  };
}

/**
 * The local time, the morning after the departure's scheduled day, past which an aircraft is not
 * brought back to its base (05:00): the next day's first departures leave from 06:00.
 */
const NIGHT_ENDS_MINUTES = 29 * 60;
const DAY = 24 * 60 * MINUTE;

/**
 * Whether the aircraft, leaving at the projected time, would only get back to its base after the
 * night: carriers then cancel the out-and-back that ends there rather than fly it (crews' hours, night
 * curfews, the next morning's first departures), so a delay is not what follows. Its base is the
 * departure's destination when the departure takes it back where its inbound came from; the
 * departure's own airport when the aircraft left from there earlier in its day (the return is then
 * taken to last as long as the departure). Neither: the aircraft's base is not known, and nothing is held back.
 */
function backAfterNight(
  departure: BoardRow,
  projectedDepartureAt: number,
  turnaroundMinutes: number,
  inbound: FleetLeg,
  context: PredictionContext,
): boolean {
  const scheduledArrival = departure.otherEnd?.scheduledAt;
  if (scheduledArrival === undefined || !departure.registration) return false;
  const block = scheduledArrival - departure.scheduledAt;
  let home: number;
  let base: string | null;
  if (inbound.origin !== null && inbound.origin === departure.destination.iata) {
    // Once the aircraft has flown out, it is brought home however late.
    if (inbound.departed || inbound.arrivalActual !== null) return false;
    home = projectedDepartureAt + block;
    base = departure.destination.iata;
  } else if (context.leftHere(departure.registration, departure.scheduledAt)) {
    home = projectedDepartureAt + 2 * block + turnaroundMinutes * MINUTE;
    base = departure.origin.iata;
  } else return false;
  const zone = context.zone(base);
  if (!zone) return false;
  const offset = offsetMinutes(zone, departure.scheduledAt) * MINUTE;
  const dayStart = Math.floor((departure.scheduledAt + offset) / DAY) * DAY - offset;
  return home > dayStart + NIGHT_ENDS_MINUTES * MINUTE;
}

/**
 * The aircraft's legs before the departure, oldest first: back from the inbound (the latest leg
 * scheduled to arrive at the departure's airport before it) while each leg arrives where the next
 * leaves, up to the latest that has left (what came before it no longer matters). Empty when no board
 * shows the inbound, or a leg of the chain is cancelled or diverted (the aircraft's day is no longer
 * the schedule's).
 */
function chainBefore(departure: BoardRow, legs: readonly FleetLeg[]): FleetLeg[] {
  const chain: FleetLeg[] = [];
  let place = departure.origin.iata;
  let before = departure.scheduledAt;
  for (let i = legs.length - 1; i >= 0 && chain.length < MAX_LEGS; i--) {
    const leg = legs[i]!;
    if (orderOf(leg) >= before) continue;
    if (leg.destination !== place || leg.scheduledArrival === null || leg.scheduledArrival > before) break;
    if (leg.cancelled || leg.diverted) return [];
    chain.unshift(leg);
    // Left already (what came before no longer matters), or its departure is not known (nothing to walk back from).
    if (leg.departed || leg.arrivalActual !== null || leg.scheduledDeparture === null) break;
    place = leg.origin;
    before = leg.scheduledDeparture;
  }
  return chain;
}

/** When a leg of the chain leaves and arrives, at the earliest, given when the aircraft is ready for it. */
function project(leg: FleetLeg, ready: number, at: number): Omit<PredictionLeg, 'turnaroundMinutes'> {
  const scheduledArrival = leg.scheduledArrival!;
  const scheduledDeparture = leg.scheduledDeparture ?? scheduledArrival;
  const least = Math.round((scheduledArrival - scheduledDeparture) * LEAST_BLOCK_SHARE);
  let departure: number;
  let arrival: number;
  let observed: PredictionLeg['observed'];
  if (leg.arrivalActual !== null) {
    observed = 'landed';
    departure = leg.departureActual ?? leg.departureEstimate ?? scheduledDeparture;
    arrival = leg.arrivalActual;
  } else if (leg.departed) {
    observed = 'airborne';
    departure = leg.departureActual ?? leg.departureEstimate ?? scheduledDeparture;
    arrival = leg.arrivalEstimate ?? departure + least;
  } else {
    observed = leg.departureEstimate !== null || leg.arrivalEstimate !== null ? 'estimate' : 'schedule';
    departure = Math.max(scheduledDeparture, leg.departureEstimate ?? -Infinity, ready, at);
    arrival = Math.max(departure + least, leg.arrivalEstimate ?? -Infinity);
  }
  return {
    flightNumber: leg.flightNumber,
    origin: leg.origin,
    destination: leg.destination,
    scheduledDepartureAt: leg.scheduledDeparture,
    scheduledArrivalAt: scheduledArrival,
    projectedDepartureAt: departure,
    projectedArrivalAt: arrival,
    observed,
  };
}
