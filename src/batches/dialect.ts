// What the batches' SQL does differently on each database (store.ts holds the rest, the same on both):
// the claim's lock and how a worker's answers are written.
import { sql, type CompiledQuery, type Kysely, type RawBuilder } from 'kysely';
import { forDialect, type Database, type DatabaseSchema } from '../db/index.js';
import type { LookupWrite } from './store-shapes.js';
import { lookupWritesPostgres } from './store-postgres.js';
import { lookupWritesSqlite } from './store-sqlite.js';

export interface BatchesDialect {
  /** Ends the claim's inner SELECT: on PostgreSQL lookups another worker is claiming at this moment are skipped, not waited for. */
  claimLock: RawBuilder<unknown>;
  /** The statements that write lookups' answers and their rows (store.ts `writeMany`). */
  lookupWrites(k: Kysely<DatabaseSchema>, batchId: string, writes: LookupWrite[]): CompiledQuery[];
}

export function batchesDialect(db: Database): BatchesDialect {
  return forDialect<BatchesDialect>(db, {
    sqlite: () => ({ claimLock: sql``, lookupWrites: lookupWritesSqlite }),
    postgres: () => ({ claimLock: sql`FOR UPDATE SKIP LOCKED`, lookupWrites: lookupWritesPostgres }),
  });
}
