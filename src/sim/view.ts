// How a simulated leg looks at a moment: what a departure board, an arrival board and a flight
// lookup would show then. Every view is a pure function of the leg's ground truth (day.ts) and the
// moment, so the three always agree with each other and with the truth once it is settled.
import { MINUTE } from '../clock.js';
import type { AircraftRef, AirlineRef, BoardRow, FlightPhase, ProviderFlight } from '../providers/types.js';
import { hasLeft } from '../providers/types.js';
import type { ReferenceAirport } from '../airports/index.js';
import type { Airline } from './reference.js';
import { operationOf } from './reference.js';
import type { SimLeg } from './day.js';
import { CLOCK_TEXTS, localMinuteOfDay } from './time.js';

/** Tail numbers are attached to flights this long before departure. */
const REGISTRATION_KNOWN = 10 * 60 * MINUTE;
/** Estimates closer to schedule than this are not printed. */
const PRINT_THRESHOLD = 5 * MINUTE;
/** Boards call a flight delayed from this much late. */
const DELAYED = 15 * MINUTE;
const CHECK_IN_OPENS = 150 * MINUTE;
const GO_TO_GATE = 55 * MINUTE;
const BOARDING = 40 * MINUTE;
const GATE_CLOSES = 15 * MINUTE;

const ceilTo5 = (at: number) => Math.ceil(at / (5 * MINUTE)) * 5 * MINUTE;

/** The off-block time the carrier publishes at `at`; null while it expects to leave on time. */
export function departureEstimate(leg: SimLeg, at: number): number | null {
  if (leg.cancelled) return null;
  const departed = leg.actualDeparture!;
  if (at >= departed) return departed;
  const scheduled = leg.scheduledDeparture;
  const base = at >= leg.readyKnownAt ? leg.readyAt : scheduled;
  const primary =
    at >= leg.finalNoticeAt
      ? leg.primaryDelay
      : at >= leg.firstNoticeAt
        ? Math.round(leg.primaryDelay * leg.firstNoticeShare)
        : 0;
  let projected = Math.max(scheduled, base + Math.max(0, primary) * MINUTE);
  // A time that passes without the aircraft leaving slips: boards push it a few minutes ahead.
  if (projected < at + 5 * MINUTE) projected = ceilTo5(at + 10 * MINUTE);
  if (at >= leg.finalNoticeAt && at >= leg.readyKnownAt && projected < departed) projected = departed;
  return projected - scheduled >= PRINT_THRESHOLD ? projected : null;
}

/**
 * The on-block time at the destination expected at `at`: always once airborne, before that only when
 * it is off schedule; null after a cancellation or a diversion.
 */
export function arrivalEstimate(leg: SimLeg, at: number): number | null {
  if (leg.cancelled) return null;
  if (leg.divertedAt !== null && at >= leg.divertedAt) return null;
  const arrived = leg.actualArrival!;
  if (leg.divertedAt === null && at >= arrived) return arrived;
  const scheduled = leg.scheduledArrival;
  let projected: number;
  if (at >= leg.actualDeparture!) {
    // Airborne: the estimate converges on the truth as the flight approaches.
    const nominal = leg.divertedAt === null ? arrived : leg.actualDeparture! + leg.plan.blockMinutes * 0.94 * MINUTE;
    const closeness = Math.min(1, Math.max(0, nominal - at) / (120 * MINUTE));
    projected = nominal + Math.round(leg.estimateNoise * 6 * closeness) * MINUTE;
    return projected < at ? ceilTo5(at + 5 * MINUTE) : projected;
  }
  const departure = departureEstimate(leg, at);
  if (departure === null) return null;
  projected = departure + Math.round(leg.plan.blockMinutes * 0.95) * MINUTE;
  return Math.abs(projected - scheduled) >= PRINT_THRESHOLD ? projected : null;
}

function airlineRef(airline: Airline): AirlineRef {
  return { name: airline.name, iata: airline.iata, icao: airline.icao };
}

const ref = (airport: ReferenceAirport) => ({ iata: airport.iata, icao: airport.icao });

function divertedTo(leg: SimLeg, at: number) {
  if (leg.divertedTo === null || at < leg.divertedAt!) return null;
  return leg.diversionNamed ? ref(leg.divertedTo) : null;
}

function diversionText(leg: SimLeg): string {
  return leg.diversionNamed ? `Diverted to ${leg.divertedTo!.city}` : 'Diverted';
}

