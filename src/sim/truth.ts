// Ground truth for operators and tests: what really happened to each simulated flight, and the
// calibration statistics over many days that docs/simulation.md compares with published figures.
import { iso, MINUTE } from '../clock.js';
import type { Operation } from '../providers/types.js';
import { delayCauseOf, type SimLeg } from './day.js';
import type { CauseKind } from './hazards.js';
import type { SimWorld } from './world.js';
import { addDays } from './time.js';

export type TruthStatus = 'delayed' | 'cancelled' | 'diverted' | 'on_time';
export const TRUTH_STATUSES: readonly TruthStatus[] = ['delayed', 'cancelled', 'diverted', 'on_time'];
export const OPERATIONS: readonly Operation[] = ['passenger', 'cargo', 'military', 'private'];

/**
 * Arrival delay from which a flight counts as delayed: 15 minutes, the industry's and EUROCONTROL's
 * on-time definition (A15). The order is cancelled, then diverted, then delayed, then on time.
 */
export const DELAYED_FROM_MINUTES = 15;

export interface TruthFlight {
  flightNumber: string;
  flightDate: string;
  airline: { name: string; iata: string | null; icao: string };
  callsign: string;
  codeshares: string[];
  operation: Operation;
  origin: string;
  destination: string;
  divertedTo: string | null;
  scheduledDeparture: string;
  scheduledArrival: string;
  actualDeparture: string | null;
  actualArrival: string | null;
  departureDelayMinutes: number | null;
  arrivalDelayMinutes: number | null;
  status: TruthStatus;
  cancelledAt: string | null;
  registration: string;
  aircraftType: string;
  /** Why it was late, cancelled or diverted; for a knock-on, the leg where the delay started. */
  delayCause: DelayCause;
}

export interface LegRef {
  flightNumber: string;
  flightDate: string;
  origin: string;
  destination: string;
}

export interface DelayCause {
  kind: CauseKind;
  originLeg: LegRef | null;
}

/**
 * The cause the world knows: the one that cancelled or diverted it, or, for a flight 15 minutes or
 * more late on arrival, its own delay's or its inbound aircraft's (knock-on); `none` otherwise.
 */
export function causeOf(leg: SimLeg): DelayCause {
  const ref = (origin: SimLeg | null): LegRef | null =>
    origin && {
      flightNumber: origin.plan.designator,
      flightDate: origin.flightDate,
      origin: origin.plan.from.iata,
      destination: origin.plan.to.iata,
    };
  if (leg.cancelled || leg.divertedTo) return { kind: leg.disruptionCause!, originLeg: ref(leg.disruptionOrigin) };
  if (statusOf(leg) !== 'delayed') return { kind: 'none', originLeg: null };
  const cause = delayCauseOf(leg);
  return { kind: cause.kind, originLeg: ref(cause.origin) };
}

const minutes = (ms: number) => Math.round(ms / MINUTE);

export function statusOf(leg: SimLeg): TruthStatus {
  if (leg.cancelled) return 'cancelled';
  if (leg.divertedTo) return 'diverted';
  return minutes(leg.actualArrival! - leg.scheduledArrival) >= DELAYED_FROM_MINUTES ? 'delayed' : 'on_time';
}

export function truthOf(leg: SimLeg): TruthFlight {
  const { plan } = leg;
  const airline = plan.rotation.seller;
  const flown = !leg.cancelled;
  return {
    flightNumber: plan.designator,
    flightDate: leg.flightDate,
    airline: { name: airline.name, iata: airline.iata, icao: airline.icao },
    callsign: plan.callsign,
    codeshares: plan.codeshares,
    operation: plan.rotation.operation,
    origin: plan.from.iata,
    destination: plan.to.iata,
    divertedTo: leg.divertedTo?.iata ?? null,
    scheduledDeparture: iso(leg.scheduledDeparture),
    scheduledArrival: iso(leg.scheduledArrival),
    actualDeparture: flown ? iso(leg.actualDeparture!) : null,
    // For a diversion, the on-block time at the diversion airport.
    actualArrival: flown ? iso(leg.actualArrival!) : null,
    departureDelayMinutes: flown ? minutes(leg.actualDeparture! - leg.scheduledDeparture) : null,
    arrivalDelayMinutes: flown && !leg.divertedTo ? minutes(leg.actualArrival! - leg.scheduledArrival) : null,
    status: statusOf(leg),
    cancelledAt: leg.cancelledAt === null ? null : iso(leg.cancelledAt),
    registration: leg.aircraft.registration,
    aircraftType: leg.aircraft.type.icao,
    delayCause: causeOf(leg),
  };
}

