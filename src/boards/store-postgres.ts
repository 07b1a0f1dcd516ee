// PostgreSQL: one board's pass is one transaction of multi-row statements built as text.
import { CompiledQuery, sql } from 'kysely';
import type { BoardEventsTable } from '../db/index.js';
import { CommonReads, type BoardStore, type WatchWrite } from './store.js';

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

// The SQLite store's upsert (store-sqlite.ts), many rows at once. The conflict target is the primary key, so the plan never depends on
// the table's statistics (a VALUES join did: on a young table it scanned watches once per batch).
const upsertWatches = (rows: number) => `
  INSERT INTO watches (airport, board, flight_key, flight_id, last_seen_at, state, basis) VALUES ${valuesList(rows, 5, 2)}
  ON CONFLICT (airport, board, flight_key) DO UPDATE SET last_seen_at = excluded.last_seen_at, state = excluded.state, basis = excluded.basis
  WHERE watches.last_seen_at = excluded.basis
  RETURNING flight_key`;
// The events stored (not those a racing pass stored first) join the fan-out's queue.
const insertEvents = (rows: number) => `
  WITH stored AS (
    INSERT INTO board_events (id, type, airport, board, flight_id, created_at, data, change_key, scheduled_at, carrier) VALUES ${valuesList(rows, 10)}
    ON CONFLICT DO NOTHING
    RETURNING id, created_at)
  INSERT INTO fan_out_queue (created_at, event_id) SELECT created_at, id FROM stored`;

export class PostgresBoardStore extends CommonReads implements BoardStore {
  async save(airport: string, board: string, watches: WatchWrite[], loose: BoardEventsTable[] = []): Promise<number> {
    const stored = await this.db.kysely.transaction().execute(async (trx) => {
      const written = new Set<string>();
      for (let i = 0; i < watches.length; i += BATCH) {
        const batch = watches.slice(i, i + BATCH);
        const values: unknown[] = [airport, board];
        for (const { key, watch, basis } of batch)
          values.push(key, watch.flightId, watch.lastSeenAt, JSON.stringify(watch), basis);
        const result = await trx.executeQuery<{ flight_key: string }>(
          CompiledQuery.raw(upsertWatches(batch.length), values),
        );
        for (const r of result.rows) written.add(r.flight_key);
      }
      const events = [...watches.filter((w) => written.has(w.key)).flatMap((w) => w.events), ...loose];
      let count = 0;
      for (let i = 0; i < events.length; i += BATCH) {
        const batch = events.slice(i, i + BATCH);
        const values: unknown[] = [];
        for (const e of batch)
          values.push(
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
          );
        const result = await trx.executeQuery(CompiledQuery.raw(insertEvents(batch.length), values));
        count += Number(result.numAffectedRows ?? 0);
      }
      // Links to watches (followed.ts), of the events this transaction stored: a fresh id is in board_events only if it was.
      const links = watches.filter((w) => written.has(w.key)).flatMap((w) => w.links ?? []);
      if (links.length > 0)
        await sql`INSERT INTO board_event_watches (event_id, watch_id, event_type, created_at, position)
          SELECT t.* FROM unnest(${links.map((l) => l.event_id)}::text[], ${links.map((l) => l.watch_id)}::text[],
            ${links.map((l) => l.event_type)}::text[], ${links.map((l) => l.created_at)}::bigint[], ${links.map((l) => l.position)}::int[])
            AS t(event_id, watch_id, event_type, created_at, position)
          WHERE EXISTS (SELECT 1 FROM board_events e WHERE e.id = t.event_id)
          ON CONFLICT DO NOTHING`.execute(trx);
      return count;
    });
    if (stored > 0) this.startPublishing();
    return stored;
  }
}
