// The fan-out's to-do list moves out of board_events into its own small table (docs/webhooks.md,
// "Fan-out"). An event waiting for its deliveries has a row in fan_out_queue, written in the board's
// transaction with the event; the fan-out chunk that writes the event's last deliveries deletes it.
// Before, the chunk set board_events.fanned_out = 1: on PostgreSQL that update copies the whole event
// (its JSON data included) and, the column being in a partial index, adds an entry to each of the
// table's five indexes: the largest single cost of a first board pass (371 ms of PostgreSQL for the
// 20,298 events of 52 airports, 18 MB of WAL). A delete from the queue writes neither.
// Events still waiting when this migration runs are queued; the flag and its index go.
import { sql, type Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const fanOutQueue: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    // Keyed in the order the fan-out takes events: one index to write per queued event.
    await db.schema
      .createTable('fan_out_queue')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('fan_out_queue_pk', ['created_at', 'event_id'])
      .execute();
    await sql`INSERT INTO fan_out_queue (event_id, created_at) SELECT id, created_at FROM board_events WHERE fanned_out = 0`.execute(
      db,
    );
    await db.schema.dropIndex('board_events_fan_out').execute();
    await db.schema.alterTable('board_events').dropColumn('fanned_out').execute();
  },
});
