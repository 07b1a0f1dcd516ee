// The tax an invoice states (docs/billing.md, "Tax"): which treatment applies between the seller and
// the buyer, at which rate, and the amount, computed once on the invoice's net total in integer
// minor units, rounded half up. Pure: the rates come from vat-rates.ts, the parties from the caller.
//
//   seller not VAT-registered in the EU          → not_registered  (no VAT)
//   buyer in the seller's country, or no country → domestic        (seller's rate)
//   buyer in another EU country with a VAT id    → reverse_charge  (0 %, Art. 196)
//   buyer in another EU country without one      → oss             (buyer's country rate, Art. 58)
//   buyer outside the EU                         → outside_eu      (0 %, outside the scope)
import { EU_VAT } from './vat-rates.js';

export type TaxTreatment = 'domestic' | 'reverse_charge' | 'oss' | 'outside_eu' | 'not_registered';

export interface TaxParty {
  /** ISO 3166-1 alpha-2, or null when not given. */
  country: string | null;
  vatId: string | null;
}

export interface TaxDecision {
  treatment: TaxTreatment;
  /** Hundredths of a percent (1900 = 19 %); 0 when no VAT is charged. */
  rateBp: number;
  /** Whose rate it is (the member state of the VAT); null when none is charged. */
  country: string | null;
}

const BY_COUNTRY = new Map(EU_VAT.map((c) => [c.country, c]));

export const isEuCountry = (country: string | null): boolean => country !== null && BY_COUNTRY.has(country);

/** The standard rate of an EU member state on the UTC day of `at`, in hundredths of a percent. */
export function standardRate(country: string, at: number): number {
  const entry = BY_COUNTRY.get(country);
  if (!entry) throw new Error(`no VAT rate for ${country}`);
  const day = new Date(at).toISOString().slice(0, 10);
  let bp = entry.rates[0]!.bp;
  for (const rate of entry.rates) if (rate.from <= day) bp = rate.bp;
  return bp;
}

/** 1900 → "19", 2550 → "25.5". */
export function ratePercent(bp: number): string {
  const whole = Math.trunc(bp / 100);
  const fraction = String(bp % 100)
    .padStart(2, '0')
    .replace(/0+$/, '');
  return fraction === '' ? String(whole) : `${whole}.${fraction}`;
}

/** The words an invoice prints under its tax for a treatment at `rateBp` of `country`'s. */
export function taxNote(treatment: TaxTreatment, rateBp: number, country: string | null): string {
  switch (treatment) {
    case 'not_registered':
      return 'No VAT charged: the seller is not registered for VAT in the EU.';
    case 'domestic':
      return `VAT at the standard rate of ${country}, ${ratePercent(rateBp)} %.`;
    case 'outside_eu':
      return 'Outside the scope of EU VAT: the customer belongs outside the EU (place of supply, Articles 44 and 58 of Council Directive 2006/112/EC).';
    case 'reverse_charge':
      return 'Reverse charge: VAT to be accounted for by the recipient (Article 196 of Council Directive 2006/112/EC).';
    case 'oss':
      return `VAT at the standard rate of ${country}, ${ratePercent(rateBp)} %, where the customer belongs (Article 58 of Council Directive 2006/112/EC; declared through the One-Stop Shop).`;
  }
}

/** The treatment of an invoice the seller issues to the buyer on `at`. */
export function decideTax(seller: TaxParty, buyer: TaxParty, at: number): TaxDecision {
  const decided = (treatment: TaxTreatment, country: string | null): TaxDecision => {
    const rateBp = country === null ? 0 : standardRate(country, at);
    return { treatment, rateBp, country };
  };
  if (seller.vatId === null || !isEuCountry(seller.country)) return decided('not_registered', null);
  const home = seller.country!;
  if (buyer.country === null || buyer.country === home) return decided('domestic', home);
  if (!isEuCountry(buyer.country)) return decided('outside_eu', null);
  if (buyer.vatId !== null) return decided('reverse_charge', null);
  return decided('oss', buyer.country);
}

/** The tax on `netMinor` at `rateBp`, once on the total, rounded half up, in minor units. */
export function taxOn(netMinor: number, rateBp: number): number {
  return Number((BigInt(netMinor) * BigInt(rateBp) + 5000n) / 10000n);
}
