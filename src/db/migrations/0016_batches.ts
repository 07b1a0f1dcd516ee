// Batches of flights checked at once (docs/batches.md).
// - batches: one per upload, owned by an account; its state and when it ran. Counts are read from
//   its rows, never kept twice.
// - batch_lookups: the unit of work. Rows that ask the same question (flight, date, origin,
//   destination) share one lookup, so a duplicate is resolved once. A worker claims lookups with a
//   lease; an expired lease (a worker killed mid-batch) lets another worker take the lookup again.
// - batch_rows: one per input row, in input order, with its reference, its lookup, and the usage row
//   of its credit (the charge), so no row is charged twice.
// - endpoints.account_events: the account events (batch.completed) a webhook endpoint receives
//   besides its airports' board events; none unless asked for.
import { sql, type Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const batches: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('endpoints')
      .addColumn('account_events', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();
    await db.schema
      .createTable('batches')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      // Who submitted it: a key id, or a dashboard user's id; the caller of its usage rows.
      .addColumn('caller_id', 'text', (c) => c.notNull())
      .addColumn('caller_name', 'text', (c) => c.notNull())
      // queued, running, done or canceled.
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('format', 'text', (c) => c.notNull())
      .addColumn('total_rows', 'integer', (c) => c.notNull())
      .addColumn('lookups', 'integer', (c) => c.notNull())
      // JSON array of CSV columns that were ignored.
      .addColumn('ignored_columns', 'text', (c) => c.notNull())
      // Why the remaining rows were refused (allowance used up, account disabled, …); null while none was.
      .addColumn('stopped_reason', 'text')
      // Provider requests the plan expects (plan.ts), and those made.
      .addColumn('calls_planned', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('calls_made', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('started_at', 'bigint')
      .addColumn('finished_at', 'bigint')
      // After this the batch and its results are pruned; null until it finished.
      .addColumn('expires_at', 'bigint')
      // 1 once its batch.completed event was handed to the account's webhook endpoints.
      .addColumn('notified', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('batches_account').on('batches').columns(['account_id', 'created_at']).execute();
    await db.schema
      .createIndex('batches_active')
      .on('batches')
      .columns(['created_at'])
      .where(sql.ref('state'), 'in', ['queued', 'running'])
      .execute();
    await db.schema.createIndex('batches_expiring').on('batches').columns(['expires_at']).execute();

    await db.schema
      .createTable('batch_lookups')
      .addColumn('batch_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      // The canonical query string of the lookup (flightNumber, flightDate, origin, destination).
      .addColumn('query', 'text', (c) => c.notNull())
      // The day of departures its plan reads it from (`OTP|2026-02-20`, plan.ts); null: asked alone.
      .addColumn('plan', 'text')
      // pending, running, done, refused or canceled.
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      // A worker's claim (wall-clock ms): until then no other worker takes it.
      .addColumn('lease_until', 'bigint')
      // Not claimed again before this (wall-clock ms) after the providers could not be asked.
      .addColumn('retry_at', 'bigint')
      // JSON: the answer's summary (batches/results.ts); null until resolved.
      .addColumn('result', 'text')
      .addColumn('calls', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('batch_lookups_pk', ['batch_id', 'seq'])
      .execute();
    await db.schema
      .createIndex('batch_lookups_open')
      .on('batch_lookups')
      .columns(['batch_id', 'seq'])
      .where(sql.ref('state'), 'in', ['pending', 'running'])
      .execute();

    await db.schema
      .createTable('batch_rows')
      .addColumn('batch_id', 'text', (c) => c.notNull())
      // From 1, in input order.
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('reference', 'text')
      // Null for an invalid row.
      .addColumn('lookup_seq', 'integer')
      // pending, done, refused, invalid or canceled.
      .addColumn('state', 'text', (c) => c.notNull())
      // The row's outcome once done: the flight's status (on_time, delayed, …), not_found or error.
      .addColumn('outcome', 'text')
      // The usage row of its credit; null while none was taken.
      .addColumn('usage_id', 'bigint')
      .addColumn('error', 'text')
      .addColumn('finished_at', 'bigint')
      .addPrimaryKeyConstraint('batch_rows_pk', ['batch_id', 'position'])
      .execute();
    await db.schema.createIndex('batch_rows_lookup').on('batch_rows').columns(['batch_id', 'lookup_seq']).execute();
  },
});
