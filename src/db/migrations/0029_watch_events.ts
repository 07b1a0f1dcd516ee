// The events of watched flights (docs/watches.md, "Events").
// - board_event_watches: one row per board event and watch of its flight it was observed for,
//   written in the board store's transaction with the event (as its fan_out_queue row is), so a
//   crash leaves neither without the other. Read by the fan-out (an event's watches' endpoints), the
//   delivery body (the receiving endpoint's watches) and GET /api/v1/watches/{id} (a watch's events,
//   newest first); pruned with its event (src/webhooks/retention.ts).
// - flight_watches_active_date: the active watches of the days around a poll pass, read once a pass.
import { sql, type Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const watchEvents: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('board_event_watches')
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addColumn('watch_id', 'text', (c) => c.notNull())
      // The event's type and created_at, and its place among its observation's events (their ids are
      // random): a watch's events are listed in order without reading board_events.
      .addColumn('event_type', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('board_event_watches_pk', ['event_id', 'watch_id'])
      .execute();
    await db.schema
      .createIndex('board_event_watches_watch')
      .on('board_event_watches')
      .columns(['watch_id', 'created_at', 'position'])
      .execute();
    await db.schema
      .createIndex('flight_watches_active_date')
      .on('flight_watches')
      .columns(['flight_date', 'flight_number'])
      .where(sql.ref('state'), '=', 'active')
      .execute();
  },
});
