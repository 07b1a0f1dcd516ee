// The delivery queue as an operator watches it (GET /metrics): what is due and waiting, what a worker
// holds, how long the oldest due delivery has waited, and the endpoints switched off by failures.
// The leased work's own count over the pending rows (leases/) and one count of endpoints.
import type { Database } from '../db/index.js';
import { LeasedRows } from '../leases/index.js';
import { DELIVERY_LEASES } from './queue.js';

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
    new LeasedRows(db, DELIVERY_LEASES).counts(now),
    db.kysely
      .selectFrom('endpoints')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('enabled', '=', 0)
      .executeTakeFirstOrThrow(),
  ]);
  return {
    due: queue.due,
    inFlight: queue.held,
    oldestDueMs: queue.oldestDueAt === null ? 0 : Math.max(0, now - queue.oldestDueAt),
    disabledEndpoints: Number(endpoints.n),
  };
}
