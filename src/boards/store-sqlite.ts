// SQLite: one board's pass is written as savepoints inside group transactions, SAVE_CHUNK flights
// each, its statements prepared once (a Kysely transaction would hold the shared connection across awaits).
import type BetterSqlite3 from 'better-sqlite3';
import type { BoardEventsTable, SqliteDatabase } from '../db/index.js';
import { HOUR } from '../clock.js';
import { SHORT_NOTICE, type BoardSighting, type HourTally } from '../circumstances/index.js';
import { EVENT_TYPES, FOLLOWED_BOARD } from './engine.js';
import { WINDOW_AFTER_MS, WINDOW_BEFORE_MS } from './store.js';
import { CommonReads, flightOfChange, type BoardStore, type BoardSubscribers, type WatchWrite } from './store.js';
import { backgroundTurn } from '../foreground.js';

type SightingRow = {
  type: BoardSighting['type'];
  flight_id: string;
  airport: string;
  board: string;
  scheduled_at: number;
  carrier: string | null;
  created_at: number;
  change_key: string | null;
};
type TallyRow = { hour: number; count: number; short_notice: number };

/** Flights of a board written per transaction (save). */
const SAVE_CHUNK = 32;

export class SqliteBoardStore extends CommonReads implements BoardStore {
  private readonly writeWatch: BetterSqlite3.Statement;
  private readonly insertEvent: BetterSqlite3.Statement;
  private readonly queueEvent: BetterSqlite3.Statement;
  private readonly linkEvent: BetterSqlite3.Statement;
  private readonly unit: (airport: string, board: string, watches: WatchWrite[], loose: BoardEventsTable[]) => number;
  /** The circumstances' reads, by airport or carrier: dozens a disrupted lookup, so prepared once. */
  private readonly sightingsBy: Record<
    'airport' | 'carrier',
    BetterSqlite3.Statement<[string, string, number, number], SightingRow>
  >;
  private readonly hourlyBy: Record<
    'airport' | 'carrier',
    BetterSqlite3.Statement<[number, number, string, string, number, number], TallyRow>
  >;
  /** CommonReads.watchedAt's statement, prepared (asked at every end of every leg a disrupted lookup looks at). */
  private readonly readAt: BetterSqlite3.Statement<unknown[], { found: number }>;

