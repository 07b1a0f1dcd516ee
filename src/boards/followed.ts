// The watched flights a board row is (docs/watches.md, "Events"): the poll reads the active watches of
// the days around a pass once (BoardSubscribers.watchedFlights) and matches every row it reads against
// them in memory, by designator first, so a pass with 10,000 watches costs one read and a map lookup
// per row. A row is a watch's flight when one of its designators (the board's IATA and ICAO numbers,
// as printed, and its codeshares) is the watch's, its scheduled departure falls on the watch's date
// (UTC, or the origin's local date), and its origin and destination are the watch's where it names them.
import { DAY, HOUR, MINUTE } from '../clock.js';
import { distanceKm, type ReferenceAirports } from '../airports/index.js';
import type { BoardEventWatchesTable, BoardEventsTable } from '../db/index.js';
import type { BoardKind, BoardRow } from '../providers/index.js';
import { offsetMinutes } from '../providers/zones.js';
import type { EventType } from './engine.js';
import type { DepartedFlight, WatchedFlight } from './store.js';

/**
 * The board events a watch's endpoints receive (docs/watches.md, "Which events"): the disruption and
 * its changes, the qualification and its prediction, and the first sighting, which tells the
 * customer the flight is being followed, and the landing (`flight.landed`, sent to watches only). Not `flight.status_changed` (the board's own wording, the
 * highest volume) nor `flight.divert_updated` (a diversion comes as `flight.diverted`).
 */
export const WATCHED_EVENT_TYPES: ReadonlySet<string> = new Set<EventType>([
  'flight.tracked',
  'flight.delayed',
  'flight.cancelled',
  'flight.diverted',
  'flight.recovered',
  'flight.delay_changed',
  'flight.qualifying',
  'flight.predicted_qualifying',
  'flight.landed',
]);

/** Where an arrivals row does not give its departure time: cruise speed and the time taxiing, climbing and descending. */
const CRUISE_KMH = 800;
const GROUND_AND_CLIMB_MS = 30 * MINUTE;
/** Flights dated this far from a pass, either way, may be on a board it reads (a local date, a 20-hour flight's arrival). */
export const WATCH_REACH_MS = 2 * DAY;

const normalised = (designator: string): string => designator.replace(/\s+/g, '').toUpperCase();

export class FollowedFlights {
  private readonly byDesignator = new Map<string, WatchedFlight[]>();

  constructor(
    flights: readonly WatchedFlight[],
    private readonly airports: ReferenceAirports,
  ) {
    for (const flight of flights) {
      const key = normalised(flight.flightNumber);
      const list = this.byDesignator.get(key);
      if (list) list.push(flight);
      else this.byDesignator.set(key, [flight]);
    }
  }

  /** The ids of the watches whose flight this row (on `airport`'s `board`) is. */
  match(airport: string, board: BoardKind, row: BoardRow): string[] {
    if (this.byDesignator.size === 0) return [];
    const candidates = new Set<WatchedFlight>();
    for (const designator of [row.flightIata, row.flightIcao, row.flightNumber, ...row.codeshares]) {
      if (!designator) continue;
      for (const flight of this.byDesignator.get(normalised(designator)) ?? []) candidates.add(flight);
    }
    if (candidates.size === 0) return [];
    const departure = board === 'departures';
    const origin = departure ? airport : row.origin.iata;
    const destination = departure ? row.destination.iata : airport;
    const departsAt = departure ? row.scheduledAt : this.departureOf(row, origin, destination);
    if (departsAt === null) return [];
    const ids: string[] = [];
    for (const flight of candidates) {
      if (flight.origin && flight.origin !== origin) continue;
      if (flight.destination && flight.destination !== destination) continue;
      if (this.dateOf(departsAt, flight.dateBasis, origin) !== flight.flightDate) continue;
      ids.push(flight.id);
    }
    return ids;
  }

  /**
   * A watched departure this row shows gone (an actual time, or the provider's departed) to an airport
   * whose boards the pass does not read (`read`): its landing is on no board read, so its watches
   * follow it by other means (BoardSubscribers.departed); null otherwise.
   */
  departed(airport: string, row: BoardRow, watches: string[], read: ReadonlySet<string>): DepartedFlight | null {
    if (watches.length === 0 || row.direction !== 'departure' || row.cancelled) return null;
    if (row.departed !== true && row.actualAt === null) return null;
    const destination = row.destination.iata;
    if (destination !== null && read.has(destination)) return null;
    const left = row.actualAt ?? row.estimatedAt ?? row.scheduledAt;
    const arrivesAt = row.otherEnd
      ? (row.otherEnd.estimatedAt ?? row.otherEnd.scheduledAt)
      : left + (this.flightTime(airport, destination) ?? HOUR);
    return {
      watches,
      origin: airport,
      destination,
      scheduledAt: row.scheduledAt,
      localDate: this.dateOf(row.scheduledAt, 'local', airport),
      arrivesAt,
    };
  }

  /** An arrivals row's scheduled departure: the board's other end, else its arrival less a flight time from the distance. */
  private departureOf(row: BoardRow, origin: string | null, destination: string | null): number | null {
    if (row.otherEnd) return row.otherEnd.scheduledAt;
    const flightTime = this.flightTime(origin, destination);
    return flightTime === null ? null : row.scheduledAt - flightTime;
  }

  /** Gate to gate between two airports, from their distance (null when either is not known). */
  private flightTime(origin: string | null, destination: string | null): number | null {
    const from = origin ? this.airports.find(origin) : undefined;
    const to = destination ? this.airports.find(destination) : undefined;
    if (!from || !to) return null;
    return GROUND_AND_CLIMB_MS + Math.round((distanceKm(from, to) / CRUISE_KMH) * HOUR);
  }

  /** The date of a departure as a watch states it: UTC, or the origin's local date (null when its zone is not known). */
  private dateOf(at: number, basis: WatchedFlight['dateBasis'], origin: string | null): string | null {
    if (basis === 'utc') return new Date(at).toISOString().slice(0, 10);
    const zone = origin ? this.airports.find(origin)?.timezone : undefined;
    if (!zone) return null;
    return new Date(at + offsetMinutes(zone, at) * MINUTE).toISOString().slice(0, 10);
  }
}

/** The links of an observation's events to the watches of its flight: those of the types watches receive. */
export function watchLinks(events: readonly BoardEventsTable[], watches: readonly string[]): BoardEventWatchesTable[] {
  if (watches.length === 0) return [];
  return events
    .filter((e) => WATCHED_EVENT_TYPES.has(e.type))
    .flatMap((e, position) =>
      watches.map((watch_id) => ({ event_id: e.id, watch_id, event_type: e.type, created_at: e.created_at, position })),
    );
}
