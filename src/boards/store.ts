// Board state in the database: the airports enabled endpoints select, each flight's watch per
// board, and the events. One board's observations (watches and events) are written atomically: on
// SQLite inside the group transaction (statements prepared once; a Kysely transaction would hold the
// shared connection across awaits), on PostgreSQL in one transaction. Each stored event is queued
// for fan-out (fan_out_queue), and its webhook deliveries are then written by the fan-out in short chunks
// (src/webhooks/fanout.ts), started by `save` and running while the pass reads the next boards;
// `fannedOut()` waits until every stored event has its deliveries. A fan-out cut short resumes on
// its next run.
//
// Several processes may poll the same board (a lease that ran out, two workers on a manual clock):
// a watch is written only if it is still the one the pass read (compare-and-set on last_seen_at, or
// an insert that finds no row), and a flight's events only with its watch. Each event also carries
// its change key, unique per board, so a change two passes computed from the same watch is stored once.
//
// Each dialect's write of a pass: store-sqlite.ts, store-postgres.ts; the factory: boards/index.ts.
import type { BoardEventWatchesTable, BoardEventsTable, Database } from '../db/index.js';
import { sql } from 'kysely';
import type { BoardRow } from '../providers/index.js';
import { HOUR } from '../clock.js';
import { SHORT_NOTICE, type BoardSighting, type HourTally } from '../circumstances/index.js';
import { EVENT_TYPES, FOLLOWED_BOARD, type Watch } from './engine.js';

/** A flight's key among a board's watches: its ICAO designator (else as printed) and its scheduled time there. */
export const boardFlightKey = (row: Pick<BoardRow, 'flightIcao' | 'flightNumber' | 'scheduledAt'>): string =>
  `${row.flightIcao ?? row.flightNumber}|${row.scheduledAt}`;

/** The window the poll reads around now: what left up to 3 hours ago (to see it land or divert) and what is due in 12. */
export const WINDOW_BEFORE_MS = 3 * HOUR;
export const WINDOW_AFTER_MS = 12 * HOUR;

/**
 * Who hears of the events a pass stores: the webhook fan-out implements it (src/webhooks/fanout.ts),
 * so boards publish what they observed without knowing webhooks. A stored event is queued in the
 * pass's own transaction (fan_out_queue); `publish` hands every queued event on and resolves once none
 * is left (it rejects when it could not, and the events stay queued for the next call).
 */
export interface BoardSubscribers {
  /** Catalogue airports some subscriber listens to at `at`. */
  watchedAirports(at: number): Promise<string[]>;
  /** Flights some subscriber follows (accounts' watches of flights around `at`); none when absent. */
  watchedFlights?(at: number): Promise<WatchedFlight[]>;
  /**
   * Watched flights a pass saw leave for an airport whose boards it does not read: the subscriber
   * follows their arrival by other means (docs/watches.md, "Seen leaving, landing elsewhere").
   */
  departed?(flights: DepartedFlight[], at: number): Promise<void>;
  publish(): Promise<unknown>;
}

/** A watched flight a departures board showed gone, to an airport no board of the pass reads. */
export interface DepartedFlight {
  /** The watches whose flight it is. */
  watches: string[];
  origin: string;
  destination: string | null;
  /** Its scheduled departure, and the departure's date at the origin's clock (null when its zone is not known). */
  scheduledAt: number;
  localDate: string | null;
  /** When it is due down: the board's other end, else its departure plus a flight time from the distance. */
  arrivesAt: number;
}

/** A flight an account watches (docs/watches.md), as the poll matches the rows it reads to it (followed.ts). */
export interface WatchedFlight {
  /** The watch (wch_…). */
  id: string;
  /** The designator as a lookup normalises it (W6 3101 → W63101). */
  flightNumber: string;
  /** The scheduled departure date: in UTC, or at the origin's clock (`dateBasis`). */
  flightDate: string;
  dateBasis: 'utc' | 'local';
  origin: string | null;
  destination: string | null;
}

