// Fair claims and a fan-out in bounded steps (docs/webhooks.md, "Fairness" and "Fan-out").
// - deliveries_endpoint_due: the claim looks at each endpoint's own due deliveries (a few rows per
//   endpoint), so a long queue of one account cannot hide another's; this index answers that probe.
// - board_events.fanned_out: 0 while the event's deliveries are still being written, 1 once every
//   subscriber has its row. Events stored before this migration were fanned out with them: 1.
import { sql, type Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const deliveryQueue: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createIndex('deliveries_endpoint_due')
      .on('deliveries')
      .columns(['endpoint_id', 'next_attempt_at', 'seq'])
      .where(sql.ref('state'), '=', 'pending')
      .execute();
    await db.schema
      .alterTable('board_events')
      .addColumn('fanned_out', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
    await db.schema
      .createIndex('board_events_fan_out')
      .on('board_events')
      .columns(['created_at', 'id'])
      .where(sql.ref('fanned_out'), '=', 0)
      .execute();
  },
});
