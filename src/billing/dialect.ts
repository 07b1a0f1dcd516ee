// Where billing's statements differ between SQLite and PostgreSQL, behind one interface (as
// metering's stores are): how drafts are taken for opening, and how an invoice (while credited) or a
// buyer's details (while changed) are held.
import { forDialect, type Database } from '../db/index.js';
import type { Kysely, Selectable } from 'kysely';
import type { AccountBillingTable, DatabaseSchema, InvoicesTable } from '../db/index.js';

/** A transaction (or the store's handle on one): these statements hold rows until it ends. */
type Tx = Kysely<DatabaseSchema>;

export interface BillingDialect {
  /**
   * Up to `limit` drafts, oldest first, taken inside `trx` (which goes on to number and open them),
   * so that another process opening drafts at once takes other rows.
   */
  draftsToOpen(trx: Tx, limit: number): Promise<{ id: string; account_id: string; total_minor: number }[]>;
  /**
   * One invoice, read inside `trx` so that another transaction changing it (a second credit note at
   * once) waits for this one: PostgreSQL locks the row; SQLite's IMMEDIATE transaction already holds
   * the only write lock.
   */
  invoiceForUpdate(trx: Tx, id: string): Promise<Selectable<InvoicesTable> | undefined>;
  /** An account's billing details, held in the same way while they are changed. */
  buyerForUpdate(trx: Tx, accountId: string): Promise<Selectable<AccountBillingTable> | undefined>;
}

const drafts = (trx: Tx, limit: number) =>
  trx
    .selectFrom('invoices')
    .select(['id', 'account_id', 'total_minor'])
    .where('state', '=', 'draft')
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit);

const invoice = (trx: Tx, id: string) => trx.selectFrom('invoices').selectAll().where('id', '=', id);
const buyer = (trx: Tx, accountId: string) =>
  trx.selectFrom('account_billing').selectAll().where('account_id', '=', accountId);

/**
 * PostgreSQL: the rows are locked and rows another transaction holds are skipped; both processes
 * draw numbers from one counter row. SQLite: the transaction began IMMEDIATE (src/db/sqlite.ts), so
 * it already holds the only write lock: a second process waits for its commit, then takes what is left.
 */
export function billingDialect(db: Database): BillingDialect {
  return forDialect<BillingDialect>(db, {
    sqlite: () => ({
      draftsToOpen: (trx, limit) => drafts(trx, limit).execute(),
      invoiceForUpdate: (trx, id) => invoice(trx, id).executeTakeFirst(),
      buyerForUpdate: (trx, accountId) => buyer(trx, accountId).executeTakeFirst(),
    }),
    postgres: () => ({
      draftsToOpen: (trx, limit) => drafts(trx, limit).forUpdate().skipLocked().execute(),
      invoiceForUpdate: (trx, id) => invoice(trx, id).forUpdate().executeTakeFirst(),
      buyerForUpdate: (trx, accountId) => buyer(trx, accountId).forUpdate().executeTakeFirst(),
    }),
  });
}
