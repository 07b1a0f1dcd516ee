// The replay store of the flight lookup: settled disruptions, one row per flight number and date.
import type { Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const flightRecords: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('flight_records')
      .addColumn('flight_number', 'text', (c) => c.notNull())
      .addColumn('flight_date', 'text', (c) => c.notNull())
      .addColumn('origin_iata', 'text')
      .addColumn('destination_iata', 'text')
      .addColumn('unfiltered', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('departed_at', 'bigint', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('flight_records_pk', ['flight_number', 'flight_date'])
      .execute();
  },
});