export interface WatchWrite {
  key: string;
  watch: Watch;
  /** The stored watch's last_seen_at the pass computed from; null when the flight was new to it. */
  basis: number | null;
  /** The events of this observation, stored only if the watch is. */
  events: BoardEventsTable[];
  /** Its events' links to the accounts' watches of the flight (followed.ts), stored with their events. */
  links?: BoardEventWatchesTable[];
}

export interface BoardStore {
  /**
   * Catalogue airports selected by at least one endpoint of an enabled account that is enabled, or was
   * disabled within the retention period before `at` (queue.ts, `subscribedEndpoints`).
   */
  watchedAirports(at: number): Promise<string[]>;
  watches(airport: string, board: string): Promise<Map<string, Watch>>;
  /** What the poll remembers of one flight on one board (its key: boardFlightKey), null when it has none. */
  watchOf(airport: string, board: string, key: string): Promise<Watch | null>;
  /** Flights accounts watch around `at` (BoardSubscribers.watchedFlights). */
  watchedFlights(at: number): Promise<WatchedFlight[]>;
  /** Hands watched flights seen leaving for an unread airport to their subscriber (BoardSubscribers.departed). */
  departed(flights: DepartedFlight[], at: number): Promise<void>;
  /**
   * Writes one board's pass, all or nothing: each watch still as the pass read it, with its events
   * (a watch another pass changed meanwhile is left, events and all); `loose` events are stored as
   * they are. Then fans the events out. Returns how many events were stored.
   */
  save(airport: string, board: string, watches: WatchWrite[], loose?: BoardEventsTable[]): Promise<number>;
  /** Forgets flights not seen since `before`; returns how many. */
  retire(before: number): Promise<number>;
  /** Resolves once every event stored so far has its deliveries (rejects when the fan-out fails). */
  fannedOut(): Promise<void>;
}

/**
 * The flight an event is of, from its change key (`{designator}|{scheduled}|{type}|{basis}`, poller.ts:
 * the board's ICAO designator, else its printed number), normalised as a lookup writes designators;
 * null on events stored before 0012, which have none.
 */
export function flightOfChange(changeKey: string | null): string | null {
  const designator = changeKey?.split('|')[0];
  return designator ? designator.replace(/\s+/g, '').toUpperCase() : null;
}

/** What both dialects' stores share: the reads, retiring, and handing stored events on. */
export abstract class CommonReads {
  constructor(
    protected readonly db: Database,
    protected readonly subscribers: BoardSubscribers,
  ) {}

  /**
   * Starts publishing what was just stored without waiting for it: the fan-out paces itself (short
   * chunks with pauses, so the API is not starved) and would otherwise hold up the reading of the
   * next board. A failure here is not lost: the events stay queued, and `fannedOut()` runs again.
   */
  protected startPublishing(): void {
    this.subscribers.publish().catch(() => {});
  }

  async fannedOut(): Promise<void> {
    await this.subscribers.publish();
  }

  watchedAirports(at: number): Promise<string[]> {
    return this.subscribers.watchedAirports(at);
  }

  watchedFlights(at: number): Promise<WatchedFlight[]> {
    return this.subscribers.watchedFlights?.(at) ?? Promise.resolve([]);
  }

  async departed(flights: DepartedFlight[], at: number): Promise<void> {
    if (flights.length > 0) await this.subscribers.departed?.(flights, at);
  }

  async watches(airport: string, board: string): Promise<Map<string, Watch>> {
    const rows = await this.db.kysely
      .selectFrom('watches')
      .select(['flight_key', 'state'])
      .where('airport', '=', airport)
      .where('board', '=', board)
      .execute();
    return new Map(rows.map((r) => [r.flight_key, JSON.parse(r.state) as Watch]));
  }

  async watchOf(airport: string, board: string, key: string): Promise<Watch | null> {
    const row = await this.db.kysely
      .selectFrom('watches')
      .select('state')
      .where('airport', '=', airport)
      .where('board', '=', board)
      .where('flight_key', '=', key)
      .executeTakeFirst();
    return row ? (JSON.parse(row.state) as Watch) : null;
  }

