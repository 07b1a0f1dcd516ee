// Where billing's statements differ between SQLite and PostgreSQL, behind one interface (as
// metering's stores are): the one difference is how drafts are taken for opening.
import { forDialect, type Database } from '../db/index.js';
import type { Tx } from './events.js';

export interface BillingDialect {
  /**
   * Up to `limit` drafts, oldest first, taken inside `trx` (which goes on to number and open them),
   * so that another process opening drafts at once takes other rows.
   */
  draftsToOpen(trx: Tx, limit: number): Promise<{ id: string; account_id: string; total_minor: number }[]>;
}

const drafts = (trx: Tx, limit: number) =>
  trx.selectFrom('invoices').select(['id', 'account_id', 'total_minor']).where('state', '=', 'draft').orderBy('created_at').orderBy('id').limit(limit);

/**
 * PostgreSQL: the rows are locked and rows another transaction holds are skipped; both processes
 * draw numbers from one counter row. SQLite: the transaction began IMMEDIATE (src/db/sqlite.ts), so
 * it already holds the only write lock: a second process waits for its commit, then takes what is left.
 */
export function billingDialect(db: Database): BillingDialect {
  return forDialect<BillingDialect>(db, {
    sqlite: () => ({ draftsToOpen: (trx, limit) => drafts(trx, limit).execute() }),
    postgres: () => ({ draftsToOpen: (trx, limit) => drafts(trx, limit).forUpdate().skipLocked().execute() }),
  });
}
