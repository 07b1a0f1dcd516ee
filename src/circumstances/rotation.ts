// The aircraft's day, read from the flights a provider gives for its registration: which leg this
// flight is, the leg before it, and where a delay or a run of cancellations started. Pure functions of
// the provider records; the rules are those of EUROCONTROL's reactionary delay (a leg waits for its
// inbound aircraft, then turns it round) and of C-74/19 TAP (a circumstance that hit an earlier flight
// of the same aircraft, with a direct causal link).
import { HOUR, iso, MINUTE } from '../clock.js';
import { designatorsOf, type ProviderFlight } from '../providers/index.js';
import type { LegRef } from './shapes.js';

export interface Leg {
  ref: LegRef;
  /** Every designator the record gives the flight (IATA, ICAO, callsign), normalised: how the boards' events name it. */
  designators: string[];
  origin: string | null;
  destination: string | null;
  scheduledDeparture: number;
  scheduledArrival: number | null;
  actualDeparture: number | null;
  actualArrival: number | null;
  cancelled: boolean;
  diverted: boolean;
}

/** Ground time a turnaround needs at least, when the schedule leaves less (a tight schedule is not a delay). */
const LEAST_TURNAROUND = 20 * MINUTE;
/** The longest turnaround (a widebody's): an aircraft on the ground overnight was ready long before. */
const MOST_TURNAROUND = 90 * MINUTE;
/** The schedule's slack over the turnaround the aircraft really needs: taken as this much of its ground time. */
const SLACK = 10 * MINUTE;
/** Two records of the same flight's departure never lie further apart than this. */
export const SAME_DEPARTURE = 10 * MINUTE;

export function legOf(flight: ProviderFlight): Leg | null {
  const scheduled = flight.departure.scheduled;
  if (scheduled === null) return null;
  return {
    ref: {
      flightNumber: flight.flightIata ?? flight.flightIcao ?? flight.callsign ?? '',
      flightDate: new Date(scheduled).toISOString().slice(0, 10),
      origin: flight.departure.airport.iata ?? flight.departure.airport.icao ?? '',
      destination: flight.arrival.airport.iata ?? flight.arrival.airport.icao ?? '',
    },
    designators: designatorsOf(flight),
    origin: flight.departure.airport.iata,
    destination: flight.arrival.airport.iata,
    scheduledDeparture: scheduled,
    scheduledArrival: flight.arrival.scheduled,
    actualDeparture: flight.cancelled ? null : (flight.departure.actual ?? flight.departure.runwayAt ?? null),
    actualArrival:
      flight.cancelled || flight.diverted ? null : (flight.arrival.actual ?? flight.arrival.runwayAt ?? null),
    cancelled: flight.cancelled,
    diverted: flight.diverted,
  };
}

/** A longer scheduled stop is a night on the ground: the aircraft's day ends there. */
export const NIGHT = 4 * HOUR;

/**
 * The aircraft's day in order, and where this flight is in it (-1 when the provider's list does not
 * hold it): the legs joined to it by stops shorter than a night (a late evening does not make the
 * next morning late, nor does its run of cancellations carry over).
 */
export function place(flight: Leg, flights: ProviderFlight[]): { legs: Leg[]; at: number } {
  const legs = flights
    .map(legOf)
    .filter((leg): leg is Leg => leg !== null)
    .sort((a, b) => a.scheduledDeparture - b.scheduledDeparture);
  const at = legs.findIndex(
    (leg) =>
      Math.abs(leg.scheduledDeparture - flight.scheduledDeparture) <= SAME_DEPARTURE &&
      (leg.origin === null || leg.origin === flight.origin),
  );
  if (at < 0) return { legs, at };
  const stop = (i: number) =>
    legs[i]!.scheduledDeparture - (legs[i - 1]!.scheduledArrival ?? legs[i - 1]!.scheduledDeparture);
  let first = at;
  while (first > 0 && stop(first) <= NIGHT) first--;
  let last = at;
  while (last + 1 < legs.length && stop(last + 1) <= NIGHT) last++;
  return { legs: legs.slice(first, last + 1), at: at - first };
}