  sightings(
    airport: string,
    types: readonly BoardSighting['type'][],
    from: number,
    to: number,
  ): Promise<BoardSighting[]> {
    return this.sighted('airport', airport, from, to, types);
  }

  /** Counted in the database, hour by hour (the same statement on both; the offset is cast, since SQLite may bind the bounds as reals). */
  async hourly(
    by: 'airport' | 'carrier',
    value: string,
    type: BoardSighting['type'],
    from: number,
    to: number,
  ): Promise<HourTally[]> {
    const { rows } = await sql<{ hour: number | string; count: number | string; short_notice: number | string }>`
      SELECT CAST((scheduled_at - ${from}) / ${HOUR} AS INTEGER) AS hour, COUNT(*) AS count,
             SUM(CASE WHEN created_at > scheduled_at - ${SHORT_NOTICE} THEN 1 ELSE 0 END) AS short_notice
      FROM board_events WHERE ${sql.ref(by)} = ${value} AND type = ${type} AND scheduled_at >= ${from} AND scheduled_at < ${to}
        AND board <> ${FOLLOWED_BOARD}
      GROUP BY 1`.execute(this.db.kysely);
    return rows.map((r) => ({
      hour: from + Number(r.hour) * HOUR,
      count: Number(r.count),
      shortNotice: Number(r.short_notice),
    }));
  }

  /**
   * Whether the poller read the airport's boards during [from, to) or the 3 hours after (a read then
   * still lists the flights due in [from, to): it reads from 3 hours back). The poller keeps no record of
   * its reads, only of what they found, so the test is that some event of the airport was recorded in
   * that time: a read records every flight it lists for the first time (`flight.tracked`, 12 hours
   * ahead) and every change, so at a watched airport a few reads in a row record something. A read
   * that found nothing new is not seen; neither, past FLIGHTSTATUS_RETENTION_DAYS, is anything.
   * Such a read lists flights due within [its time − 3 h, its time + 12 h): that bounds scheduled_at,
   * so the (airport, type, scheduled_at, created_at) index answers it.
   */
  async watchedAt(airport: string, from: number, to: number): Promise<boolean> {
    const until = to + WINDOW_BEFORE_MS;
    const row = await this.db.kysely
      .selectFrom('board_events')
      .select('id')
      .where('airport', '=', airport)
      .where('type', 'in', [...EVENT_TYPES])
      .where('scheduled_at', '>=', from - WINDOW_BEFORE_MS)
      .where('scheduled_at', '<', until + WINDOW_AFTER_MS)
      .where('created_at', '>=', from)
      .where('created_at', '<', until)
      .where('board', '<>', FOLLOWED_BOARD)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  carrierCancellations(carrier: string, from: number, to: number): Promise<BoardSighting[]> {
    return this.sighted('carrier', carrier, from, to, ['flight.cancelled']);
  }

  /** The events of these types for flights due in [from, to), by airport or carrier (the SQLite store reads them with prepared statements). */
  protected async sighted(
    by: 'airport' | 'carrier',
    value: string,
    from: number,
    to: number,
    types: readonly BoardSighting['type'][],
  ): Promise<BoardSighting[]> {
    const rows = await this.db.kysely
      .selectFrom('board_events')
      .select(['type', 'flight_id', 'airport', 'board', 'scheduled_at', 'carrier', 'created_at', 'change_key'])
      .where(by, '=', value)
      .where('type', 'in', types)
      .where('scheduled_at', '>=', from)
      .where('scheduled_at', '<', to)
      .where('board', '<>', FOLLOWED_BOARD)
      .execute();
    return rows.map((r) => ({
      type: r.type as BoardSighting['type'],
      flightId: r.flight_id,
      flight: flightOfChange(r.change_key ?? null),
      airport: r.airport,
      board: r.board,
      scheduledAt: Number(r.scheduled_at),
      carrier: r.carrier ?? null,
      seenAt: Number(r.created_at),
    }));
  }

  async retire(before: number): Promise<number> {
    const result = await this.db.kysely.deleteFrom('watches').where('last_seen_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
