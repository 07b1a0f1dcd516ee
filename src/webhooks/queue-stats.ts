// The delivery queue as an operator watches it (GET /metrics): what is due and waiting, what a worker
// holds, how long the oldest due delivery has waited, and the endpoints switched off by failures.
// One statement over the pending rows (the partial index deliveries_due) and one count of endpoints.
import { sql } from 'kysely';
import type { Database } from '../db/index.js';

export interface QueueStats {
  /** Pending deliveries whose next attempt is due and that no worker holds. */
  due: number;
  /** Pending deliveries a worker holds (claimed, attempt under way). */
  inFlight: number;
  /** Age of the oldest due delivery, in ms (0 when none is due). */
  oldestDueMs: number;
  /** Endpoints that are off (by failures or by their owner). */
  disabledEndpoints: number;
}

export async function deliveryQueueStats(db: Database, now: number): Promise<QueueStats> {
  const [queue, endpoints] = await Promise.all([
    sql<{ due: number | string; in_flight: number | string; oldest: number | string | null }>`
      SELECT
        COUNT(CASE WHEN next_attempt_at <= ${now} AND (lease_until IS NULL OR lease_until <= ${now}) THEN 1 END) AS due,
        COUNT(CASE WHEN lease_until > ${now} THEN 1 END) AS in_flight,
        MIN(CASE WHEN next_attempt_at <= ${now} AND (lease_until IS NULL OR lease_until <= ${now}) THEN next_attempt_at END) AS oldest
      FROM deliveries WHERE state = 'pending'`.execute(db.kysely),
    db.kysely
      .selectFrom('endpoints')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('enabled', '=', 0)
      .executeTakeFirstOrThrow(),
  ]);
  const row = queue.rows[0]!;
  return {
    due: Number(row.due),
    inFlight: Number(row.in_flight),
    oldestDueMs: row.oldest === null ? 0 : Math.max(0, now - Number(row.oldest)),
    disabledEndpoints: Number(endpoints.n),
  };
}
