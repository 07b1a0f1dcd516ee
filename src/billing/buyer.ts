// The buyer's details of each account (account_billing): what its invoices are addressed to and
// where they are mailed. Read when an invoice opens (and frozen on it), by the mail recipients
// (billing email, else the owner), and by the Billing page, the operator API and the CLI.
import type { Result } from '../result.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/index.js';
import { addressLines, applyBuyerInput, EMPTY_BUYER, type Buyer, type BuyerInput } from './parties.js';

export class BuyerDetails {
  constructor(private readonly o: { db: Database; clock: Clock }) {}

  async get(accountId: string): Promise<Buyer> {
    const row = await this.o.db.kysely.selectFrom('account_billing').selectAll().where('account_id', '=', accountId).executeTakeFirst();
    if (!row) return { ...EMPTY_BUYER, address: [] };
    return { name: row.name, address: row.address === null ? [] : addressLines(row.address), country: row.country, vatId: row.vat_id, email: row.email };
  }

  /** Where billing mail goes: the billing email, or null (then the owner). */
  async email(accountId: string): Promise<string | null> {
    const row = await this.o.db.kysely.selectFrom('account_billing').select('email').where('account_id', '=', accountId).executeTakeFirst();
    return row?.email ?? null;
  }

  /** Applies `input` (absent keeps, null clears); an invalid field changes nothing. The account must exist. */
  async set(accountId: string, input: BuyerInput, prefix = 'billing.'): Promise<Result<Buyer>> {
    const applied = applyBuyerInput(await this.get(accountId), input, prefix);
    if (!applied.ok) return { kind: 'invalid', message: applied.message };
    const b = applied.value;
    const values = { name: b.name, address: b.address.length === 0 ? null : b.address.join('\n'), country: b.country, vat_id: b.vatId, email: b.email, updated_at: this.o.clock.now() };
    await this.o.db.kysely
      .insertInto('account_billing')
      .values({ account_id: accountId, ...values })
      .onConflict((oc) => oc.column('account_id').doUpdateSet(values))
      .execute();
    return { kind: 'ok', value: b };
  }
}
