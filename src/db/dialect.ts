// Where SQLite and PostgreSQL need different code, each capability writes it once per dialect, in a
// file of its own (`*-sqlite.ts`, `*-postgres.ts`) behind one interface, and its factory hands both
// to `forDialect`. So the database's kind is told apart in two places only: here, and where the
// database is opened (openDatabase, from the configured target).
import type { Database } from './index.js';

export type SqliteDatabase = Extract<Database, { kind: 'sqlite' }>;
export type PostgresDatabase = Extract<Database, { kind: 'postgres' }>;

/** One way per dialect of making or doing the same thing. */
export interface PerDialect<T> {
  sqlite(db: SqliteDatabase): T;
  postgres(db: PostgresDatabase): T;
}

/** What `ways` says for this database's dialect. */
export function forDialect<T>(db: Database, ways: PerDialect<T>): T {
  return db.kind === 'sqlite' ? ways.sqlite(db) : ways.postgres(db);
}
