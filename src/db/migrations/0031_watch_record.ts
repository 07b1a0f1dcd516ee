// The verdict a watch ended with (docs/watches.md, "Reading and stopping"):
// - flight_watches.record: the lookup's answer (JSON, the `data` of GET /api/v1/flights/status) the
//   settle job ended the watch on, the same one its `flight.settled` carried, so that the watch shows
//   its flight once it has ended, whatever the flight's outcome (a lookup stores disrupted flights
//   only). Null while it is active, and for a watch stopped before it settled.
import type { Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const watchRecord: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('flight_watches').addColumn('record', 'text').execute();
  },
});
