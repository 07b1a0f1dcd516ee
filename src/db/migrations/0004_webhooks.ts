// Webhook delivery: one row per (event, endpoint), created in the same transaction as the event, so
// nothing observed can be lost between the poll and the send. `seq` orders the queue (event order);
// `id` is the public delivery id, the receivers' idempotency key. The endpoint remembers why and when
// it was disabled.
import { sql, type Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const webhooks: DialectMigration = (dialect) => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('endpoints').addColumn('disabled_at', 'bigint').execute();
    await db.schema.alterTable('endpoints').addColumn('disabled_reason', 'text').execute();

    await db.schema
      .createTable('deliveries')
      .addColumn('seq', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
        dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
      )
      .addColumn('id', 'text', (c) => c.notNull().unique())
      .addColumn('endpoint_id', 'text', (c) => c.notNull())
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addColumn('event_type', 'text', (c) => c.notNull())
      // pending, delivered or failed; the API's queued / retrying labels are derived from attempts.
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      // Null while the endpoint is disabled (its queue stops) and once the delivery is final.
      .addColumn('next_attempt_at', 'bigint')
      // A worker's claim: until then no other worker takes the delivery; expired claims are retaken.
      .addColumn('lease_until', 'bigint')
      .addColumn('last_attempt_at', 'bigint')
      .addColumn('last_status', 'integer')
      .addColumn('last_error', 'text')
      // The exact bytes of the first attempt, re-sent by every retry.
      .addColumn('body', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('delivered_at', 'bigint')
      .addUniqueConstraint('deliveries_event_endpoint', ['event_id', 'endpoint_id'])
      .execute();
    await db.schema
      .createIndex('deliveries_due')
      .on('deliveries')
      .columns(['next_attempt_at', 'seq'])
      .where(sql.ref('state'), '=', 'pending')
      .execute();
    await db.schema.createIndex('deliveries_endpoint').on('deliveries').columns(['endpoint_id', 'seq']).execute();
  },
});