/**
 * `${prefix} HH:MM` in the zone's local time ("Departed 10:45"). The texts are kept per prefix and
 * minute of the day: a board pass prints tens of thousands, and building each anew was a large part
 * of a pass's garbage.
 */
function clockStatus(prefix: ClockPrefix, zone: string, at: number): string {
  const texts = (CLOCK_STATUS[prefix] ??= CLOCK_TEXTS.map((clock) => `${prefix} ${clock}`));
  return texts[localMinuteOfDay(zone, at)]!;
}

type ClockPrefix = 'Departed' | 'Estimated' | 'Landed' | 'Expected';
const CLOCK_STATUS: Partial<Record<ClockPrefix, readonly string[]>> = {};

const isCancelled = (leg: SimLeg, at: number) => leg.cancelled && at >= leg.cancelledAt!;
const isDiverted = (leg: SimLeg, at: number) => leg.divertedAt !== null && at >= leg.divertedAt;

function departureStatus(leg: SimLeg, at: number): string {
  const zone = leg.plan.from.timezone;
  if (isCancelled(leg, at)) return 'Cancelled';
  if (isDiverted(leg, at)) return diversionText(leg);
  if (!leg.cancelled && at >= leg.actualDeparture!) return clockStatus('Departed', zone, leg.actualDeparture!);
  const estimate = departureEstimate(leg, at);
  const expected = estimate ?? leg.scheduledDeparture;
  const passenger = leg.plan.rotation.operation === 'passenger';
  if (passenger && !leg.cancelled) {
    if (at >= expected - GATE_CLOSES) return 'Gate closed';
    if (at >= expected - BOARDING) return 'Boarding';
    if (at >= expected - GO_TO_GATE) return 'Go to gate';
  }
  if (estimate !== null && estimate - leg.scheduledDeparture >= DELAYED)
    return clockStatus('Estimated', zone, estimate);
  if (passenger && at >= leg.scheduledDeparture - CHECK_IN_OPENS) return 'Check-in open';
  return 'Scheduled';
}

function arrivalStatus(leg: SimLeg, at: number): string {
  const zone = leg.plan.to.timezone;
  if (isCancelled(leg, at)) return 'Cancelled';
  if (isDiverted(leg, at)) return diversionText(leg);
  if (!leg.cancelled && at >= leg.landing!) return clockStatus('Landed', zone, leg.landing!);
  const estimate = arrivalEstimate(leg, at);
  if (!leg.cancelled && at >= leg.takeoff!) return clockStatus('Expected', zone, estimate ?? leg.scheduledArrival);
  if (estimate !== null && estimate - leg.scheduledArrival >= DELAYED) return 'Delayed';
  return 'Scheduled';
}

/** Whether the tail number is attached to the flight yet. */
const registrationKnown = (leg: SimLeg, at: number) => at >= leg.scheduledDeparture - REGISTRATION_KNOWN;

function aircraftAt(leg: SimLeg, at: number): AircraftRef {
  const known = registrationKnown(leg, at);
  const { type } = leg.aircraft;
  return {
    registration: known ? leg.aircraft.registration : null,
    icao24: known ? leg.aircraft.icao24 : null,
    typeIcao: type.icao,
    typeIata: type.iata,
    label: type.label,
  };
}

/** The row `airport`'s departures or arrivals board shows for the leg at `at`. */
export function boardRow(leg: SimLeg, board: 'departures' | 'arrivals', at: number): BoardRow {
  const { plan } = leg;
  const departures = board === 'departures';
  const flown = !leg.cancelled;
  let actualAt: number | null = null;
  if (departures && flown && at >= leg.actualDeparture!) actualAt = leg.actualDeparture;
  if (!departures && flown && leg.divertedAt === null && at >= leg.actualArrival!) actualAt = leg.actualArrival;
  let runway: string | null = null;
  if (departures && flown && at >= leg.takeoff!) runway = leg.departureRunway;
  if (!departures && flown && at >= leg.landing!) runway = leg.arrivalRunway;
  return {
    flightNumber: plan.printed,
    flightIata: plan.rotation.seller.iata ? plan.designator : null,
    flightIcao: plan.icaoDesignator,
    callsign: plan.callsign,
    direction: departures ? 'departure' : 'arrival',
    airline: airlineRef(plan.rotation.seller),
    codeshares: plan.codeshares,
    operation: plan.rotation.operation,
    aircraftType: leg.aircraft.type.icao,
    registration: registrationKnown(leg, at) ? leg.aircraft.registration : null,
    origin: ref(plan.from),
    destination: ref(plan.to),
    divertedTo: divertedTo(leg, at),
    scheduledAt: departures ? leg.scheduledDeparture : leg.scheduledArrival,
    estimatedAt: departures ? departureEstimate(leg, at) : arrivalEstimate(leg, at),
    actualAt,
    status: departures ? departureStatus(leg, at) : arrivalStatus(leg, at),
    cancelled: isCancelled(leg, at),
    diverted: isDiverted(leg, at),
    runway,
    departed: hasLeft(phaseAt(leg, at)),
    otherEnd: departures
      ? {
          scheduledAt: leg.scheduledArrival,
          estimatedAt: arrivalEstimate(leg, at),
          actualAt: flown && leg.divertedAt === null && at >= leg.actualArrival! ? leg.actualArrival : null,
        }
      : {
          scheduledAt: leg.scheduledDeparture,
          estimatedAt: departureEstimate(leg, at),
          actualAt: flown && at >= leg.actualDeparture! ? leg.actualDeparture : null,
        },
  };
}

