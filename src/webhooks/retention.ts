// Retention (FLIGHTSTATUS_RETENTION_DAYS, docs/deploy.md "Retention"): board events older than the
// cut-off go with their deliveries and the deliveries' attempts, a bounded batch of events per
// transaction, oldest first. An event with a delivery still pending (retries to come) stays, and so
// does everything the delivery log shows of it; usage rows and invoices are never touched here.
import type { Database } from '../db/index.js';
import { KEPT_BODY_EVENT_TYPES } from './account-events.js';

/** Events per transaction: a few thousand rows at most with their deliveries, a few milliseconds. */
const BATCH_EVENTS = 200;

export interface PruneReport {
  events: number;
  deliveries: number;
  attempts: number;
}

export class Retention {
  constructor(
    private readonly db: Database,
    private readonly batch = BATCH_EVENTS,
  ) {}

  /**
   * Removes what was created before `before`, batch by batch, yielding to other work between
   * batches, until nothing old is left or `stopping` aborts (the rest waits for the next run).
   */
  async prune(before: number, stopping?: AbortSignal): Promise<PruneReport> {
    const report: PruneReport = { events: 0, deliveries: 0, attempts: 0 };
    for (;;) {
      if (stopping?.aborted) break;
      const removed = await this.pruneBatch(before);
      report.events += removed.events;
      report.deliveries += removed.deliveries;
      report.attempts += removed.attempts;
      if (removed.events < this.batch) break;
      // Let requests waiting on the database in between (SQLite has one writer).
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Account events have no board event: their settled deliveries go by their own age.
    for (;;) {
      if (stopping?.aborted) break;
      const removed = await this.pruneAccountEvents(before);
      report.deliveries += removed.deliveries;
      report.attempts += removed.attempts;
      if (removed.deliveries < this.batch) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return report;
  }

  private pruneAccountEvents(before: number): Promise<Omit<PruneReport, 'events'>> {
    return this.db.kysely.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom('deliveries')
        .select('id')
        .where('event_type', 'in', [...KEPT_BODY_EVENT_TYPES])
        .where('state', '<>', 'pending')
        .where('created_at', '<', before)
        .limit(this.batch)
        .execute();
      if (rows.length === 0) return { deliveries: 0, attempts: 0 };
      const ids = rows.map((r) => r.id);
      const attempts = await trx.deleteFrom('delivery_attempts').where('delivery_id', 'in', ids).executeTakeFirst();
      const deliveries = await trx.deleteFrom('deliveries').where('id', 'in', ids).executeTakeFirst();
      return { deliveries: Number(deliveries.numDeletedRows), attempts: Number(attempts.numDeletedRows) };
    });
  }

  private pruneBatch(before: number): Promise<PruneReport> {
    return this.db.kysely.transaction().execute(async (trx) => {
      const events = await trx
        .selectFrom('board_events as e')
        .select('e.id')
        .where('e.created_at', '<', before)
        // Not while its deliveries are still being written, nor while one is pending.
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('fan_out_queue as q')
                .select('q.event_id')
                .whereRef('q.created_at', '=', 'e.created_at')
                .whereRef('q.event_id', '=', 'e.id'),
            ),
          ),
        )
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('deliveries as d')
                .select('d.seq')
                .whereRef('d.event_id', '=', 'e.id')
                .where('d.state', '=', 'pending'),
            ),
          ),
        )
        .orderBy('e.created_at')
        .orderBy('e.id')
        .limit(this.batch)
        .execute();
      if (events.length === 0) return { events: 0, deliveries: 0, attempts: 0 };
      const ids = events.map((e) => e.id);
      const attempts = await trx
        .deleteFrom('delivery_attempts')
        .where('delivery_id', 'in', (eb) => eb.selectFrom('deliveries').select('id').where('event_id', 'in', ids))
        .executeTakeFirst();
      const deliveries = await trx.deleteFrom('deliveries').where('event_id', 'in', ids).executeTakeFirst();
      // Their links to the watches they were observed for (a watch lists its events from them).
      await trx.deleteFrom('board_event_watches').where('event_id', 'in', ids).execute();
      const removed = await trx.deleteFrom('board_events').where('id', 'in', ids).executeTakeFirst();
      return {
        events: Number(removed.numDeletedRows),
        deliveries: Number(deliveries.numDeletedRows),
        attempts: Number(attempts.numDeletedRows),
      };
    });
  }
}
