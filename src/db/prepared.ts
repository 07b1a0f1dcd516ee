// A compiled query run as a prepared statement on either dialect, for statements built with Kysely
// whose text repeats while their values change (the leased claim and settle, leases/): SQLite
// prepares each text once per connection, PostgreSQL plans it once per connection (a named
// statement). Kysely's own execution prepares and plans every time. How each does it: sqlite.ts and
// postgres.ts.
import type { CompiledQuery } from 'kysely';
import { forDialect } from './dialect.js';
import type { Database } from './index.js';
import { postgresPrepared } from './postgres.js';
import { sqlitePrepared } from './sqlite.js';

/** Runs the query prepared; its rows (those it returns, RETURNING included) and how many rows it changed. */
export function prepared<Row>(db: Database, query: CompiledQuery): Promise<{ rows: Row[]; changed: number }> {
  return forDialect(db, {
    sqlite: async (sqlite) => sqlitePrepared<Row>(sqlite, query),
    postgres: (postgres) => postgresPrepared<Row>(postgres, query),
  });
}
