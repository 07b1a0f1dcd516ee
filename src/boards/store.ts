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
import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery } from 'kysely';
import type { BoardEventsTable, Database } from '../db/index.js';
import type { Watch } from './engine.js';

/**
 * Who hears of the events a pass stores: the webhook fan-out implements it (src/webhooks/fanout.ts),
 * so boards publish what they observed without knowing webhooks. A stored event is queued in the
 * pass's own transaction (fan_out_queue); `publish` hands every queued event on and resolves once none
 * is left (it rejects when it could not, and the events stay queued for the next call).
 */
export interface BoardSubscribers {
  /** Catalogue airports some subscriber listens to at `at`. */
  watchedAirports(at: number): Promise<string[]>;
  publish(): Promise<unknown>;
}

export interface WatchWrite {
  key: string;
  watch: Watch;
  /** The stored watch's last_seen_at the pass computed from; null when the flight was new to it. */
  basis: number | null;
  /** The events of this observation, stored only if the watch is. */
  events: BoardEventsTable[];
}

export interface BoardStore {
  /**
   * Catalogue airports selected by at least one endpoint of an enabled account that is enabled, or was
   * disabled within the retention period before `at` (queue.ts, `subscribedEndpoints`).
   */
  watchedAirports(at: number): Promise<string[]>;
  watches(airport: string, board: string): Promise<Map<string, Watch>>;
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

class CommonReads {
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

  async watches(airport: string, board: string): Promise<Map<string, Watch>> {
    const rows = await this.db.kysely
      .selectFrom('watches')
      .select(['flight_key', 'state'])
      .where('airport', '=', airport)
      .where('board', '=', board)
      .execute();
    return new Map(rows.map((r) => [r.flight_key, JSON.parse(r.state) as Watch]));
  }

