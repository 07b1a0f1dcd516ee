// Airport evidence for any past window (docs/boards.md, "A past day's boards"): an airport's boards of one local day,
// read whole from the provider after the fact when the poller did not watch them. Their rows are kept
// the way the poll keeps its final rows (observed_flights, seen_at = when they were read), so every
// later lookup, batch row and evidence PDF of that airport-day shares one read; airport_days says
// which days were read whole, by which provider, and is pruned with them.
// observed_flights_airport_at: the airport's rows of a window, both boards (the circumstances'
// figures); the primary key leads with the board and the flight.
import type { Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const airportDays: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('airport_days')
      .addColumn('airport', 'text', (c) => c.notNull())
      .addColumn('date', 'text', (c) => c.notNull())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('rows', 'integer', (c) => c.notNull())
      .addColumn('read_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('airport_days_pk', ['airport', 'date'])
      .execute();
    await db.schema.createIndex('airport_days_read').on('airport_days').column('read_at').execute();
    await db.schema
      .createIndex('observed_flights_airport_at')
      .on('observed_flights')
      .columns(['airport', 'scheduled_at'])
      .execute();
  },
});
