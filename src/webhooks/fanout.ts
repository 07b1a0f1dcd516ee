// The fan-out (docs/webhooks.md, "Fan-out"): one delivery per event and endpoint that selects the event's airport
// or watches its flight (docs/watches.md, "Events": the board store links an event to the active watches of
// its flight in the event's own transaction; the endpoints of those still active receive it).
// The board store writes a board's watches and events in one transaction, each event with its row in
// fan_out_queue; the fan-out then writes their deliveries in chunks sized to about FAN_OUT_BUDGET_MS
// of work each, each chunk its own short transaction that also takes the events it completes off the
// queue, and yields to the event loop between chunks, so a poll that fans out to 1,000 endpoints does
// not stall the API (docs/webhooks.md, "Fan-out"; docs/decisions.md).
//
// Nothing is lost on a crash between chunks: the watches never advance without their events, and an
// event still queued is fanned out again by the next run (after the next board's save, or at the
// start of the next delivery cycle). Pairs already written are skipped by the (event_id, endpoint_id)
// unique key, so a resumed fan-out never makes a second delivery of an event to an endpoint.
import type { Database } from '../db/index.js';
import {
  FOLLOWED_BOARD,
  WATCH_ONLY_EVENT_TYPES,
  type BoardSubscribers,
  type DepartedFlight,
  type WatchedFlight,
} from '../boards/index.js';
import { subscribedEndpoints } from './queue.js';
import { webhookDialect, type FanOutEvent, type FanOutRow, type FanOutWrite } from './dialect.js';
import { backgroundTurn } from '../foreground.js';

/**
 * How long one chunk may hold the writer. On SQLite a chunk holds the one writer and, better-sqlite3
 * being synchronous, the event loop, and requests queued meanwhile wait for it (their statements join
 * the same group transaction). The chunk's size follows its cost: each chunk is timed, commit
 * included, and the next sized to take about this long, between FAN_OUT_MIN_ROWS and FAN_OUT_MAX_ROWS. A fixed 1,000 rows
 * took 380 ms each on this shared machine under load once the table held 600,000 rows (random keys in
 * five indexes), and the API's p50 during the fan-out was 1 s (docs/webhooks.md, "Fan-out"). PostgreSQL does
 * not block the loop; short transactions keep row locks and WAL bursts small there.
 */
export const FAN_OUT_BUDGET_MS = 10;
export const FAN_OUT_MIN_ROWS = 20;
export const FAN_OUT_MAX_ROWS = 2000;
/** Pending events read at a time (their subscribers are read again for each such batch). */
const EVENTS_PER_READ = 200;
const NO_TARGETS: ReadonlySet<string> = new Set();
const WATCH_ONLY: ReadonlySet<string> = new Set(WATCH_ONLY_EVENT_TYPES);

interface Subscriber {
  id: string;
  airports: string[];
  createdAt: number;
  /** When the endpoint was disabled; null while it is enabled. */
  disabledAt: number | null;
}

export interface FanOutOptions {
  /**
   * How long after an endpoint was disabled its events are still kept for it as `skipped` deliveries
   * (the retention period: they would be pruned after it anyway).
   */
  keepSkippedMs: number;
  /** A watched airport's catalogue code (aliases to the primary), null outside the catalogue: only those are polled for watches. */
  catalogue?: (iata: string) => string | null;
}

/** A watch an endpoint receives an event for, as its delivery names it. */
export interface WatchNamed {
  id: string;
  reference: string | null;
}

/**
 * The flights endpoints follow besides their airports: accounts' watches (src/watches implements it
 * and attaches itself with `follow`), so the fan-out knows who listens without knowing watches.
 */
export interface FlightSubscriptions {
  /** Active watches whose flight may be on a board read at `at`. */
  watchedFlights(at: number): Promise<WatchedFlight[]>;
  /** The airports those watches name. */
  watchedAirports(at: number): Promise<string[]>;
  /** `${event} ${endpoint}` for every endpoint of an active watch each event was observed for. */
  targets(eventIds: readonly string[]): Promise<Set<string>>;
  /** By `${event} ${endpoint}`: the endpoint's watches each event was observed for. */
  watchesOf(eventIds: readonly string[], endpointIds: readonly string[]): Promise<Map<string, WatchNamed[]>>;
  /** Watched flights the boards saw leave for an airport they do not read (BoardSubscribers.departed). */
  departed?(flights: DepartedFlight[], at: number): Promise<void>;
}

/** The default of FLIGHTSTATUS_RETENTION_DAYS (30 days). */
const DEFAULT_KEEP_SKIPPED_MS = 30 * 86_400_000;

export class FanOut implements BoardSubscribers {
  private running: Promise<number> | null = null;
  /** The next chunk's size, adjusted after each chunk to take about FAN_OUT_BUDGET_MS. */
  private chunkRows = 500;
  private queued: Promise<number> | null = null;
  private readonly write: FanOutWrite;
  private flights: FlightSubscriptions | null = null;

  constructor(
    private readonly db: Database,
    readonly options: FanOutOptions = { keepSkippedMs: DEFAULT_KEEP_SKIPPED_MS },
  ) {
    this.write = webhookDialect(db).fanOutWriter();
  }

  /** Watched flights' endpoints receive their events too (createWatches attaches them). */
  follow(flights: FlightSubscriptions): void {
    this.flights = flights;
  }

  /** Who follows flights, if anyone: the delivery body names an endpoint's watches (worker.ts). */
  get followed(): FlightSubscriptions | null {
    return this.flights;
  }