export interface TruthFilter {
  airport?: string;
  status?: TruthStatus;
  operation?: Operation;
}

/** That day's flights (by UTC flight date) with their settled outcome. */
export function groundTruth(world: SimWorld, date: string, filter: TruthFilter = {}): TruthFlight[] {
  return world
    .legsOn(date, filter.airport)
    .filter((leg) => !filter.operation || leg.plan.rotation.operation === filter.operation)
    .filter((leg) => !filter.status || statusOf(leg) === filter.status)
    .map(truthOf);
}

/** Arrival-delay bands of the calibration table, in minutes: [from, to). */
export const DELAY_BANDS: readonly [number, number][] = [
  [-Infinity, 0],
  [0, 15],
  [15, 30],
  [30, 60],
  [60, 120],
  [120, 180],
  [180, Infinity],
];

export interface Calibration {
  from: string;
  days: number;
  flights: number;
  passengerFlights: number;
  cancelledShare: number;
  divertedShare: number;
  /** Shares of operated, undiverted passenger flights. */
  arrivalDelayedOver15Share: number;
  departureDelayedOver15Share: number;
  earlyArrivalShare: number;
  over180Share: number;
  meanArrivalDelayMinutes: number;
  meanDepartureDelayMinutes: number;
  /** Share of departure-delay minutes caused by a late inbound aircraft. */
  reactionaryShare: number;
  bands: { band: string; share: number }[];
}

/** Statistics over `days` consecutive flight dates from `from`, all catalogue airports. */
export function calibrate(world: SimWorld, from: string, days: number): Calibration {
  let flights = 0;
  let passenger = 0;
  let cancelled = 0;
  let diverted = 0;
  const arrivalDelays: number[] = [];
  const departureDelays: number[] = [];
  let reactionary = 0;
  let totalDepartureDelay = 0;
  for (let d = 0; d < days; d++) {
    for (const leg of world.legsOn(addDays(from, d))) {
      flights++;
      if (leg.plan.rotation.operation !== 'passenger') continue;
      passenger++;
      if (leg.cancelled) {
        cancelled++;
        continue;
      }
      if (leg.divertedTo) {
        diverted++;
        continue;
      }
      arrivalDelays.push(minutes(leg.actualArrival! - leg.scheduledArrival));
      const departureDelay = minutes(leg.actualDeparture! - leg.scheduledDeparture);
      departureDelays.push(departureDelay);
      if (departureDelay > 0) {
        totalDepartureDelay += departureDelay;
        reactionary += Math.min(departureDelay, Math.max(0, minutes(leg.readyAt - leg.scheduledDeparture)));
      }
    }
  }
  const operated = arrivalDelays.length;
  const share = (n: number, of: number) => (of === 0 ? 0 : n / of);
  const count = (list: number[], test: (v: number) => boolean) => list.reduce((n, v) => n + (test(v) ? 1 : 0), 0);
  const mean = (list: number[]) => list.reduce((a, b) => a + Math.max(0, b), 0) / Math.max(1, list.length);
  return {
    from,
    days,
    flights,
    passengerFlights: passenger,
    cancelledShare: share(cancelled, passenger),
    divertedShare: share(diverted, passenger),
    arrivalDelayedOver15Share: share(
      count(arrivalDelays, (v) => v >= 15),
      operated,
    ),
    departureDelayedOver15Share: share(
      count(departureDelays, (v) => v >= 15),
      operated,
    ),
    earlyArrivalShare: share(
      count(arrivalDelays, (v) => v < 0),
      operated,
    ),
    over180Share: share(
      count(arrivalDelays, (v) => v >= 180),
      operated,
    ),
    meanArrivalDelayMinutes: mean(arrivalDelays),
    meanDepartureDelayMinutes: mean(departureDelays),
    reactionaryShare: share(reactionary, totalDepartureDelay),
    bands: DELAY_BANDS.map(([low, high]) => ({
      band: bandLabel(low, high),
      share: share(
        count(arrivalDelays, (v) => v >= low && v < high),
        operated,
      ),
    })),
  };
}

function bandLabel(low: number, high: number): string {
  if (low === -Infinity) return 'early (< 0 min)';
  if (high === Infinity) return `${low}+ min`;
  return `${low}–${high - 1} min`;
}
