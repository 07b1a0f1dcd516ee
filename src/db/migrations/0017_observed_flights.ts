// The flights the board poller saw with their final times (docs/batches.md, "Provider calls", step 3): one row
// per flight per board (its departure on the origin's departures board, its arrival on the
// destination's arrivals board), kept once the board shows it final (departed, landed, cancelled,
// diverted), so that a batch row about a flight both ends of which were watched is answered without
// asking a provider. `row` is the board row as last read (JSON, the fields a record needs). Pruned
// by `seen_at` after FLIGHTSTATUS_OBSERVED_RETENTION_DAYS.
import type { Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const observedFlights: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('observed_flights')
      .addColumn('board', 'text', (c) => c.notNull())
      .addColumn('airport', 'text', (c) => c.notNull())
      // The designator as a lookup normalises it (`W63101`): the board's IATA number, else its own.
      .addColumn('flight', 'text', (c) => c.notNull())
      // The flight's scheduled time at this board's airport.
      .addColumn('scheduled_at', 'bigint', (c) => c.notNull())
      .addColumn('row', 'text', (c) => c.notNull())
      .addColumn('seen_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('observed_flights_pk', ['board', 'airport', 'flight', 'scheduled_at'])
      .execute();
    await db.schema.createIndex('observed_flights_seen').on('observed_flights').column('seen_at').execute();
  },
});