/** The leg before `at` that brought the aircraft to its origin (flown or not), or null. */
export function inboundOf(legs: Leg[], at: number): Leg | null {
  const leg = legs[at];
  const before = legs[at - 1];
  if (!leg || !before) return null;
  return before.destination === leg.origin || before.diverted ? before : null;
}

/**
 * How a flown leg's departure delay splits: the part it inherited from its late inbound (the inbound's
 * arrival plus the turnaround the aircraft needs, past the schedule) and its own. Minutes.
 */
export function split(legs: Leg[], at: number): { inherited: number; own: number } | null {
  const leg = legs[at]!;
  if (leg.actualDeparture === null) return null;
  const delay = Math.max(0, leg.actualDeparture - leg.scheduledDeparture);
  const inbound = inboundOf(legs, at);
  if (!inbound || inbound.actualArrival === null || inbound.scheduledArrival === null)
    return { inherited: 0, own: delay / MINUTE };
  const ground = leg.scheduledDeparture - inbound.scheduledArrival;
  const needed = Math.min(MOST_TURNAROUND, Math.max(Math.min(ground, LEAST_TURNAROUND), ground - SLACK));
  const ready = inbound.actualArrival + needed;
  const inherited = Math.min(delay, Math.max(0, ready - leg.scheduledDeparture));
  return { inherited: inherited / MINUTE, own: (delay - inherited) / MINUTE };
}

/** The leg where a chain of late aircraft started: back through inbounds while more was inherited than added. */
export function chainOrigin(legs: Leg[], at: number): number {
  let i = at;
  for (;;) {
    const parts = split(legs, i);
    if (!parts || parts.inherited === 0 || parts.inherited < parts.own) return i;
    const inbound = inboundOf(legs, i);
    if (!inbound || inbound.cancelled || inbound.diverted) return i;
    i -= 1;
  }
}

/**
 * Why a cancelled leg's aircraft was not there for it, from the day: the first leg of the run of
 * cancellations it belongs to, and what came before that run (a diversion, a late arrival, nothing).
 */
export function cancellationRun(legs: Leg[], at: number): { start: number; before: Leg | null } {
  let start = at;
  while (start > 0 && legs[start - 1]!.cancelled) start--;
  return { start, before: start > 0 ? legs[start - 1]! : null };
}

/**
 * Whether every leg after the pair starting at `start` is cancelled too (the aircraft stayed on the
 * ground), or one flew (false); null where the day has no later leg, which says neither.
 */
export function groundedAfter(legs: Leg[], start: number): boolean | null {
  const pairEnd = legs[start + 1] && legs[start + 1]!.origin === legs[start]!.destination ? start + 2 : start + 1;
  const later = legs.slice(pairEnd);
  return later.length === 0 ? null : later.every((leg) => leg.cancelled);
}

export function arrivalDelayMinutes(leg: Leg): number | null {
  return leg.actualArrival === null || leg.scheduledArrival === null
    ? null
    : (leg.actualArrival - leg.scheduledArrival) / MINUTE;
}

/** What the kept boards showed of the aircraft's flights, in a sentence. */
export function keptReason({ legs }: { legs: Leg[] }): string {
  const shown = legs.map((l) => {
    const what = l.cancelled
      ? 'cancelled'
      : l.diverted
        ? 'diverted'
        : l.actualArrival !== null
          ? `landed ${iso(l.actualArrival).slice(11, 16)} UTC (due ${iso(l.scheduledArrival ?? l.scheduledDeparture).slice(11, 16)})`
          : l.actualDeparture !== null
            ? `left ${iso(l.actualDeparture).slice(11, 16)} UTC (due ${iso(l.scheduledDeparture).slice(11, 16)})`
            : 'no times';
    return `${describe(l)} ${what}`;
  });
  return `The aircraft's flights that bear on this one were on the boards this service kept, so its day was not asked for: ${shown.join('; ')}.`;
}

/** A leg in words: its number, its airports and its date. */
export function describe(leg: Leg): string {
  return `${leg.ref.flightNumber} ${leg.ref.origin}–${leg.ref.destination} on ${leg.ref.flightDate}`;
}
