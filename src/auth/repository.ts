// The key lookup runs on every authenticated request, so it is a statement prepared once per
// process (run inside the SQLite group transaction: repository-sqlite.ts) or a named prepared
// statement on PostgreSQL, shared by the lookups of one turn of the event loop
// (repository-postgres.ts); not a Kysely query.
import { forDialect, type Database } from '../db/index.js';
import type { PrincipalRow } from './principal.js';
import { PostgresKeyLookup } from './repository-postgres.js';
import { SqliteKeyLookup } from './repository-sqlite.js';

export interface KeyLookup {
  findByHash(hash: string): Promise<PrincipalRow | undefined>;
}

export function createKeyLookup(db: Database): KeyLookup {
  return forDialect<KeyLookup>(db, {
    sqlite: (sqlite) => new SqliteKeyLookup(sqlite.sqlite, sqlite.group),
    postgres: (postgres) => new PostgresKeyLookup(postgres.pool),
  });
}
