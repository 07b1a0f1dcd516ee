// The two parties an invoice names (docs/billing.md, "Invoices a business can book"): the seller, set
// once by the operator (FLIGHTSTATUS_SELLER_*, config/seller.ts), and the buyer, the billing details of
// each account, checked here with the seller's rules (config/parties.ts). Both are frozen on an
// invoice when it opens.
import { addressLines, checkVatId, countryName, EMAIL } from '../config.js';

export { addressLines, checkVatId, countryName, type Seller } from '../config.js';

export interface Buyer {
  name: string | null;
  address: string[];
  country: string | null;
  vatId: string | null;
  email: string | null;
}

/** What the customer or operator sends; absent keeps a value, null (or "") clears it. */
export interface BuyerInput {
  name?: string | null;
  address?: string | null;
  country?: string | null;
  vatId?: string | null;
  email?: string | null;
}

export const EMPTY_BUYER: Buyer = { name: null, address: [], country: null, vatId: null, email: null };

/** `current` with `input` applied, or every problem, each naming its field (`billing.country`, …). */
export function applyBuyerInput(
  current: Buyer,
  input: BuyerInput,
  prefix = 'billing.',
): { ok: true; value: Buyer } | { ok: false; message: string } {
  const problems: string[] = [];
  const text = (value: string | null | undefined) =>
    value === undefined ? undefined : value === null || value.trim() === '' ? null : value.trim();
  const next: Buyer = { ...current };
  const name = text(input.name);
  if (name !== undefined) {
    if (name !== null && name.length > 200) problems.push(`${prefix}name must be at most 200 characters`);
    next.name = name;
  }
  const address = text(input.address);
  if (address !== undefined) {
    const lines = address === null ? [] : addressLines(address);
    if (lines.length > 6 || lines.some((l) => l.length > 100))
      problems.push(`${prefix}address must be at most 6 lines of at most 100 characters each`);
    next.address = lines;
  }
  const country = text(input.country);
  if (country !== undefined) {
    const code = country === null ? null : country.toUpperCase();
    if (code !== null && countryName(code) === null)
      problems.push(
        `${prefix}country must be an ISO 3166-1 alpha-2 country code such as DE, FR or US (got ${JSON.stringify(String(country).slice(0, 40))})`,
      );
    else next.country = code;
  }
  const vatId = text(input.vatId);
  if (vatId !== undefined) next.vatId = vatId;
  // A VAT id is checked against the country it ends up with, whichever of the two changed.
  if (
    next.vatId !== null &&
    (vatId !== undefined || country !== undefined) &&
    !problems.some((p) => p.startsWith(`${prefix}country`))
  ) {
    const checked = checkVatId(next.vatId, next.country, `${prefix}vatId`);
    if (checked.ok) next.vatId = checked.value;
    else problems.push(checked.message);
  }
  const email = text(input.email);
  if (email !== undefined) {
    if (email !== null && (email.length > 254 || !EMAIL.test(email)))
      problems.push(
        `${prefix}email must be an email address such as accounts@example.com (got ${JSON.stringify(email.slice(0, 60))})`,
      );
    else next.email = email === null ? null : email.toLowerCase();
  }
  return problems.length > 0 ? { ok: false, message: problems.join('; ') } : { ok: true, value: next };
}