  constructor(
    private readonly sqlite: SqliteDatabase,
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
      `INSERT INTO board_events (id, type, airport, board, flight_id, created_at, data, change_key, scheduled_at, carrier) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT DO NOTHING`,
    );
    this.queueEvent = sqlite.sqlite.prepare('INSERT INTO fan_out_queue (event_id, created_at) VALUES (?, ?)');
    this.linkEvent = sqlite.sqlite.prepare(
      'INSERT INTO board_event_watches (event_id, watch_id, event_type, created_at, position) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
    );
    const sighting = (by: 'airport' | 'carrier') =>
      sqlite.sqlite.prepare<[string, string, number, number], SightingRow>(
        `SELECT type, flight_id, airport, board, scheduled_at, carrier, created_at, change_key FROM board_events WHERE ${by} = ? AND type = ? AND scheduled_at >= ? AND scheduled_at < ? AND board <> '${FOLLOWED_BOARD}'`,
      );
    this.sightingsBy = { airport: sighting('airport'), carrier: sighting('carrier') };
    // CommonReads.hourly's statement, prepared (a disrupted lookup asks it a dozen times).
    const tally = (by: 'airport' | 'carrier') =>
      sqlite.sqlite.prepare<[number, number, string, string, number, number], TallyRow>(
        `SELECT CAST((scheduled_at - ?) / ${HOUR} AS INTEGER) AS hour, COUNT(*) AS count,
                SUM(CASE WHEN created_at > scheduled_at - ? THEN 1 ELSE 0 END) AS short_notice
         FROM board_events WHERE ${by} = ? AND type = ? AND scheduled_at >= ? AND scheduled_at < ? AND board <> '${FOLLOWED_BOARD}' GROUP BY 1`,
      );
    this.hourlyBy = { airport: tally('airport'), carrier: tally('carrier') };
    this.readAt = sqlite.sqlite.prepare<unknown[], { found: number }>(
      `SELECT 1 AS found FROM board_events WHERE airport = ? AND type IN (${EVENT_TYPES.map(() => '?').join(', ')})
       AND scheduled_at >= ? AND scheduled_at < ? AND created_at >= ? AND created_at < ? AND board <> '${FOLLOWED_BOARD}' LIMIT 1`,
    );
    // A savepoint inside the group transaction: the board's watches and events land together or not at all.
    this.unit = sqlite.sqlite.transaction(
      (airport: string, board: string, watches: WatchWrite[], loose: BoardEventsTable[]) => {
        let stored = 0;
        // A stored event joins the fan-out's queue in the same unit; one a racing pass stored first is not stored again.
        const insert = (e: BoardEventsTable) => {
          if (
            this.insertEvent.run(
              e.id,
              e.type,
              e.airport,
              e.board,
              e.flight_id,
              e.created_at,
              e.data,
              e.change_key ?? null,
              e.scheduled_at ?? null,
              e.carrier ?? null,
            ).changes === 0
          )
            return 0;
          this.queueEvent.run(e.id, e.created_at);
          return 1;
        };
        for (const { key, watch, basis, events, links } of watches) {
          if (
            this.writeWatch.run(airport, board, key, watch.flightId, watch.lastSeenAt, JSON.stringify(watch), basis)
              .changes === 0
          )
            continue;
          const kept = new Set<string>();
          for (const e of events) if (insert(e) === 1) kept.add(e.id);
          stored += kept.size;
          // Only the links of events stored here (not those a racing pass stored first).
          for (const l of links ?? [])
            if (kept.has(l.event_id))
              this.linkEvent.run(l.event_id, l.watch_id, l.event_type, l.created_at, l.position);
        }
        for (const e of loose) stored += insert(e);
        return stored;
      },
    );
  }

  /**
   * A board's flights in transactions of SAVE_CHUNK (each flight's watch, events and links in one):
   * better-sqlite3 holds the event loop for the whole of a transaction, and a busy board written in one
   * held every request 100–300 ms a pass (profiled under bench/watches-load.mjs); between chunks they run.
   */
  async save(airport: string, board: string, watches: WatchWrite[], loose: BoardEventsTable[] = []): Promise<number> {
    let stored = 0;
    for (let i = 0; i === 0 || i < watches.length; i += SAVE_CHUNK) {
      const part = watches.slice(i, i + SAVE_CHUNK);
      const rest = i + SAVE_CHUNK >= watches.length ? loose : [];
      if (i > 0) await backgroundTurn();
      await this.sqlite.checkpointer?.beforeLongWrite();
      stored += await this.sqlite.group.run(() => this.unit(airport, board, part, rest));
    }
    if (stored > 0) this.startPublishing();
    return stored;
  }

  override async hourly(
    by: 'airport' | 'carrier',
    value: string,
    type: BoardSighting['type'],
    from: number,
    to: number,
  ): Promise<HourTally[]> {
    return this.hourlyBy[by]
      .all(from, SHORT_NOTICE, value, type, from, to)
      .map((r) => ({ hour: from + r.hour * HOUR, count: r.count, shortNotice: r.short_notice }));
  }

  override async watchedAt(airport: string, from: number, to: number): Promise<boolean> {
    const until = to + WINDOW_BEFORE_MS;
    return (
      this.readAt.get(airport, ...EVENT_TYPES, from - WINDOW_BEFORE_MS, until + WINDOW_AFTER_MS, from, until) !==
      undefined
    );
  }

  protected override async sighted(
    by: 'airport' | 'carrier',
    value: string,
    from: number,
    to: number,
    types: readonly BoardSighting['type'][],
  ): Promise<BoardSighting[]> {
    const out: BoardSighting[] = [];
    for (const type of types) {
      for (const r of this.sightingsBy[by].all(value, type, from, to)) {
        out.push({
          type: r.type,
          flightId: r.flight_id,
          flight: flightOfChange(r.change_key),
          airport: r.airport,
          board: r.board,
          scheduledAt: r.scheduled_at,
          carrier: r.carrier,
          seenAt: r.created_at,
        });
      }
    }
    return out;
  }
}
