// Several processes on one database (docs/deploy.md):
// - job_runs: one row per periodic job and slot (its due time). The process that inserts the row runs
//   that slot; every other process finds it taken and skips it, so a board poll happens once per
//   interval however many workers run. finished_at stays null if the holder died mid-run; the next
//   slot is anyone's, so another process takes over within one interval.
// - board_events.change_key: the change an event records (flight, type, and the watch it was computed
//   from). Unique per board, so two polls that raced on the same board state store the change once.
// - watches.basis: the last_seen_at a watch's version was computed from; the board store's upsert
//   updates a row only where its last_seen_at equals the incoming basis.
// - PostgreSQL: usage_log pages keep 15 % free, so settling a row's status (every metered request
//   updates its row once) stays on its page as a HOT update instead of adding an entry to each of the
//   table's indexes. New pages only; SQLite has no such setting.
import { sql, type Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const scaleOut: DialectMigration = (dialect) => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('job_runs')
      .addColumn('job', 'text', (c) => c.notNull())
      .addColumn('slot', 'bigint', (c) => c.notNull())
      .addColumn('holder', 'text', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('finished_at', 'bigint')
      .addColumn('ok', 'integer')
      .addPrimaryKeyConstraint('job_runs_pk', ['job', 'slot'])
      .execute();
    await db.schema.alterTable('board_events').addColumn('change_key', 'text').execute();
    await db.schema.alterTable('watches').addColumn('basis', 'bigint').execute();
    await db.schema
      .createIndex('board_events_change')
      .on('board_events')
      .columns(['airport', 'board', 'change_key'])
      .unique()
      .execute();
    if (dialect === 'postgres') await sql`ALTER TABLE usage_log SET (fillfactor = 85)`.execute(db);
  },
});
