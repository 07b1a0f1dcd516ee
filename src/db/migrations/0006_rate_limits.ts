// Fixed-window counters shared by every service process (the hardening branch): one row per limited
// thing (`bucket`, e.g. `webhook-test:endpoint:wh_…`), holding the start of its current window and
// how much of the window's allowance is used. Updated by one guarded upsert, never read then written.
import type { Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const rateLimitWindows: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('rate_limit_windows')
      .addColumn('bucket', 'text', (c) => c.primaryKey())
      .addColumn('window_start', 'bigint', (c) => c.notNull())
      .addColumn('used', 'integer', (c) => c.notNull())
      .execute();
  },
});
