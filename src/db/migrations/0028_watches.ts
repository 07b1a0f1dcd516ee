// Watches (docs/watches.md): an account's standing interest in one flight, bound to one or more of its
// webhook endpoints. Named flight_watches, not watches: that table is the board poller's memory of
// a flight on a board (0003), which the code has called a watch since the poller was written.
// - flight_watches: one per watched flight and account; `watch_key` is what makes two requests the
//   same watch (the flight as asked, the reference and the endpoints, canonical), unique among the
//   account's active watches, so a watch asked for again is found instead of charged twice.
// - flight_watch_endpoints: the endpoints a watch sends to; a deleted endpoint leaves its watches.
import { sql, type Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const watches: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('flight_watches')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      // The designator as the lookup normalises it (W6 3101 → W63101), and the date as asked.
      .addColumn('flight_number', 'text', (c) => c.notNull())
      .addColumn('flight_date', 'text', (c) => c.notNull())
      // utc or local: what flight_date is (the status endpoint's dateBasis).
      .addColumn('date_basis', 'text', (c) => c.notNull())
      .addColumn('origin', 'text')
      .addColumn('destination', 'text')
      .addColumn('reference', 'text')
      .addColumn('watch_key', 'text', (c) => c.notNull())
      // active, stopped (by the customer) or ended (by the service, with ended_reason).
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('ended_reason', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('ended_at', 'bigint')
      .execute();
    await db.schema
      .createIndex('flight_watches_account')
      .on('flight_watches')
      .columns(['account_id', 'created_at', 'id'])
      .execute();
    await db.schema
      .createIndex('flight_watches_state')
      .on('flight_watches')
      .columns(['account_id', 'state', 'created_at'])
      .execute();
    await db.schema
      .createIndex('flight_watches_date')
      .on('flight_watches')
      .columns(['account_id', 'flight_date'])
      .execute();
    await db.schema
      .createIndex('flight_watches_reference')
      .on('flight_watches')
      .columns(['account_id', 'reference'])
      .execute();
    await db.schema
      .createIndex('flight_watches_active_key')
      .on('flight_watches')
      .columns(['account_id', 'watch_key'])
      .unique()
      .where(sql.ref('state'), '=', 'active')
      .execute();

    await db.schema
      .createTable('flight_watch_endpoints')
      .addColumn('watch_id', 'text', (c) => c.notNull().references('flight_watches.id').onDelete('cascade'))
      .addColumn('endpoint_id', 'text', (c) => c.notNull().references('endpoints.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('flight_watch_endpoints_pk', ['watch_id', 'endpoint_id'])
      .execute();
    await db.schema
      .createIndex('flight_watch_endpoints_endpoint')
      .on('flight_watch_endpoints')
      .column('endpoint_id')
      .execute();
  },
});