  async retire(before: number): Promise<number> {
    const result = await this.db.kysely.deleteFrom('watches').where('last_seen_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

class SqliteBoardStore extends CommonReads implements BoardStore {
  private readonly writeWatch: BetterSqlite3.Statement;
  private readonly insertEvent: BetterSqlite3.Statement;
  private readonly queueEvent: BetterSqlite3.Statement;
  private readonly unit: (airport: string, board: string, watches: WatchWrite[], loose: BoardEventsTable[]) => number;

  constructor(
    private readonly sqlite: Extract<Database, { kind: 'sqlite' }>,
    subscribers: BoardSubscribers,
  ) {
    super(sqlite, subscribers);
    // Inserted when the flight has no watch; updated only when the stored one is still the pass's basis
    // (a new flight's basis is null, which matches nothing). The same statement as PostgreSQL's.
    this.writeWatch = sqlite.sqlite.prepare(
      `INSERT INTO watches (airport, board, flight_key, flight_id, last_seen_at, state, basis) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (airport, board, flight_key) DO UPDATE SET last_seen_at = excluded.last_seen_at, state = excluded.state, basis = excluded.basis
       WHERE watches.last_seen_at = excluded.basis`,
    );
    this.insertEvent = sqlite.sqlite.prepare(
      `INSERT INTO board_events (id, type, airport, board, flight_id, created_at, data, change_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT DO NOTHING`,
    );
    this.queueEvent = sqlite.sqlite.prepare('INSERT INTO fan_out_queue (event_id, created_at) VALUES (?, ?)');
    // A savepoint inside the group transaction: the board's watches and events land together or not at all.
    this.unit = sqlite.sqlite.transaction((airport: string, board: string, watches: WatchWrite[], loose: BoardEventsTable[]) => {
      let stored = 0;
      // A stored event joins the fan-out's queue in the same unit; one a racing pass stored first is not stored again.
      const insert = (e: BoardEventsTable) => {
        if (this.insertEvent.run(e.id, e.type, e.airport, e.board, e.flight_id, e.created_at, e.data, e.change_key ?? null).changes === 0) return 0;
        this.queueEvent.run(e.id, e.created_at);
        return 1;
      };
      for (const { key, watch, basis, events } of watches) {
        if (this.writeWatch.run(airport, board, key, watch.flightId, watch.lastSeenAt, JSON.stringify(watch), basis).changes === 0) continue;
        for (const e of events) stored += insert(e);
      }
      for (const e of loose) stored += insert(e);
      return stored;
    });
  }

  async save(airport: string, board: string, watches: WatchWrite[], loose: BoardEventsTable[] = []): Promise<number> {
    const stored = await this.sqlite.group.run(() => this.unit(airport, board, watches, loose));
    if (stored > 0) this.startPublishing();
    return stored;
  }
}

/** Rows per statement: parameters stay well under PostgreSQL's limit of 65,535. */
const BATCH = 500;

/**
 * `(…), (…)` for `rows` rows of `perRow` parameters each, numbered from `$${shared + 1}`, every row
 * first naming the `shared` parameters common to all ($1…). Built as text: a first pass over 52
 * airports writes 38,000 rows, and building them as Kysely query trees took about an eighth of the
 * service's busy time in the pass (docs/performance.md, "Where the time goes on PostgreSQL").
 */
function valuesList(rows: number, perRow: number, shared = 0): string {
  const common = Array.from({ length: shared }, (_, i) => `$${i + 1}`);
  const tuples: string[] = [];
  for (let r = 0; r < rows; r++) {
    const own = Array.from({ length: perRow }, (_, c) => `$${shared + r * perRow + c + 1}`);
    tuples.push(`(${[...common, ...own].join(', ')})`);
  }
  return tuples.join(', ');
}

// The SQLite store's upsert. The conflict target is the primary key, so the plan never depends on
// the table's statistics (a VALUES join did: on a young table it scanned watches once per batch).
const upsertWatches = (rows: number) => `
  INSERT INTO watches (airport, board, flight_key, flight_id, last_seen_at, state, basis) VALUES ${valuesList(rows, 5, 2)}
  ON CONFLICT (airport, board, flight_key) DO UPDATE SET last_seen_at = excluded.last_seen_at, state = excluded.state, basis = excluded.basis
  WHERE watches.last_seen_at = excluded.basis
  RETURNING flight_key`;
// The events stored (not those a racing pass stored first) join the fan-out's queue.
const insertEvents = (rows: number) => `
  WITH stored AS (
    INSERT INTO board_events (id, type, airport, board, flight_id, created_at, data, change_key) VALUES ${valuesList(rows, 8)}
    ON CONFLICT DO NOTHING
    RETURNING id, created_at)
  INSERT INTO fan_out_queue (created_at, event_id) SELECT created_at, id FROM stored`;

class PostgresBoardStore extends CommonReads implements BoardStore {
  async save(airport: string, board: string, watches: WatchWrite[], loose: BoardEventsTable[] = []): Promise<number> {
    const stored = await this.db.kysely.transaction().execute(async (trx) => {
      const written = new Set<string>();
      for (let i = 0; i < watches.length; i += BATCH) {
        const batch = watches.slice(i, i + BATCH);
        const values: unknown[] = [airport, board];
        for (const { key, watch, basis } of batch) values.push(key, watch.flightId, watch.lastSeenAt, JSON.stringify(watch), basis);
        const result = await trx.executeQuery<{ flight_key: string }>(CompiledQuery.raw(upsertWatches(batch.length), values));
        for (const r of result.rows) written.add(r.flight_key);
      }
      const events = [...watches.filter((w) => written.has(w.key)).flatMap((w) => w.events), ...loose];
      let count = 0;
      for (let i = 0; i < events.length; i += BATCH) {
        const batch = events.slice(i, i + BATCH);
        const values: unknown[] = [];
        for (const e of batch) values.push(e.id, e.type, e.airport, e.board, e.flight_id, e.created_at, e.data, e.change_key ?? null);
        const result = await trx.executeQuery(CompiledQuery.raw(insertEvents(batch.length), values));
        count += Number(result.numAffectedRows ?? 0);
      }
      return count;
    });
    if (stored > 0) this.startPublishing();
    return stored;
  }
}

/** `subscribers`: who hears of stored events (the process's webhook fan-out, shared with the delivery worker). */
export function createBoardStore(db: Database, subscribers: BoardSubscribers): BoardStore {
  return db.kind === 'sqlite' ? new SqliteBoardStore(db, subscribers) : new PostgresBoardStore(db, subscribers);
}
