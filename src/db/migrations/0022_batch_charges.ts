// The charge of a batch row found again by its query (docs/batches.md, "Credits").
// A batch row's usage row carries the batch and the row in its query (batches/work.ts `marker`); a
// lookup taken again (its worker died, or its first attempt failed) looks its rows' credits up by that
// query before taking any (metering/usage.ts `chargeOf`). Without an index of its own that read
// walked every usage row of the account since the batch was created (PostgreSQL: the whole table,
// once the account was a large part of it), for each row of each retried lookup.
// usage_log_batch_row holds the batches' usage rows only (partial), so the status endpoint's usage
// rows, written on every metered request, cost nothing more to write. The endpoint is a literal:
// SQLite uses a partial index only for a statement whose WHERE says the same literal. `at` is in the
// key because without it SQLite, without statistics (the service never analyzes it), still preferred
// usage_log_account_at for the statement's `at >= ?`.
import { sql, type Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

/** The endpoint batch rows' usage rows name (batches/work.ts BATCH_ENDPOINT). */
const BATCH_USAGE_ENDPOINT = 'POST /api/v1/batches';

export const batchCharges: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createIndex('usage_log_batch_row')
      .on('usage_log')
      .columns(['account_id', 'query', 'at'])
      .where(sql.ref('endpoint'), '=', BATCH_USAGE_ENDPOINT)
      .execute();
  },
});