function phaseAt(leg: SimLeg, at: number): FlightPhase {
  if (isCancelled(leg, at)) return 'cancelled';
  if (isDiverted(leg, at)) return 'diverted';
  if (!leg.cancelled && at >= leg.actualArrival!) return 'landed';
  if (!leg.cancelled && at >= leg.actualDeparture!) return 'departed';
  return 'scheduled';
}

const PHASE_TEXT: Record<FlightPhase, string> = {
  scheduled: 'Scheduled',
  departed: 'En route',
  landed: 'Landed',
  cancelled: 'Cancelled',
  diverted: 'Diverted',
  unknown: 'Unknown',
};

/** Settled: nothing about the flight will change any more. */
export function settledAt(leg: SimLeg): number {
  return leg.cancelled ? leg.cancelledAt! : leg.actualArrival!;
}

/**
 * The flight as a lookup at `at` returns it. `designator` is the number it was asked under: a
 * partner's codeshare gives the partner's number and airline with the operating flight beside it.
 */
export function flightRecord(
  leg: SimLeg,
  at: number,
  designator: string,
  partner: (code: string) => Airline | undefined,
): ProviderFlight {
  const { plan } = leg;
  const operator = plan.rotation.seller;
  const codeshare = plan.codeshares.includes(designator);
  const marketing = codeshare ? partner(designator.slice(0, 2)) : undefined;
  const phase = phaseAt(leg, at);
  const flown = !leg.cancelled;
  const late = (departureEstimate(leg, at) ?? leg.scheduledDeparture) - leg.scheduledDeparture >= DELAYED;
  let statusRaw = PHASE_TEXT[phase];
  if (phase === 'scheduled' && late) statusRaw = 'Delayed';
  if (phase === 'diverted') statusRaw = diversionText(leg);
  return {
    provider: 'sim',
    flightIata: codeshare ? designator : operator.iata ? plan.designator : null,
    flightIcao: codeshare ? (marketing ? `${marketing.icao}${designator.slice(2)}` : null) : plan.icaoDesignator,
    callsign: plan.callsign,
    airline: codeshare && marketing ? airlineRef(marketing) : airlineRef(operator),
    operating: codeshare
      ? {
          flightIata: operator.iata ? plan.designator : null,
          flightIcao: plan.icaoDesignator,
          airline: airlineRef(operator),
        }
      : null,
    codeshares: codeshare ? [] : plan.codeshares,
    operation: operationOf(operator),
    departure: {
      airport: ref(plan.from),
      scheduled: leg.scheduledDeparture,
      estimated: departureEstimate(leg, at),
      actual: flown && at >= leg.actualDeparture! ? leg.actualDeparture : null,
      runway: flown && at >= leg.takeoff! ? leg.departureRunway : null,
    },
    arrival: {
      airport: ref(plan.to),
      scheduled: leg.scheduledArrival,
      estimated: arrivalEstimate(leg, at),
      actual: flown && leg.divertedAt === null && at >= leg.actualArrival! ? leg.actualArrival : null,
      runway: flown && leg.divertedAt === null && at >= leg.landing! ? leg.arrivalRunway : null,
    },
    divertedTo: divertedTo(leg, at),
    phase,
    cancelled: phase === 'cancelled',
    diverted: phase === 'diverted',
    statusRaw,
    aircraft: aircraftAt(leg, at),
    observedAt: at,
    settled: at >= settledAt(leg),
  };
}
