// Who a party is, checked offline: country codes, postal addresses, email addresses and VAT ids
// (docs/billing.md, "Invoices a business can book"). The seller's settings (seller.ts) are read with
// them, and billing checks its buyers' details with the same rules (billing/parties.ts). VAT ids are
// checked for their country's format and check digits with jsvat; whether one is registered (VIES)
// needs the network and is not checked: the operator can look one up at ec.europa.eu/taxation_customs/vies.
import { createRequire } from 'node:module';

// Loaded on first use, not with the configuration that every command and start reads: jsvat and
// ICU's region names cost about 24 ms and 14 ms of each start otherwise (measured), for a check that
// runs only when a VAT id or a country is given.
const require = createRequire(import.meta.url);
let jsvat: typeof import('jsvat') | undefined;
const vat = () => (jsvat ??= require('jsvat') as typeof import('jsvat'));
let regions: Intl.DisplayNames | undefined;

/**
 * The prefix of each EU member state's VAT ids (Greece writes EL), by ISO 3166-1 code: the same 27
 * members as the VAT rate table (billing/vat-rates.ts; billing/tax.test.ts holds the two together).
 */
export const EU_VAT_PREFIXES: Readonly<Record<string, string>> = {
  AT: 'AT',
  BE: 'BE',
  BG: 'BG',
  CY: 'CY',
  CZ: 'CZ',
  DE: 'DE',
  DK: 'DK',
  EE: 'EE',
  ES: 'ES',
  FI: 'FI',
  FR: 'FR',
  GR: 'EL',
  HR: 'HR',
  HU: 'HU',
  IE: 'IE',
  IT: 'IT',
  LT: 'LT',
  LU: 'LU',
  LV: 'LV',
  MT: 'MT',
  NL: 'NL',
  PL: 'PL',
  PT: 'PT',
  RO: 'RO',
  SE: 'SE',
  SI: 'SI',
  SK: 'SK',
};

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
export function checkVatId(
  text: string,
  country: string | null,
  field: string,
): { ok: true; value: string } | { ok: false; message: string } {
  const value = normalVatId(text);
  if (!/^[A-Z0-9]{4,20}$/.test(value))
    return {
      ok: false,
      message: `${field} must be 4 to 20 letters and digits, such as DE136695976 (got ${JSON.stringify(text.slice(0, 40))})`,
    };
  if (country === null)
    return { ok: false, message: `${field} needs a country: give the country the VAT id belongs to` };
  const euPrefix = EU_VAT_PREFIXES[country];
  if (euPrefix !== undefined) {
    if (value.slice(0, 2) !== euPrefix) {
      return {
        ok: false,
        message: `${field} must start with ${euPrefix}, the prefix of ${countryName(country) ?? country}'s VAT ids (got ${JSON.stringify(value.slice(0, 40))})`,
      };
    }
  }
  const { checkVAT, countries } = vat();
  const check = checkVAT(value, countries);
  if (check.isSupportedCountry && check.country?.isoCode.short === country && !check.isValid) {
    return {
      ok: false,
      message: `${field} is not a valid VAT id of ${countryName(country) ?? country}: its format or check digits are wrong (got ${JSON.stringify(value)})`,
    };
  }
  if (euPrefix !== undefined && !check.isValid)
    return {
      ok: false,
      message: `${field} is not a valid VAT id of ${countryName(country) ?? country} (got ${JSON.stringify(value)})`,
    };
  return { ok: true, value };
}
