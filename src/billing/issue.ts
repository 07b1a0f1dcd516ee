// What an invoice states is frozen when it opens (takes its number), in the same transaction, so an
// issued invoice never changes (docs/billing.md, "Invoices a business can book"): the seller as
// configured then, the buyer's billing details then (the account's name when no legal name is
// given), the tax treatment and rate decided between the two on the issue date, the tax on the net
// total, and the due date after the payment terms.
import { DAY } from '../clock.js';
import type { AccountBillingTable, InvoicesTable } from '../db/index.js';
import { addressLines, type Seller } from './parties.js';
import { decideTax, taxOn } from './tax.js';

/** A party as stored on an invoice (seller_json, buyer_json). */
export interface FrozenParty {
  name: string | null;
  address: string[];
  country: string | null;
  vatId: string | null;
  email: string | null;
  /** The seller's: how to pay by transfer. */
  paymentDetails?: string | null;
  /** The seller's: whether the payment gateway charged invoices when this one opened. */
  charges?: boolean;
}

export type IssueColumns = Pick<
  InvoicesTable,
  | 'net_minor'
  | 'tax_minor'
  | 'total_minor'
  | 'tax_treatment'
  | 'tax_rate_bp'
  | 'tax_country'
  | 'due_at'
  | 'seller_json'
  | 'buyer_json'
>;

/** The columns an invoice of `netMinor` to the buyer `row` (its billing details, if any) opens with on `at`. */
export function issueColumns(
  row: AccountBillingTable | undefined,
  o: { accountName: string | null; netMinor: number; seller: Seller; charges: boolean; at: number },
): IssueColumns {
  const buyer: FrozenParty = {
    name: row?.name ?? o.accountName,
    address: row?.address ? addressLines(row.address) : [],
    country: row?.country ?? null,
    vatId: row?.vat_id ?? null,
    email: row?.email ?? null,
  };
  const { seller } = o;
  const tax = decideTax(
    { country: seller.country, vatId: seller.vatId },
    { country: buyer.country, vatId: buyer.vatId },
    o.at,
  );
  const taxMinor = taxOn(o.netMinor, tax.rateBp);
  const frozenSeller: FrozenParty = {
    name: seller.name,
    address: seller.address,
    country: seller.country,
    vatId: seller.vatId,
    email: seller.email,
    paymentDetails: seller.paymentDetails,
    charges: o.charges,
  };
  return {
    net_minor: o.netMinor,
    tax_minor: taxMinor,
    total_minor: o.netMinor + taxMinor,
    tax_treatment: tax.treatment,
    tax_rate_bp: tax.rateBp,
    tax_country: tax.country,
    due_at: o.at + seller.paymentTermsDays * DAY,
    seller_json: JSON.stringify(frozenSeller),
    buyer_json: JSON.stringify(buyer),
  };
}