  /**
   * The boards' subscribers: the airports endpoints select, enabled or disabled within `keepSkippedMs`
   * before `at`, and the catalogue airports active watches of flights around `at` name.
   */
  async watchedAirports(at: number): Promise<string[]> {
    const rows = await subscribedEndpoints(this.db.kysely, at - this.options.keepSkippedMs);
    const airports = new Set<string>();
    for (const row of rows) for (const iata of JSON.parse(row.airports) as string[]) airports.add(iata);
    for (const named of (await this.flights?.watchedAirports(at)) ?? []) {
      const iata = this.options.catalogue ? this.options.catalogue(named) : named;
      if (iata) airports.add(iata);
    }
    return [...airports].sort();
  }

  watchedFlights(at: number): Promise<WatchedFlight[]> {
    return this.flights ? this.flights.watchedFlights(at) : Promise.resolve([]);
  }

  async departed(flights: DepartedFlight[], at: number): Promise<void> {
    await this.flights?.departed?.(flights, at);
  }

  /** What the boards stored goes out: `run`. */
  publish(): Promise<number> {
    return this.run();
  }

  /** A run is under way or waiting in this process. */
  get busy(): boolean {
    return this.running !== null || this.queued !== null;
  }

  /**
   * Writes the deliveries of every event not yet fanned out; resolves with the rows written once
   * none is left. A call while a run is under way waits for it and runs once more after it (so the
   * caller's own events are covered); calls made meanwhile share that next run.
   */
  run(): Promise<number> {
    if (this.queued) return this.queued;
    const before = this.running ?? Promise.resolve(0);
    const next = before
      .catch(() => 0)
      .then(() => {
        this.queued = null;
        const current = this.pass();
        this.running = current;
        current.then(
          () => this.running === current && (this.running = null),
          () => this.running === current && (this.running = null),
        );
        return current;
      });
    this.queued = next;
    return next;
  }

  private async pass(): Promise<number> {
    let written = 0;
    for (;;) {
      const events = await this.pending();
      if (events.length === 0) return written;
      const subscribers = await this.subscribers();
      // `${event} ${endpoint}` of the active watches each event was observed for.
      const watching = this.flights ? await this.flights.targets(events.map((e) => e.id)) : NO_TARGETS;
      let rows: FanOutRow[] = [];
      // `completed`: the events this chunk takes off the queue (only the batch's last chunk has any).
      const flush = async (completed: FanOutEvent[] = []) => {
        const ms = await this.write(rows, completed);
        if (rows.length > 0) {
          const fit = Math.round((rows.length * FAN_OUT_BUDGET_MS) / Math.max(ms, 0.1));
          this.chunkRows = Math.min(FAN_OUT_MAX_ROWS, Math.max(FAN_OUT_MIN_ROWS, fit));
        }
        written += rows.length;
        rows = [];
        await backgroundTurn();
      };
      // Endpoint by endpoint, each one's events in order: a chunk then touches a few pages of the
      // per-endpoint indexes instead of one page per endpoint (docs/webhooks.md, "Fan-out"). An
      // endpoint's deliveries keep their events' order; the batch's events leave the queue in its
      // last chunk, once every endpoint has its rows.
      for (const s of subscribers) {
        for (const event of events) {
          // Only endpoints that existed when the change was observed: a resumed fan-out never backfills.
          if (s.createdAt > event.created_at) continue;
          // Its airport (not for an event only watches receive), or a watch of its flight; either way one delivery.
          const byAirport = !event.watchOnly && s.airports.includes(event.airport);
          if (!byAirport && (watching.size === 0 || !watching.has(`${event.id} ${s.id}`))) continue;
          // A disabled endpoint keeps what is observed while it is disabled, unsent, for the retention period.
          if (s.disabledAt !== null && event.created_at > s.disabledAt + this.options.keepSkippedMs) continue;
          rows.push({
            endpointId: s.id,
            eventId: event.id,
            eventType: event.type,
            at: event.created_at,
            state: s.disabledAt === null ? 'pending' : 'skipped',
          });
          if (rows.length >= this.chunkRows) await flush();
        }
      }
      await flush(events);
      // A short batch was the last: an event stored since then comes with its own run() (queued after this one).
      if (events.length < EVENTS_PER_READ) return written;
    }
  }

  private async pending(): Promise<FanOutEvent[]> {
    const rows = await this.db.kysely
      .selectFrom('fan_out_queue as q')
      .innerJoin('board_events as e', 'e.id', 'q.event_id')
      .select(['e.id', 'e.type', 'e.airport', 'e.board', 'e.created_at'])
      .orderBy('q.created_at')
      .orderBy('q.event_id')
      .limit(EVENTS_PER_READ)
      .execute();
    return rows.map(({ board, ...r }) => ({
      ...r,
      created_at: Number(r.created_at),
      watchOnly: board === FOLLOWED_BOARD || WATCH_ONLY.has(r.type),
    }));
  }

  /** The endpoints of enabled accounts, as now: enabled ones, and disabled ones with when they were. */
  private async subscribers(): Promise<Subscriber[]> {
    const rows = await this.db.kysely
      .selectFrom('endpoints as e')
      .innerJoin('accounts as a', 'a.id', 'e.account_id')
      .select(['e.id', 'e.airports', 'e.created_at', 'e.enabled', 'e.disabled_at'])
      .where('a.disabled', '=', 0)
      .execute();
    return rows.map((r) => ({
      id: r.id,
      airports: JSON.parse(r.airports) as string[],
      createdAt: Number(r.created_at),
      disabledAt: r.enabled === 1 ? null : Number(r.disabled_at ?? r.created_at),
    }));
  }
}
