// Billing's statements over the tables customers and the operator edit, beside the invoice tables'
// store (store.ts): the plan catalogue (plans.ts decides what a plan may be), the buyers' details
// (buyer.ts decides what is kept and when an address counts as confirmed) and the billing email's
// confirmation links (billing-email.ts).
import type { Kysely, Selectable } from 'kysely';
import type { AccountBillingTable, Database, DatabaseSchema, PlansTable } from '../db/index.js';
import { billingDialect, type BillingDialect } from './dialect.js';

type Buyer = Selectable<AccountBillingTable>;
/** The columns a change of the details writes. */
export type BuyerColumns = Pick<
  AccountBillingTable,
  'name' | 'address' | 'country' | 'vat_id' | 'email' | 'email_confirmed_at' | 'updated_at'
>;

export class DetailsStore {
  private readonly dialect: BillingDialect;

  constructor(private readonly db: Database) {
    this.dialect = billingDialect(db);
  }

  private get q(): Kysely<DatabaseSchema> {
    return this.db.kysely;
  }

  // The plan catalogue

  /** False when a plan has this id already. */
  async insertPlan(row: PlansTable): Promise<boolean> {
    const inserted = await this.q
      .insertInto('plans')
      .values(row)
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  plan(id: string): Promise<PlansTable | undefined> {
    return this.q.selectFrom('plans').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Oldest first; `selfService`: only those offered to customers in that currency, cheapest first. */
  plans(selfService?: { currency: string }): Promise<PlansTable[]> {
    const query = this.q.selectFrom('plans').selectAll();
    if (!selfService) return query.orderBy('created_at').orderBy('id').execute();
    return query
      .where('self_service', '=', 1)
      .where('currency', '=', selfService.currency)
      .orderBy('monthly_fee_minor')
      .orderBy('id')
      .execute();
  }

  /** False when there is no such plan. */
  async setSelfService(id: string, selfService: boolean, at: number): Promise<boolean> {
    const updated = await this.q
      .updateTable('plans')
      .set({ self_service: selfService ? 1 : 0, updated_at: at })
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1;
  }

  // The buyers' details

  buyer(accountId: string): Promise<Buyer | undefined> {
    return this.q.selectFrom('account_billing').selectAll().where('account_id', '=', accountId).executeTakeFirst();
  }

  /** The billing email once confirmed, else null. */
  async confirmedEmail(accountId: string): Promise<string | null> {
    const row = await this.q
      .selectFrom('account_billing')
      .select('email')
      .where('account_id', '=', accountId)
      .where('email_confirmed_at', 'is not', null)
      .executeTakeFirst();
    return row?.email ?? null;
  }

  /**
   * Changes an account's details in one transaction: `decide` is handed the row as it is, held (a
   * first change makes the empty row to hold), and returns the columns to write or a refusal.
   */
  changeBuyer<R>(
    accountId: string,
    at: number,
    decide: (row: Buyer | undefined) => { write: BuyerColumns; answer: R } | { refuse: R },
  ): Promise<R> {
    return this.q.transaction().execute(async (trx) => {
      await trx
        .insertInto('account_billing')
        .values({ account_id: accountId, updated_at: at })
        .onConflict((oc) => oc.column('account_id').doNothing())
        .execute();
      const decided = decide(await this.dialect.buyerForUpdate(trx, accountId));
      if ('refuse' in decided) return decided.refuse;
      await trx.updateTable('account_billing').set(decided.write).where('account_id', '=', accountId).execute();
      return decided.answer;
    });
  }

  /** Marks `email` confirmed while it is still the account's billing email; whether it was. */
  async confirmEmail(accountId: string, email: string, at: number): Promise<boolean> {
    const done = await this.q
      .updateTable('account_billing')
      .set({ email_confirmed_at: at })
      .where('account_id', '=', accountId)
      .where('email', '=', email)
      .executeTakeFirst();
    return Number(done.numUpdatedRows) === 1;
  }

  // The billing email's confirmation links (only the token's hash is stored)

  link(hash: string): Promise<Selectable<DatabaseSchema['billing_email_confirmations']> | undefined> {
    return this.q.selectFrom('billing_email_confirmations').selectAll().where('id', '=', hash).executeTakeFirst();
  }

  /** Uses a link once; false when it was used already. */
  async useLink(hash: string, at: number): Promise<boolean> {
    const used = await this.q
      .updateTable('billing_email_confirmations')
      .set({ used_at: at })
      .where('id', '=', hash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(used.numUpdatedRows) === 1;
  }

  /** Stores a new link, dropping the expired ones. */
  async addLink(link: {
    hash: string;
    accountId: string;
    email: string;
    at: number;
    expiresAt: number;
  }): Promise<void> {
    await this.q.deleteFrom('billing_email_confirmations').where('expires_at', '<', link.at).execute();
    await this.q
      .insertInto('billing_email_confirmations')
      .values({
        id: link.hash,
        account_id: link.accountId,
        email: link.email,
        created_at: link.at,
        expires_at: link.expiresAt,
        used_at: null,
      })
      .execute();
  }
}
