// Airports the operator adds to the catalogue (docs/airports.md, "Adding airports"): beyond the
// specification's 52, which stay in src/airports/catalogue.json. The facts come from the reference
// airports; `city` and `name` hold the operator's wording where it differs from the reference.
import type { Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const airportAdditions: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('airport_additions')
      .addColumn('iata', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text')
      .addColumn('city', 'text')
      .addColumn('added_at', 'bigint', (c) => c.notNull())
      .execute();
  },
});
