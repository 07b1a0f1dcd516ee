// Board watching: webhook endpoints (the subscriptions whose airports are polled; the webhook issue
// manages them), each flight's watch on each board, and the events the engine observed.
import type { Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const boards: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('endpoints')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('airports', 'text', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('endpoints_account').on('endpoints').column('account_id').execute();

    await db.schema
      .createTable('watches')
      .addColumn('airport', 'text', (c) => c.notNull())
      .addColumn('board', 'text', (c) => c.notNull())
      .addColumn('flight_key', 'text', (c) => c.notNull())
      .addColumn('flight_id', 'text', (c) => c.notNull().unique())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('watches_pk', ['airport', 'board', 'flight_key'])
      .execute();
    await db.schema.createIndex('watches_last_seen').on('watches').column('last_seen_at').execute();

    await db.schema
      .createTable('board_events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('airport', 'text', (c) => c.notNull())
      .addColumn('board', 'text', (c) => c.notNull())
      .addColumn('flight_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('board_events_created').on('board_events').columns(['created_at', 'id']).execute();
    await db.schema.createIndex('board_events_flight').on('board_events').column('flight_id').execute();
  },
});
