// Board state in the database: the airports enabled endpoints select, each flight's watch per
// board, and the events. One board's observations (watches and events) are written atomically: on
// SQLite inside the group transaction (statements prepared once; a Kysely transaction would hold the
// shared connection across awaits), on PostgreSQL in one transaction. The events are stored marked
// for fan-out, and their webhook deliveries are then written by the fan-out in short chunks
// (src/webhooks/fanout.ts) before `save` returns; a fan-out cut short resumes on its next run.
import type BetterSqlite3 from 'better-sqlite3';
import type { BoardEventsTable, Database } from '../db/index.js';
import type { Watch } from './engine.js';
import { FanOut, subscribedEndpoints } from '../webhooks/index.js';

export interface WatchWrite {
  key: string;
  watch: Watch;
}

export interface BoardStore {
  /** Catalogue airports selected by at least one enabled endpoint of an enabled account. */
  watchedAirports(): Promise<string[]>;
  watches(airport: string, board: string): Promise<Map<string, Watch>>;
  /** Upserts the watches and inserts the events of one board's pass, all or nothing; then fans the events out. */
  save(airport: string, board: string, watches: WatchWrite[], events: BoardEventsTable[]): Promise<void>;
  /** Forgets flights not seen since `before`; returns how many. */
  retire(before: number): Promise<number>;
}

class CommonReads {
  constructor(protected readonly db: Database) {}

  async watchedAirports(): Promise<string[]> {
    const rows = await subscribedEndpoints(this.db.kysely);
    const airports = new Set<string>();
    for (const row of rows) for (const iata of JSON.parse(row.airports) as string[]) airports.add(iata);
    return [...airports].sort();
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
  private readonly upsert: BetterSqlite3.Statement;
  private readonly insert: BetterSqlite3.Statement;
  private readonly unit: (airport: string, board: string, watches: WatchWrite[], events: BoardEventsTable[]) => void;

  constructor(
    private readonly sqlite: Extract<Database, { kind: 'sqlite' }>,
    private readonly fanOut: FanOut,
  ) {
    super(sqlite);
    this.upsert = sqlite.sqlite.prepare(
      `INSERT INTO watches (airport, board, flight_key, flight_id, last_seen_at, state) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (airport, board, flight_key) DO UPDATE SET last_seen_at = excluded.last_seen_at, state = excluded.state`,
    );
    this.insert = sqlite.sqlite.prepare(
      'INSERT INTO board_events (id, type, airport, board, flight_id, created_at, data, fanned_out) VALUES (?, ?, ?, ?, ?, ?, ?, 0)',
    );
    // A savepoint inside the group transaction: the board's watches and events land together or not at all.
    this.unit = sqlite.sqlite.transaction((airport: string, board: string, watches: WatchWrite[], events: BoardEventsTable[]) => {
      for (const { key, watch } of watches) {
        this.upsert.run(airport, board, key, watch.flightId, watch.lastSeenAt, JSON.stringify(watch));
      }
      for (const e of events) this.insert.run(e.id, e.type, e.airport, e.board, e.flight_id, e.created_at, e.data);
    });
  }

  async save(airport: string, board: string, watches: WatchWrite[], events: BoardEventsTable[]): Promise<void> {
    await this.sqlite.group.run(() => this.unit(airport, board, watches, events));
    if (events.length > 0) await this.fanOut.run();
  }
}

class PostgresBoardStore extends CommonReads implements BoardStore {
  constructor(
    db: Database,
    private readonly fanOut: FanOut,
  ) {
    super(db);
  }

  async save(airport: string, board: string, watches: WatchWrite[], events: BoardEventsTable[]): Promise<void> {
    await this.db.kysely.transaction().execute(async (trx) => {
      // Batches keep each statement's parameters well under PostgreSQL's limit.
      for (let i = 0; i < watches.length; i += 500) {
        await trx
          .insertInto('watches')
          .values(
            watches.slice(i, i + 500).map(({ key, watch }) => ({
              airport,
              board,
              flight_key: key,
              flight_id: watch.flightId,
              last_seen_at: watch.lastSeenAt,
              state: JSON.stringify(watch),
            })),
          )
          .onConflict((c) =>
            c.columns(['airport', 'board', 'flight_key']).doUpdateSet((eb) => ({
              last_seen_at: eb.ref('excluded.last_seen_at'),
              state: eb.ref('excluded.state'),
            })),
          )
          .execute();
      }
      for (let i = 0; i < events.length; i += 500) {
        await trx
          .insertInto('board_events')
          .values(events.slice(i, i + 500).map((e) => ({ ...e, fanned_out: 0 })))
          .execute();
      }
    });
    if (events.length > 0) await this.fanOut.run();
  }
}

/** `fanOut`: the process's fan-out, shared with the delivery worker (one is made when not given). */
export function createBoardStore(db: Database, fanOut: FanOut = new FanOut(db)): BoardStore {
  return db.kind === 'sqlite' ? new SqliteBoardStore(db, fanOut) : new PostgresBoardStore(db, fanOut);
}
