// The aircraft's day as the pass's boards show it (docs/boards.md, "Predictions"): every leg of a
// registration that any board read in the pass lists, one leg per flight however many boards show it
// (its origin's departures, its destination's arrivals), with what each observed of it: left or not,
// times published, actual times. Built once per pass from the rows read; a prediction walks it back
// from a departure through the aircraft's earlier legs.
import type { BoardRow } from '../providers/index.js';

/** One flight of an aircraft, merged from every board row that shows it. */
export interface FleetLeg {
  flightNumber: string;
  registration: string;
  aircraftType: string | null;
  origin: string | null;
  destination: string | null;
  /** Null when only its arrivals row shows it, without the other end's times (some providers give none). */
  scheduledDeparture: number | null;
  /** Null when only its departures row shows it, without the other end's times. */
  scheduledArrival: number | null;
  departureEstimate: number | null;
  departureActual: number | null;
  arrivalEstimate: number | null;
  arrivalActual: number | null;
  /** It has left its origin (a board says so, or gives an actual time). */
  departed: boolean;
  cancelled: boolean;
  diverted: boolean;
  /** The board status text of the row that last added to it (the arrivals row's when both show it). */
  status: string;
}

/** Two rows of the same flight never give departure times further apart than this (one board rounds, another does not). */
const SAME_FLIGHT_MS = 10 * 60_000;

/** Registrations to their legs, oldest scheduled departure first. */
export class Fleet {
  private readonly byRegistration = new Map<string, FleetLeg[]>();
  private sorted = true;

  static of(boards: Iterable<readonly BoardRow[]>): Fleet {
    const fleet = new Fleet();
    for (const rows of boards) for (const row of rows) fleet.add(row);
    return fleet;
  }

  add(row: BoardRow): void {
    if (!row.registration) return;
    const departure = row.direction === 'departure';
    const scheduledDeparture = departure ? row.scheduledAt : (row.otherEnd?.scheduledAt ?? null);
    const scheduledArrival = departure ? (row.otherEnd?.scheduledAt ?? null) : row.scheduledAt;
    const legs = this.byRegistration.get(row.registration) ?? [];
    if (legs.length === 0) this.byRegistration.set(row.registration, legs);
    const near = (a: number | null, b: number | null) => a !== null && b !== null && Math.abs(a - b) < SAME_FLIGHT_MS;
    let leg = legs.find(
      (l) =>
        l.flightNumber === row.flightNumber &&
        (near(l.scheduledDeparture, scheduledDeparture) || near(l.scheduledArrival, scheduledArrival)),
    );
    if (!leg) {
      leg = {
        flightNumber: row.flightNumber,
        registration: row.registration,
        aircraftType: row.aircraftType,
        origin: row.origin.iata,
        destination: row.destination.iata,
        scheduledDeparture,
        scheduledArrival,
        departureEstimate: null,
        departureActual: null,
        arrivalEstimate: null,
        arrivalActual: null,
        departed: false,
        cancelled: false,
        diverted: false,
        status: row.status,
      };
      legs.push(leg);
      this.sorted = false;
    }
    leg.scheduledDeparture ??= scheduledDeparture;
    leg.scheduledArrival ??= scheduledArrival;
    const other = row.otherEnd;
    if (departure) {
      // The origin's own board knows its departure best; its destination's the arrival.
      leg.departureEstimate = row.estimatedAt ?? leg.departureEstimate;
      leg.departureActual = row.actualAt ?? leg.departureActual;
      if (other) {
        leg.arrivalEstimate ??= other.estimatedAt;
        leg.arrivalActual ??= other.actualAt;
      }
    } else {
      leg.arrivalEstimate = row.estimatedAt ?? leg.arrivalEstimate;
      leg.arrivalActual = row.actualAt ?? leg.arrivalActual;
      if (other) {
        leg.departureEstimate ??= other.estimatedAt;
        leg.departureActual ??= other.actualAt;
      }
      leg.status = row.status;
    }
    leg.departed ||= row.departed === true || row.actualAt !== null || leg.departureActual !== null;
    leg.cancelled ||= row.cancelled;
    leg.diverted ||= row.diverted;
  }

  /** The registration's legs, oldest first by scheduled departure (or arrival, when only that is known; empty when no board shows it). */
  legsOf(registration: string): readonly FleetLeg[] {
    if (!this.sorted) {
      for (const legs of this.byRegistration.values()) legs.sort((a, b) => orderOf(a) - orderOf(b));
      this.sorted = true;
    }
    return this.byRegistration.get(registration) ?? [];
  }
}

/** A leg's place in its aircraft's day: its scheduled departure, or its arrival when only that is known. */
export const orderOf = (leg: FleetLeg): number => leg.scheduledDeparture ?? leg.scheduledArrival ?? 0;
