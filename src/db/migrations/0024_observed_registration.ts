// The aircraft's day from the kept boards (docs/weather.md, "The aircraft's day"; docs/boards.md, "The hours kept whole"): the circumstances of a
// disrupted flight follow its aircraft's earlier and later flights through the rows the boards kept
// (the poll's final rows and the airports' days read after the fact), by registration, and ask a
// provider for the aircraft's day only where those rows leave a leg out. `registration` is the row's
// registration as a plate (letters and digits, upper case: `GEZTH` for `G-EZTH`), null where the
// board named none; rows kept before this migration get theirs from their JSON.
import { sql, type Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const observedRegistration: DialectMigration = (dialect) => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('observed_flights').addColumn('registration', 'text').execute();
    if (dialect === 'sqlite') {
      await sql`UPDATE observed_flights SET registration = upper(replace(replace(replace(json_extract(row, '$.registration'), '-', ''), ' ', ''), '.', '')) WHERE json_extract(row, '$.registration') IS NOT NULL`.execute(
        db,
      );
    } else {
      await sql`UPDATE observed_flights SET registration = upper(regexp_replace(row::json->>'registration', '[^A-Za-z0-9]', '', 'g')) WHERE row::json->>'registration' IS NOT NULL`.execute(
        db,
      );
    }
    await db.schema
      .createIndex('observed_flights_registration')
      .on('observed_flights')
      .columns(['registration', 'scheduled_at'])
      .execute();
  },
});
