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
  /** Standard rates in hundredths of a percent (2100 = 21 %), oldest first. */
  rates: { from: string; bp: number }[];
}

const since = (bp: number) => [{ from: VAT_TABLE_EFFECTIVE_FROM, bp }];

export const EU_VAT: readonly VatCountry[] = [
  { country: 'AT', rates: since(2000) },
  { country: 'BE', rates: since(2100) },
  { country: 'BG', rates: since(2000) },
  { country: 'CY', rates: since(1900) },
  { country: 'CZ', rates: since(2100) },
  { country: 'DE', rates: since(1900) },
  { country: 'DK', rates: since(2500) },
  {
    country: 'EE',
    rates: [
      { from: '2024-01-01', bp: 2200 },
      { from: '2025-07-01', bp: 2400 },
    ],
  },
  { country: 'ES', rates: since(2100) },
  {
    country: 'FI',
    rates: [
      { from: '2024-01-01', bp: 2400 },
      { from: '2024-09-01', bp: 2550 },
    ],
  },
  { country: 'FR', rates: since(2000) },
  { country: 'GR', rates: since(2400) },
  { country: 'HR', rates: since(2500) },
  { country: 'HU', rates: since(2700) },
  { country: 'IE', rates: since(2300) },
  { country: 'IT', rates: since(2200) },
  { country: 'LT', rates: since(2100) },
  { country: 'LU', rates: since(1700) },
  { country: 'LV', rates: since(2100) },
  { country: 'MT', rates: since(1800) },
  { country: 'NL', rates: since(2100) },
  { country: 'PL', rates: since(2300) },
  { country: 'PT', rates: since(2300) },
  {
    country: 'RO',
    rates: [
      { from: '2024-01-01', bp: 1900 },
      { from: '2025-08-01', bp: 2100 },
    ],
  },
  { country: 'SE', rates: since(2500) },
  { country: 'SI', rates: since(2200) },
  {
    country: 'SK',
    rates: [
      { from: '2024-01-01', bp: 2000 },
      { from: '2025-01-01', bp: 2300 },
    ],
  },
];
