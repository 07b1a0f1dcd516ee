// SQL for accounts and keys (cold paths, through Kysely on either dialect).
import type { CompiledQuery, Selectable } from 'kysely';
import type { AccountsTable, ApiKeysTable, BillingStatus, Database, Flag } from '../db/index.js';

export type AccountRow = Selectable<AccountsTable>;
export type KeyRow = Selectable<ApiKeysTable>;

/** A boolean as the rows store it. */
export const flag = (value: boolean): Flag => (value ? 1 : 0);

export class AccountsRepository {
  constructor(private readonly db: Database) {}

  /** False when the slug is taken (the unique index decides, not a racy pre-check). */
  async insertAccount(row: AccountRow): Promise<boolean> {
    const result = await this.db.kysely
      .insertInto('accounts')
      .values(row)
      .onConflict((oc) => oc.column('slug').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  /** The plain insert of an account, to run in one unit with rows that belong to it. */
  insertAccountQuery(row: AccountRow): CompiledQuery {
    return this.db.kysely.insertInto('accounts').values(row).compile();
  }

  async findAccount(idOrSlug: string): Promise<AccountRow | undefined> {
    const column = idOrSlug.startsWith('acct_') ? 'id' : 'slug';
    return this.db.kysely.selectFrom('accounts').selectAll().where(column, '=', idOrSlug).executeTakeFirst();
  }

  async listAccounts(): Promise<AccountRow[]> {
    return this.db.kysely.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').execute();
  }

  async updateAccount(id: string, changes: Partial<AccountRow>): Promise<void> {
    await this.db.kysely.updateTable('accounts').set(changes).where('id', '=', id).execute();
  }

  /**
   * `changes`, only while the subscription is as `read` saw it: active, neither unlimited nor
   * disabled, on the same window anchor, plan, pending change and cancellation. Two upgrades at once
   * both read the old plan; the second statement finds the row changed and changes nothing (on
   * PostgreSQL it waits for the first's commit and checks the row again).
   */
  upgradeQuery(read: AccountRow, changes: Partial<AccountRow>): CompiledQuery {
    const columns = ['plan_id', 'plan_included', 'next_plan_id', 'next_plan_from', 'cancel_at'] as const;
    let query = this.db.kysely
      .updateTable('accounts')
      .set(changes)
      .where('id', '=', read.id)
      .where('billing_status', '=', 'active')
      .where('unlimited', '=', 0)
      .where('disabled', '=', 0)
      .where('window_anchor', '=', read.window_anchor);
    for (const column of columns) {
      const value = read[column];
      query = value === null ? query.where(column, 'is', null) : query.where(column, '=', value);
    }
    return query.compile();
  }

  billingStatusQuery(id: string, from: BillingStatus, to: BillingStatus, at: number): CompiledQuery {
    return this.db.kysely
      .updateTable('accounts')
      .set({ billing_status: to, updated_at: at })
      .where('id', '=', id)
      .where('billing_status', '=', from)
      .compile();
  }

  namesQuery(ids: string[]): CompiledQuery<{ id: string; name: string }> {
    return this.db.kysely
      .selectFrom('accounts')
      .select(['id', 'name'])
      .where('id', 'in', ids.length === 0 ? [''] : ids)
      .compile();
  }

  async dueCancellations(at: number): Promise<{ id: string; billing_status: BillingStatus }[]> {
    return this.db.kysely
      .selectFrom('accounts')
      .select(['id', 'billing_status'])
      .where('cancel_at', '<=', at)
      .orderBy('id')
      .execute();
  }

  cancellationQuery(id: string, from: BillingStatus, at: number): CompiledQuery {
    return this.db.kysely
      .updateTable('accounts')
      .set({ billing_status: 'canceled', cancel_at: null, updated_at: at })
      .where('id', '=', id)
      .where('billing_status', '=', from)
      .where('cancel_at', '<=', at)
      .compile();
  }

  async keysOf(accountId: string): Promise<KeyRow[]> {
    return this.db.kysely
      .selectFrom('api_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  async insertKey(row: KeyRow): Promise<void> {
    await this.db.kysely.insertInto('api_keys').values(row).execute();
  }

  /** `accountId` limits the change to that account's keys (the dashboard acts for one account). */
  async updateKey(id: string, changes: Partial<KeyRow>, accountId?: string): Promise<KeyRow | undefined> {
    let query = this.db.kysely.updateTable('api_keys').set(changes).where('id', '=', id);
    if (accountId !== undefined) query = query.where('account_id', '=', accountId);
    return query.returningAll().executeTakeFirst();
  }

  async deleteKey(id: string, accountId: string): Promise<boolean> {
    const result = await this.db.kysely
      .deleteFrom('api_keys')
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }
}
