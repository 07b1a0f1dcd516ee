// What the batches' SQL does differently on each database (store.ts and store-lookups.ts hold the rest, the same on both):
// how a worker's answers are written. The claim's lock is the leased claim's own (leases/).
import type { CompiledQuery, Kysely } from 'kysely';
import { forDialect, type Database, type DatabaseSchema } from '../db/index.js';
import type { LookupWrite } from './store-shapes.js';
import { lookupWritesPostgres } from './store-postgres.js';
import { lookupWritesSqlite } from './store-sqlite.js';

export interface BatchesDialect {
  /** The statements that write lookups' answers and their rows (store-lookups.ts `writeMany`). */
  lookupWrites(k: Kysely<DatabaseSchema>, batchId: string, writes: LookupWrite[]): CompiledQuery[];
}

export function batchesDialect(db: Database): BatchesDialect {
  return forDialect<BatchesDialect>(db, {
    sqlite: () => ({ lookupWrites: lookupWritesSqlite }),
    postgres: () => ({ lookupWrites: lookupWritesPostgres }),
  });
}
