// The two parties an invoice names (docs/billing.md, "Invoices a business can book"): the seller, set
// once by the operator (FLIGHTSTATUS_SELLER_*), and the buyer, the billing details of each account.
// Both are frozen on an invoice when it opens. VAT ids are checked offline, for their country's
// format and check digits, with jsvat; whether a VAT id is registered (VIES) needs the network and
// is not checked: the operator can look one up at ec.europa.eu/taxation_customs/vies.
import { createRequire } from 'node:module';
import { euCountryOfPrefix, isEuCountry } from './tax.js';

// Loaded on first use, not with the configuration that every command and start reads: jsvat and
// ICU's region names cost about 24 ms and 14 ms of each start otherwise (measured), for a check that
// runs only when a VAT id or a country is given.
const require = createRequire(import.meta.url);
let jsvat: typeof import('jsvat') | undefined;
const vat = () => (jsvat ??= require('jsvat') as typeof import('jsvat'));
let regions: Intl.DisplayNames | undefined;

export interface Seller {
  name: string;
  /** Postal address, one line per element. */
  address: string[];
  /** ISO 3166-1 alpha-2; null when not configured. */
  country: string | null;
  vatId: string | null;
  /** Where customers write about an invoice. */
  email: string | null;
  /** Bank or payment details for paying by transfer (IBAN, BIC, …). */
  paymentDetails: string | null;
  /** Days from issue to due date. */
  paymentTermsDays: number;
}

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

/** Region codes ICU names that are not ISO 3166-1 countries (groupings, pseudo-regions, reserved codes); XK (Kosovo) is kept. */
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'ZZ', 'QO', 'XA', 'XB', 'EA', 'IC', 'AC', 'DG', 'TA', 'CP', 'CQ']);
/** An address a mail can go to: no spaces, quotes, brackets or separators (no header can be smuggled in). */
export const EMAIL = /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+\.[^\s@<>()[\],;:"]+$/;

/** "DE" → "Germany"; null when it is not an ISO 3166-1 alpha-2 country code. */
export function countryName(code: string): string | null {
  if (!/^[A-Z]{2}$/.test(code) || NOT_COUNTRIES.has(code)) return null;
  return (regions ??= new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' })).of(code) ?? null;
}

/** An address as lines: newlines or semicolons separate them; blank lines dropped. */
export const addressLines = (text: string): string[] =>
  text
    .split(/\r?\n|;/)
    .map((l) => l.trim())
    .filter((l) => l !== '');

const normalVatId = (text: string) => text.toUpperCase().replace(/[\s.\-/]/g, '');

/**
 * A VAT id for `country`: for an EU country, its prefix (Greece: EL) and a valid format and check
 * digits; elsewhere, the format check where jsvat knows the country (CH, GB, NO, …), else letters and
 * digits. The message names `field`.
 */
export function checkVatId(text: string, country: string | null, field: string): { ok: true; value: string } | { ok: false; message: string } {
  const value = normalVatId(text);
  if (!/^[A-Z0-9]{4,20}$/.test(value)) return { ok: false, message: `${field} must be 4 to 20 letters and digits, such as DE136695976 (got ${JSON.stringify(text.slice(0, 40))})` };
  if (country === null) return { ok: false, message: `${field} needs a country: give the country the VAT id belongs to` };
  if (isEuCountry(country)) {
    const prefixCountry = euCountryOfPrefix(value.slice(0, 2));
    if (prefixCountry?.country !== country) {
      const prefix = country === 'GR' ? 'EL' : country;
      return { ok: false, message: `${field} must start with ${prefix}, the prefix of ${countryName(country) ?? country}'s VAT ids (got ${JSON.stringify(value.slice(0, 40))})` };
    }
  }
  const { checkVAT, countries } = vat();
  const check = checkVAT(value, countries);
  if (check.isSupportedCountry && check.country?.isoCode.short === country && !check.isValid) {
    return { ok: false, message: `${field} is not a valid VAT id of ${countryName(country) ?? country}: its format or check digits are wrong (got ${JSON.stringify(value)})` };
  }
  if (isEuCountry(country) && !check.isValid) return { ok: false, message: `${field} is not a valid VAT id of ${countryName(country) ?? country} (got ${JSON.stringify(value)})` };
  return { ok: true, value };
}

/** `current` with `input` applied, or every problem, each naming its field (`billing.country`, …). */
export function applyBuyerInput(current: Buyer, input: BuyerInput, prefix = 'billing.'): { ok: true; value: Buyer } | { ok: false, message: string } {
  const problems: string[] = [];
  const text = (value: string | null | undefined) => (value === undefined ? undefined : value === null || value.trim() === '' ? null : value.trim());
  const next: Buyer = { ...current };
  const name = text(input.name);
  if (name !== undefined) {
    if (name !== null && name.length > 200) problems.push(`${prefix}name must be at most 200 characters`);
    next.name = name;
  }
  const address = text(input.address);
  if (address !== undefined) {
    const lines = address === null ? [] : addressLines(address);
    if (lines.length > 6 || lines.some((l) => l.length > 100)) problems.push(`${prefix}address must be at most 6 lines of at most 100 characters each`);
    next.address = lines;
  }
  const country = text(input.country);
  if (country !== undefined) {
    const code = country === null ? null : country.toUpperCase();
    if (code !== null && countryName(code) === null) problems.push(`${prefix}country must be an ISO 3166-1 alpha-2 country code such as DE, FR or US (got ${JSON.stringify(String(country).slice(0, 40))})`);
    else next.country = code;
  }
  const vatId = text(input.vatId);
  if (vatId !== undefined) next.vatId = vatId;
  // A VAT id is checked against the country it ends up with, whichever of the two changed.
  if (next.vatId !== null && (vatId !== undefined || country !== undefined) && !problems.some((p) => p.startsWith(`${prefix}country`))) {
    const checked = checkVatId(next.vatId, next.country, `${prefix}vatId`);
    if (checked.ok) next.vatId = checked.value;
    else problems.push(checked.message);
  }
  const email = text(input.email);
  if (email !== undefined) {
    if (email !== null && (email.length > 254 || !EMAIL.test(email))) problems.push(`${prefix}email must be an email address such as accounts@example.com (got ${JSON.stringify(email.slice(0, 60))})`);
    else next.email = email === null ? null : email.toLowerCase();
  }
  return problems.length > 0 ? { ok: false, message: problems.join('; ') } : { ok: true, value: next };
}
