// The batches' PostgreSQL statements (dialect.ts chooses them): answers written in multi-row
// statements, since each statement costs the driver more than a row does.
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { INSERT_CHUNK, type LookupWrite } from './store-shapes.js';

/** The same writes as lookupWritesSqlite(), the rows and then the lookups each a statement per INSERT_CHUNK. */
export function lookupWritesPostgres(
  k: Kysely<DatabaseSchema>,
  batchId: string,
  writes: LookupWrite[],
): CompiledQuery[] {
  const queries: CompiledQuery[] = [];
  const rows = writes.flatMap((w) => w.rows.map((r) => ({ w, r })));
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const values = rows
      .slice(i, i + INSERT_CHUNK)
      .map(
        ({ w, r }) =>
          sql`(${r.position}::integer, ${w.lookup.seq}::integer, ${w.lookup.leaseUntil}::bigint, ${r.state}::text, ${r.state === 'done' ? w.outcome : null}::text, ${r.usageId}::bigint, ${r.error}::text, ${w.at}::bigint)`,
      );
    queries.push(
      sql`UPDATE batch_rows AS r SET state = v.state, outcome = v.outcome, usage_id = v.usage_id, error = v.error, finished_at = v.finished_at
          FROM (VALUES ${sql.join(values)}) AS v (position, seq, lease_until, state, outcome, usage_id, error, finished_at)
          WHERE r.batch_id = ${batchId} AND r.position = v.position AND r.state = 'pending'
            AND EXISTS (SELECT 1 FROM batch_lookups l WHERE l.batch_id = ${batchId} AND l.seq = v.seq AND l.state = 'running' AND l.lease_until = v.lease_until)`.compile(
        k,
      ),
    );
  }
  for (let i = 0; i < writes.length; i += INSERT_CHUNK) {
    const values = writes
      .slice(i, i + INSERT_CHUNK)
      .map(
        (w) => sql`(${w.lookup.seq}::integer, ${w.lookup.leaseUntil}::bigint, ${w.result}::text, ${w.calls}::integer)`,
      );
    queries.push(
      sql`UPDATE batch_lookups AS l SET state = 'done', result = v.result, calls = v.calls, lease_until = NULL
          FROM (VALUES ${sql.join(values)}) AS v (seq, lease_until, result, calls)
          WHERE l.batch_id = ${batchId} AND l.seq = v.seq AND l.state = 'running' AND l.lease_until = v.lease_until`.compile(
        k,
      ),
    );
  }
  return queries;
}
