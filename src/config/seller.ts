// The seller named on every invoice (docs/billing.md, "Invoices a business can book"): set once by
// the operator, frozen on each invoice when it opens. Without a country and a VAT id the seller is
// not VAT-registered in the EU and invoices charge no VAT (they say so).
import { Type } from 'typebox';
import { addressLines, checkVatId, countryName, EMAIL } from './parties.js';
import { capability, custom, integer, invalid, text } from './setting.js';

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

export const seller = capability({
  title: 'Invoices: the seller (docs/billing.md)',
  settings: {
    FLIGHTSTATUS_SELLER_NAME: custom({
      default: 'Flight Status Service',
      schema: Type.String({ minLength: 1, maxLength: 100 }),
      parse: (text) =>
        text.length > 100
          ? invalid('FLIGHTSTATUS_SELLER_NAME must be 1 to 100 characters (the name on invoices)')
          : text,
      doc: 'the legal name invoices are issued under ([docs/billing.md](docs/billing.md))',
      comment:
        'The seller on every invoice: legal name, postal address (lines separated by ";"), country (ISO ' +
        '3166-1 alpha-2), VAT id (its format and check digits are checked; without country and VAT id, ' +
        'invoices charge no VAT and say the seller is not VAT-registered), the address customers write ' +
        'to, bank or payment details for paying by transfer, and the days from issue to due date.',
    }),
    FLIGHTSTATUS_SELLER_ADDRESS: custom({
      default: '',
      schema: Type.Array(Type.String({ maxLength: 100 }), { maxItems: 6 }),
      parse: (text) => {
        const lines = addressLines(text);
        return lines.length > 6 || lines.some((l) => l.length > 100)
          ? invalid('FLIGHTSTATUS_SELLER_ADDRESS must be at most 6 lines (separated by ";") of at most 100 characters')
          : lines;
      },
      doc: 'the seller\'s postal address, lines separated by `;` ("Example GmbH; Hauptstr. 1; 10115 Berlin")',
    }),
    FLIGHTSTATUS_SELLER_COUNTRY: custom({
      default: '',
      schema: Type.Union([Type.String({ pattern: '^[A-Z]{2}$' }), Type.Null()]),
      parse: (text) => {
        if (text === '') return null;
        const code = text.toUpperCase();
        return countryName(code) === null
          ? invalid(
              `FLIGHTSTATUS_SELLER_COUNTRY must be an ISO 3166-1 alpha-2 country code such as DE or IE (got "${text.slice(0, 20)}")`,
            )
          : code;
      },
      doc: "the seller's country (ISO 3166-1 alpha-2): with the VAT id, decides the invoices' VAT",
    }),
    FLIGHTSTATUS_SELLER_VAT_ID: text({
      default: '',
      doc: "the seller's VAT id (`DE136695976`); needs `FLIGHTSTATUS_SELLER_COUNTRY`; empty: no VAT is charged",
    }),
    FLIGHTSTATUS_SELLER_EMAIL: custom({
      default: '',
      schema: Type.String(),
      parse: (text) =>
        text === '' || EMAIL.test(text)
          ? text
          : invalid(`FLIGHTSTATUS_SELLER_EMAIL must be an email address (got "${text.slice(0, 60)}")`),
      doc: 'the address printed on invoices for questions about them',
    }),
    FLIGHTSTATUS_SELLER_PAYMENT_DETAILS: custom({
      default: '',
      schema: Type.String({ maxLength: 300 }),
      parse: (text) =>
        text.length > 300 ? invalid('FLIGHTSTATUS_SELLER_PAYMENT_DETAILS must be at most 300 characters') : text,
      doc: 'how to pay by transfer, printed on invoices ("IBAN DE89 3704 0044 0532 0130 00, BIC COBADEFFXXX")',
    }),
    FLIGHTSTATUS_PAYMENT_TERMS_DAYS: integer({
      default: '14',
      min: 0,
      max: 120,
      unit: 'days',
      clip: 20,
      doc: "days from an invoice's issue date to its due date",
    }),
  },
  check({ values, text: given, problem }) {
    const vatId = given.FLIGHTSTATUS_SELLER_VAT_ID;
    if (vatId === '' || values.FLIGHTSTATUS_SELLER_COUNTRY === undefined) return;
    const checked = checkVatId(vatId, values.FLIGHTSTATUS_SELLER_COUNTRY, 'FLIGHTSTATUS_SELLER_VAT_ID');
    if (!checked.ok)
      problem(
        values.FLIGHTSTATUS_SELLER_COUNTRY === null
          ? 'FLIGHTSTATUS_SELLER_VAT_ID needs FLIGHTSTATUS_SELLER_COUNTRY (the country the VAT id belongs to)'
          : checked.message,
      );
  },
  build: (v): { seller: Seller } => {
    const vat =
      v.FLIGHTSTATUS_SELLER_VAT_ID === ''
        ? null
        : checkVatId(v.FLIGHTSTATUS_SELLER_VAT_ID, v.FLIGHTSTATUS_SELLER_COUNTRY, 'FLIGHTSTATUS_SELLER_VAT_ID');
    return {
      seller: {
        name: v.FLIGHTSTATUS_SELLER_NAME,
        address: v.FLIGHTSTATUS_SELLER_ADDRESS,
        country: v.FLIGHTSTATUS_SELLER_COUNTRY,
        vatId: vat?.ok ? vat.value : null,
        email: v.FLIGHTSTATUS_SELLER_EMAIL === '' ? null : v.FLIGHTSTATUS_SELLER_EMAIL,
        paymentDetails: v.FLIGHTSTATUS_SELLER_PAYMENT_DETAILS === '' ? null : v.FLIGHTSTATUS_SELLER_PAYMENT_DETAILS,
        paymentTermsDays: v.FLIGHTSTATUS_PAYMENT_TERMS_DAYS,
      },
    };
  },
});
