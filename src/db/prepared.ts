// A compiled query run as a prepared statement on either dialect, for statements built with Kysely
// whose text repeats while their values change (the leased claim and settle, leases/): SQLite
// prepares each text once per connection, PostgreSQL plans it once per connection (a named
// statement). Kysely's own execution prepares and plans every time. How each does it: sqlite.ts and
// postgres.ts. A claim of queued work (`plan: 'each'`) is planned for its values each time on
// PostgreSQL instead: a queue table swings from empty to thousands of rows, and a plan a connection
// kept from an empty table (a sequential scan under a semi-join, 1 row estimated) held PostgreSQL's
// delivery claims at 90 ms each while 14,000 deliveries waited (docs/performance.md).
import type { CompiledQuery } from 'kysely';
import { forDialect } from './dialect.js';
import type { Database } from './index.js';
import { postgresPrepared } from './postgres.js';
import { sqlitePrepared } from './sqlite.js';

export interface PreparedOptions {
  /**
   * 'once' (the default): PostgreSQL plans the text once per connection. 'each': planned for its
   * values at every run (an unnamed statement), for a statement whose best plan moves with the size
   * of what it reads. SQLite prepares the text once either way (its planner runs at prepare).
   */
  plan?: 'once' | 'each';
}

/** Runs the query prepared; its rows (those it returns, RETURNING included) and how many rows it changed. */
export function prepared<Row>(
  db: Database,
  query: CompiledQuery,
  options: PreparedOptions = {},
): Promise<{ rows: Row[]; changed: number }> {
  return forDialect(db, {
    sqlite: async (sqlite) => sqlitePrepared<Row>(sqlite, query),
    postgres: (postgres) => postgresPrepared<Row>(postgres, query, options.plan ?? 'once'),
  });
}
