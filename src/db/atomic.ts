// Several statements as one unit on either dialect: all or nothing. How each dialect does it, and
// why SQLite's is a savepoint in the group transaction rather than a Kysely transaction, is in
// sqlite.ts and postgres.ts.
import type { CompiledQuery } from 'kysely';
import { forDialect } from './dialect.js';
import type { Database } from './index.js';
import { postgresAtomically, postgresFirstWithoutRow } from './postgres.js';
import { sqliteAtomically, sqliteFirstWithoutRow } from './sqlite.js';

/** Runs the statements in order, all or nothing; resolves with the rows each one changed. */
export function atomically(db: Database, queries: CompiledQuery[]): Promise<number[]> {
  return forDialect(db, {
    sqlite: (sqlite) => sqliteAtomically(sqlite, queries),
    postgres: (postgres) => postgresAtomically(postgres, queries),
  });
}

/**
 * Runs `text` (a statement returning rows, `?` placeholders) once per list of `runs`, in order, all
 * or nothing, until one returns no row: resolves with that run's index, every run undone, or with
 * null when each returned a row and all committed.
 */
export function firstWithoutRow(db: Database, text: string, runs: readonly unknown[][]): Promise<number | null> {
  return forDialect(db, {
    sqlite: (sqlite) => sqliteFirstWithoutRow(sqlite, text, runs),
    postgres: (postgres) => postgresFirstWithoutRow(postgres, text, runs),
  });
}
