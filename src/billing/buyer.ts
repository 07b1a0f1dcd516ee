// The buyer's details of each account (account_billing): what its invoices are addressed to and
// where they are mailed. Read when an invoice opens (and frozen on it), by the mail recipients
// (billing email, else the owner), and by the Billing page, the operator API and the CLI.
import type { Result } from '../result.js';
import type { Clock } from '../clock.js';
import type { Selectable } from 'kysely';
import type { AccountBillingTable, Database } from '../db/index.js';
import { billingDialect, type BillingDialect } from './dialect.js';
import { addressLines, applyBuyerInput, EMPTY_BUYER, type Buyer, type BuyerInput } from './parties.js';

export class BuyerDetails {
  private readonly dialect: BillingDialect;

  constructor(private readonly o: { db: Database; clock: Clock }) {
    this.dialect = billingDialect(o.db);
  }

  async get(accountId: string): Promise<Buyer> {
    return buyerOf(await this.o.db.kysely.selectFrom('account_billing').selectAll().where('account_id', '=', accountId).executeTakeFirst());
  }

  /** Where billing mail goes: the billing email, or null (then the owner). */
  async email(accountId: string): Promise<string | null> {
    const row = await this.o.db.kysely.selectFrom('account_billing').select('email').where('account_id', '=', accountId).executeTakeFirst();
    return row?.email ?? null;
  }

  /**
   * Applies `input` (absent keeps, null clears); an invalid field changes nothing. The account must
   * exist. Two changes at once apply one after the other, each checked against what the other left
   * (the row is held), so a country and a VAT id are always checked together.
   */
  async set(accountId: string, input: BuyerInput, prefix = 'billing.'): Promise<Result<Buyer>> {
    const now = this.o.clock.now();
    return this.o.db.kysely.transaction().execute(async (trx): Promise<Result<Buyer>> => {
      // A first change makes the (empty) row to hold; empty details read as none.
      await trx.insertInto('account_billing').values({ account_id: accountId, updated_at: now }).onConflict((oc) => oc.column('account_id').doNothing()).execute();
      const applied = applyBuyerInput(buyerOf(await this.dialect.buyerForUpdate(trx, accountId)), input, prefix);
      if (!applied.ok) return { kind: 'invalid', message: applied.message };
      const b = applied.value;
      await trx
        .updateTable('account_billing')
        .set({ name: b.name, address: b.address.length === 0 ? null : b.address.join('\n'), country: b.country, vat_id: b.vatId, email: b.email, updated_at: now })
        .where('account_id', '=', accountId)
        .execute();
      return { kind: 'ok', value: b };
    });
  }
}

function buyerOf(row: Selectable<AccountBillingTable> | undefined): Buyer {
  if (!row) return { ...EMPTY_BUYER, address: [] };
  return { name: row.name, address: row.address === null ? [] : addressLines(row.address), country: row.country, vatId: row.vat_id, email: row.email };
}
