// The standard VAT rates of the EU member states, by the date they took effect: the one table every
// invoice's tax is read from (tax.ts). A rate applies to invoices issued on or after its `from` day
// (UTC) until the next entry's. Electronically supplied services (an API) take the standard rate in
// every member state.
//
// Sources: the European Commission's Taxes in Europe Database (TEDB, which replaced its booklet "VAT
// rates applied in the Member States"), as compiled in vatnode/eu-vat-rates-data
// (data/eu-vat-rates-history.json, 2026-08-26) and cross-checked with eurofiscalis.com's 2026 table;
// the changes since 2024 against the national sources: Luxembourg back to 17 % on 2024-01-01
// (Chambre des Métiers), Finland 25.5 % on 2024-09-01 (vero.fi), Slovakia 23 % on 2025-01-01 (Act
// 278/2024), Estonia 24 % on 2025-07-01 (emta.ee), Romania 21 % on 2025-08-01 (Law 141/2025). No
// standard-rate change is announced for 2026 (only reduced rates, which an API never takes).
// Reviewed: 2026-11-27. Effective from: 2024-01-01 (an invoice issued earlier takes the first entry).
// To change a rate: add an entry with the day it takes effect, never edit a past one (issued
// invoices keep the rate they were issued at; it is frozen on the invoice).

export const VAT_TABLE_EFFECTIVE_FROM = '2024-01-01';

export interface VatCountry {
  /** ISO 3166-1 alpha-2. */
  country: string;
  /** The prefix of the country's VAT ids (Greece: EL). */
  prefix: string;
  /** Standard rates in hundredths of a percent (2100 = 21 %), oldest first. */
  rates: { from: string; bp: number }[];
}

const since = (bp: number) => [{ from: VAT_TABLE_EFFECTIVE_FROM, bp }];

export const EU_VAT: readonly VatCountry[] = [
  { country: 'AT', prefix: 'AT', rates: since(2000) },
  { country: 'BE', prefix: 'BE', rates: since(2100) },
  { country: 'BG', prefix: 'BG', rates: since(2000) },
  { country: 'CY', prefix: 'CY', rates: since(1900) },
  { country: 'CZ', prefix: 'CZ', rates: since(2100) },
  { country: 'DE', prefix: 'DE', rates: since(1900) },
  { country: 'DK', prefix: 'DK', rates: since(2500) },
  { country: 'EE', prefix: 'EE', rates: [{ from: '2024-01-01', bp: 2200 }, { from: '2025-07-01', bp: 2400 }] },
  { country: 'ES', prefix: 'ES', rates: since(2100) },
  { country: 'FI', prefix: 'FI', rates: [{ from: '2024-01-01', bp: 2400 }, { from: '2024-09-01', bp: 2550 }] },
  { country: 'FR', prefix: 'FR', rates: since(2000) },
  { country: 'GR', prefix: 'EL', rates: since(2400) },
  { country: 'HR', prefix: 'HR', rates: since(2500) },
  { country: 'HU', prefix: 'HU', rates: since(2700) },
  { country: 'IE', prefix: 'IE', rates: since(2300) },
  { country: 'IT', prefix: 'IT', rates: since(2200) },
  { country: 'LT', prefix: 'LT', rates: since(2100) },
  { country: 'LU', prefix: 'LU', rates: since(1700) },
  { country: 'LV', prefix: 'LV', rates: since(2100) },
  { country: 'MT', prefix: 'MT', rates: since(1800) },
  { country: 'NL', prefix: 'NL', rates: since(2100) },
  { country: 'PL', prefix: 'PL', rates: since(2300) },
  { country: 'PT', prefix: 'PT', rates: since(2300) },
  { country: 'RO', prefix: 'RO', rates: [{ from: '2024-01-01', bp: 1900 }, { from: '2025-08-01', bp: 2100 }] },
  { country: 'SE', prefix: 'SE', rates: since(2500) },
  { country: 'SI', prefix: 'SI', rates: since(2200) },
  { country: 'SK', prefix: 'SK', rates: [{ from: '2024-01-01', bp: 2000 }, { from: '2025-01-01', bp: 2300 }] },
];
