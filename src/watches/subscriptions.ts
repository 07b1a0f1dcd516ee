// Watches as subscribers of the webhook fan-out (docs/watches.md, "Events"): which flights the board
// poll follows for them around a pass, which endpoints an observed event goes to, which of an
// endpoint's watches a delivery names, and the events observed for one watch. createWatches attaches
// it to the process's fan-out; the links of events to watches (board_event_watches) are written by
// the board store with the events themselves.
import type { DepartedFlight, WatchedFlight } from '../boards/index.js';
import { WATCH_REACH_MS } from '../boards/index.js';
import { readMany, type Database } from '../db/index.js';
import type { FlightSubscriptions, WatchNamed } from '../webhooks/index.js';
import type { FollowList } from './follow-list.js';

const day = (at: number): string => new Date(at).toISOString().slice(0, 10);
/** Events per IN list (the fan-out reads 200 at a time; a delivery batch a few hundred). */
const CHUNK = 500;

export class WatchSubscriptions implements FlightSubscriptions {
  constructor(
    private readonly db: Database,
    /** Following (follow-list.ts): takes the arrivals of watched flights the boards saw leave. */
    private readonly following: Pick<FollowList, 'handOver'>,
  ) {}

  /** Watched flights the board poll saw leave for an airport it does not read: following sees them land. */
  departed(flights: DepartedFlight[], at: number): Promise<void> {
    return this.following.handOver(flights, at);
  }

  private get k() {
    return this.db.kysely;
  }

  /** Active watches of enabled accounts whose flight date is within WATCH_REACH_MS of `at` (flight_watches_active_date). */
  private around(at: number) {
    return this.k
      .selectFrom('flight_watches as w')
      .innerJoin('accounts as a', 'a.id', 'w.account_id')
      .where('w.state', '=', 'active')
      .where('w.flight_date', '>=', day(at - WATCH_REACH_MS))
      .where('w.flight_date', '<=', day(at + WATCH_REACH_MS))
      .where('a.disabled', '=', 0);
  }

  /** Read once a pass, all of them (off the event loop on SQLite: readMany). */
  async watchedFlights(at: number): Promise<WatchedFlight[]> {
    const rows = await readMany(
      this.db,
      this.around(at)
        .select(['w.id', 'w.flight_number', 'w.flight_date', 'w.date_basis', 'w.origin', 'w.destination'])
        .compile(),
    );
    return rows.map((r) => ({
      id: r.id,
      flightNumber: r.flight_number,
      flightDate: r.flight_date,
      dateBasis: r.date_basis,
      origin: r.origin,
      destination: r.destination,
    }));
  }

  /**
   * The airports those watches name: the poll reads their boards (the fan-out keeps the catalogue's).
   * Their distinct routes only: each poll pass asks (and following, when it asks a provider), and
   * 10,000 watches read whole as objects held the event loop for tens of milliseconds each time.
   */
  async watchedAirports(at: number): Promise<string[]> {
    const routes = await readMany(this.db, this.around(at).select(['w.origin', 'w.destination']).distinct().compile());
    const airports = new Set<string>();
    for (const r of routes) {
      if (r.origin) airports.add(r.origin);
      if (r.destination) airports.add(r.destination);
    }
    return [...airports];
  }

  /** `${event} ${endpoint}` for every endpoint of an active watch each event was observed for. */
  async targets(eventIds: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < eventIds.length; i += CHUNK) {
      const rows = await this.k
        .selectFrom('board_event_watches as l')
        .innerJoin('flight_watches as w', 'w.id', 'l.watch_id')
        .innerJoin('flight_watch_endpoints as we', 'we.watch_id', 'l.watch_id')
        .select(['l.event_id', 'we.endpoint_id'])
        .where('l.event_id', 'in', eventIds.slice(i, i + CHUNK))
        .where('w.state', '=', 'active')
        .execute();
      for (const r of rows) out.add(`${r.event_id} ${r.endpoint_id}`);
    }
    return out;
  }

  /**
   * By `${event} ${endpoint}`: the endpoint's watches each event was observed for, in id order. The
   * endpoints are kept here rather than in the WHERE: named there, SQLite's planner began from an
   * endpoint's watches (all 6,000 of one insurer) instead of the few events, 100 ms a delivery claim
   * with the event loop held (docs/performance.md, "Watches under load").
   */
  async watchesOf(eventIds: readonly string[], endpointIds: readonly string[]): Promise<Map<string, WatchNamed[]>> {
    const out = new Map<string, WatchNamed[]>();
    if (endpointIds.length === 0) return out;
    const wanted = new Set(endpointIds);
    for (let i = 0; i < eventIds.length; i += CHUNK) {
      const rows = await this.k
        .selectFrom('board_event_watches as l')
        .innerJoin('flight_watches as w', 'w.id', 'l.watch_id')
        .innerJoin('flight_watch_endpoints as we', 'we.watch_id', 'l.watch_id')
        .select(['l.event_id', 'we.endpoint_id', 'w.id', 'w.reference'])
        .where('l.event_id', 'in', eventIds.slice(i, i + CHUNK))
        .orderBy('w.id')
        .execute();
      for (const r of rows) {
        if (!wanted.has(r.endpoint_id)) continue;
        const key = `${r.event_id} ${r.endpoint_id}`;
        const list = out.get(key);
        if (list) list.push({ id: r.id, reference: r.reference });
        else out.set(key, [{ id: r.id, reference: r.reference }]);
      }
    }
    return out;
  }

  /** The events observed for a watch, newest first, at most `limit`. */
  async events(watchId: string, limit: number): Promise<{ id: string; type: string; createdAt: number }[]> {
    const rows = await this.k
      .selectFrom('board_event_watches')
      .select(['event_id', 'event_type', 'created_at'])
      .where('watch_id', '=', watchId)
      .orderBy('created_at', 'desc')
      .orderBy('position', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.event_id, type: r.event_type, createdAt: Number(r.created_at) }));
  }
}
