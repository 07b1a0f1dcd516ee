// The buyer's details of each account (account_billing): what its invoices are addressed to and
// where they are mailed. Read when an invoice opens (and frozen on it), by the mail recipients
// (the billing email once confirmed, else the owner), and by the Billing page, the operator API and
// the CLI. The billing email's confirmation link is billing-email.ts.
import type { Result } from '../result.js';
import type { Clock } from '../clock.js';
import type { Selectable } from 'kysely';
import type { AccountBillingTable, Database } from '../db/index.js';
import { DetailsStore } from './details-store.js';
import { addressLines, applyBuyerInput, EMPTY_BUYER, type Buyer, type BuyerInput } from './parties.js';

/** The details with whether the billing email is confirmed (false when there is none). */
export type BuyerState = Buyer & { emailConfirmed: boolean };

export class BuyerDetails {
  private readonly store: DetailsStore;

  constructor(private readonly o: { db: Database; clock: Clock }) {
    this.store = new DetailsStore(o.db);
  }

  async get(accountId: string): Promise<BuyerState> {
    return buyerOf(await this.store.buyer(accountId));
  }

  /** Where billing mail goes: the billing email once confirmed, or null (then the owner). */
  email(accountId: string): Promise<string | null> {
    return this.store.confirmedEmail(accountId);
  }

  /**
   * Applies `input` (absent keeps, null clears); an invalid field changes nothing. The account must
   * exist. Two changes at once apply one after the other, each checked against what the other left
   * (the row is held), so a country and a VAT id are always checked together. A billing email given
   * is confirmed when `confirmsEmail` (the operator gives it), else a new one is not until its link
   * is opened; an unchanged one keeps its state.
   */
  async set(
    accountId: string,
    input: BuyerInput,
    prefix: string,
    how: { confirmsEmail: boolean },
  ): Promise<Result<BuyerState>> {
    const now = this.o.clock.now();
    // A first change makes the (empty) row to hold; empty details read as none.
    return this.store.changeBuyer<Result<BuyerState>>(accountId, now, (row) => {
      const applied = applyBuyerInput(buyerOf(row), input, prefix);
      if (!applied.ok) return { refuse: { kind: 'invalid', message: applied.message } };
      const b = applied.value;
      const kept = b.email !== null && b.email === row?.email ? (row.email_confirmed_at ?? null) : null;
      // The operator vouches for an address it gives, not for one it leaves as the customer set it.
      const confirmedAt = b.email !== null && how.confirmsEmail && input.email !== undefined ? (kept ?? now) : kept;
      const write = {
        name: b.name,
        address: b.address.length === 0 ? null : b.address.join('\n'),
        country: b.country,
        vat_id: b.vatId,
        email: b.email,
        email_confirmed_at: confirmedAt,
        updated_at: now,
      };
      return { write, answer: { kind: 'ok', value: { ...b, emailConfirmed: confirmedAt !== null } } };
    });
  }

  /** Marks `email` confirmed while it is still the account's billing email; whether it was. */
  confirm(accountId: string, email: string, at: number): Promise<boolean> {
    return this.store.confirmEmail(accountId, email, at);
  }
}

function buyerOf(row: Selectable<AccountBillingTable> | undefined): BuyerState {
  if (!row) return { ...EMPTY_BUYER, address: [], emailConfirmed: false };
  return {
    name: row.name,
    address: row.address === null ? [] : addressLines(row.address),
    country: row.country,
    vatId: row.vat_id,
    email: row.email,
    emailConfirmed: row.email !== null && row.email_confirmed_at != null,
  };
}
