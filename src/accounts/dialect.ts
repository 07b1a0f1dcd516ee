// Where accounts' statements differ between SQLite and PostgreSQL, behind one interface (as billing's
// dialect.ts): how an account's row is held by a transaction that reads, checks and writes what
// hangs on the account (its people and invitations, in users/), so that two such changes at once
// run one after the other, each seeing what the other left.
import type { Transaction } from 'kysely';
import { forDialect, type Database, type DatabaseSchema } from '../db/index.js';

export type Tx = Transaction<DatabaseSchema>;

export interface AccountsDialect {
  /**
   * The account's id, read inside `trx` so that another transaction holding it waits for this one:
   * PostgreSQL locks the row (SELECT … FOR UPDATE); SQLite's IMMEDIATE transaction (src/db/sqlite.ts)
   * already holds the only write lock. Undefined when there is no such account.
   */
  accountForUpdate(trx: Tx, id: string): Promise<{ id: string } | undefined>;
}

const account = (trx: Tx, id: string) => trx.selectFrom('accounts').select('id').where('id', '=', id);

export function accountsDialect(db: Database): AccountsDialect {
  return forDialect<AccountsDialect>(db, {
    sqlite: () => ({ accountForUpdate: (trx, id) => account(trx, id).executeTakeFirst() }),
    postgres: () => ({ accountForUpdate: (trx, id) => account(trx, id).forUpdate().executeTakeFirst() }),
  });
}
