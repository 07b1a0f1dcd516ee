// The database's own id (migration 0007_database_identity): the same for every process that
// opened this database, different for any other database.
import type { Database } from './index.js';

/** The stored id, or null when the database has not been migrated that far (or is empty). */
export async function readDatabaseIdentity(db: Database): Promise<string | null> {
  try {
    const row = await db.kysely.selectFrom('database_identity').select('id').limit(1).executeTakeFirst();
    return row?.id ?? null;
  } catch {
    // No such table: a database that never ran the migration is not the service's.
    return null;
  }
}
