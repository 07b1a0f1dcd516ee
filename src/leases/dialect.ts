// What a leased claim does differently on each database: PostgreSQL skips rows another process is
// claiming at this moment (FOR UPDATE SKIP LOCKED) instead of waiting for them; SQLite has one writer,
// so the claim's one statement already runs alone.
import { sql, type RawBuilder } from 'kysely';
import { forDialect, type Database } from '../db/index.js';

export function claimLock(db: Database): RawBuilder<unknown> {
  return forDialect(db, { sqlite: () => sql``, postgres: () => sql`FOR UPDATE SKIP LOCKED` });
}
