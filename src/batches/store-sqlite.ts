// The batches' SQLite statements (dialect.ts chooses them): a lookup's answer and its rows written a
// prepared statement a row (atomically() keeps them prepared; the texts never vary).
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import type { LookupWrite } from './store-shapes.js';

/** Each row, then its lookup, only while the lookup's lease is still this worker's. */
export function lookupWritesSqlite(k: Kysely<DatabaseSchema>, batchId: string, writes: LookupWrite[]): CompiledQuery[] {
  const queries: CompiledQuery[] = [];
  for (const w of writes) {
    const held = sql<boolean>`EXISTS (SELECT 1 FROM batch_lookups WHERE batch_id = ${batchId} AND seq = ${w.lookup.seq} AND state = 'running' AND lease_until = ${w.lookup.leaseUntil})`;
    for (const r of w.rows) {
      queries.push(
        k
          .updateTable('batch_rows')
          .set({
            state: r.state,
            outcome: r.state === 'done' ? w.outcome : null,
            usage_id: r.usageId,
            error: r.error,
            finished_at: w.at,
          })
          .where('batch_id', '=', batchId)
          .where('position', '=', r.position)
          .where('state', '=', 'pending')
          .where(held)
          .compile(),
      );
    }
    queries.push(
      k
        .updateTable('batch_lookups')
        .set({ state: 'done', result: w.result, calls: w.calls, lease_until: null })
        .where('batch_id', '=', batchId)
        .where('seq', '=', w.lookup.seq)
        .where('state', '=', 'running')
        .where('lease_until', '=', w.lookup.leaseUntil)
        .compile(),
    );
  }
  return queries;
}
