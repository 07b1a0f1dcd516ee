// The hours a watched airport's boards were kept whole (docs/boards.md, "The hours kept whole"): the poll keeps a row
// that leaves its window unfinished (a flight more than 3 hours late) with its last estimate, so every
// flight its boards listed in those scheduled hours is on a kept row, final or not. A span says so:
// from `from_at` to `to_at` (scheduled time, both boards), every row the airport's two boards listed
// was kept. Where the aircraft's rows run out inside such a span, no other leg flew there then (as a
// day read whole says, airport_days). Passes that follow each other extend one span; a gap in the
// polling starts another. Trimmed with the rows when they are pruned.
import type { Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const keptHours: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('kept_hours')
      .addColumn('airport', 'text', (c) => c.notNull())
      .addColumn('from_at', 'bigint', (c) => c.notNull())
      .addColumn('to_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('kept_hours_airport_to').on('kept_hours').columns(['airport', 'to_at']).execute();
  },
});
