// What an airport's boards showed, countable without reading each event's JSON (docs/weather.md, "Airport-wide disruption": the
// verdict's airport-wide figures). board_events gains the flight's scheduled time at the airport and
// its carrier, indexed by airport, type and time, and by carrier, type and time. Events stored before have neither and are not counted.
import type { Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const boardFigures: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('board_events').addColumn('scheduled_at', 'bigint').execute();
    await db.schema.alterTable('board_events').addColumn('carrier', 'text').execute();
    // created_at too: the hourly counts (short notice) are read from the index alone.
    await db.schema
      .createIndex('board_events_airport_scheduled')
      .on('board_events')
      .columns(['airport', 'type', 'scheduled_at', 'created_at'])
      .execute();
    await db.schema
      .createIndex('board_events_carrier_scheduled')
      .on('board_events')
      .columns(['carrier', 'type', 'scheduled_at', 'created_at'])
      .execute();
  },
});
