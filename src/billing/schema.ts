// The invoice as the customer and operator APIs return it (OpenAPI), matching InvoiceView.
import { Type } from 'typebox';
import { DateTime } from '../http/schemas.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const InvoiceLineSchema = Type.Object(
  {
    description: Type.String(),
    planId: Type.String(),
    quantity: Type.Integer(),
    unitPrice: Type.String({ description: 'Decimal string: the price of one request, or the fee' }),
    amount: Type.String({
      description: 'Decimal string in the currency: quantity × unit price, rounded once, half up',
    }),
    amountMinor: Type.Integer({ description: 'The amount in minor units (cents)' }),
  },
  { additionalProperties: false },
);

const Money = (description: string) => Type.String({ description: `Decimal string in the currency: ${description}` });
const Minor = (description: string) => Type.Integer({ description: `${description}, in minor units (cents)` });

export const PartySchema = Type.Object(
  {
    name: Type.String({ description: 'Legal name (the buyer: its billing name, else the account name)' }),
    address: Type.Array(Type.String(), { description: 'Postal address, one line per element' }),
    country: Nullable(Type.String({ description: 'ISO 3166-1 alpha-2' })),
    countryName: Nullable(Type.String({ description: 'The country in English' })),
    vatId: Nullable(Type.String({ description: 'VAT id, format and check digits checked (not against VIES)' })),
    email: Nullable(Type.String()),
  },
  { additionalProperties: false, title: 'InvoiceParty' },
);

export const TaxLineSchema = Type.Object(
  {
    ratePercent: Type.String({ description: '"19", "25.5", "0"' }),
    country: Nullable(Type.String({ description: 'Whose rate (ISO 3166-1 alpha-2); null when no VAT is charged' })),
    taxable: Money('the net amount taxed at this rate'),
    taxableMinor: Minor('The net amount taxed at this rate'),
    tax: Money('the tax at this rate, computed once on the total and rounded half up'),
    taxMinor: Minor('The tax at this rate'),
  },
  { additionalProperties: false, title: 'TaxLine' },
);

export const CreditNoteRefSchema = Type.Object(
  {
    id: Type.String(),
    number: Type.String({ description: 'CN-000003: its own sequence, without gaps' }),
    total: Money('the amount credited, tax included'),
    totalMinor: Minor('The amount credited'),
    issuedAt: DateTime('When it was issued'),
  },
  { additionalProperties: false },
);

export const CreditNoteSchema = Type.Object(
  {
    id: Type.String(),
    number: Type.String({ description: 'CN-000003: its own sequence, without gaps' }),
    invoiceId: Type.String(),
    invoiceNumber: Type.String({ description: 'The invoice it credits' }),
    accountId: Type.String(),
    currency: Type.String(),
    net: Money('the net credited'),
    netMinor: Minor('The net credited'),
    tax: Money("the tax credited, at the invoice's rate"),
    taxMinor: Minor('The tax credited'),
    total: Money('the total credited'),
    totalMinor: Minor('The total credited'),
    reason: Type.String(),
    issuedAt: DateTime('When it was issued'),
  },
  { additionalProperties: false, title: 'CreditNote' },
);

export const InvoiceSchema = Type.Object(
  {
    id: Type.String(),
    number: Nullable(Type.String({ description: 'FS-000042: sequential without gaps, taken when the invoice opens' })),
    accountId: Type.String(),
    accountSlug: Type.String(),
    accountName: Type.String(),
    kind: Type.Union([Type.Literal('overage'), Type.Literal('fee'), Type.Literal('upgrade')], {
      description:
        'overage: requests past the allowance in one calendar month (UTC), billed after it; fee: the plan fee of one 30-day window, billed at its start; upgrade: the difference of the fees of an upgrade made inside a window, prorated for the time left of it, billed at once',
    }),
    state: Type.Union(
      [
        Type.Literal('draft'),
        Type.Literal('open'),
        Type.Literal('paid'),
        Type.Literal('uncollectible'),
        Type.Literal('void'),
      ],
      {
        description:
          'draft (not yet numbered) → open (numbered, owed) → paid or uncollectible (written off); void (issued by mistake)',
      },
    ),
    currency: Type.String({ description: 'ISO 4217' }),
    total: Type.String({ description: 'What is owed, tax included: a decimal string in the currency, e.g. "12.34"' }),
    totalMinor: Type.Integer({ description: 'The total in minor units (cents)' }),
    net: Money('the sum of the lines, before tax'),
    netMinor: Minor('The net'),
    tax: Money('the tax, computed once on the net total, rounded half up'),
    taxMinor: Minor('The tax'),
    taxTreatment: Nullable(
      Type.Union(
        [
          Type.Literal('domestic'),
          Type.Literal('reverse_charge'),
          Type.Literal('oss'),
          Type.Literal('outside_eu'),
          Type.Literal('not_registered'),
        ],
        {
          description:
            "domestic (the seller's rate), reverse_charge (EU business in another member state, Art. 196), oss (EU consumer: their country's rate), outside_eu (outside the scope of EU VAT), not_registered (the seller charges no VAT); null while a draft",
        },
      ),
    ),
    taxNote: Nullable(Type.String({ description: 'The legal wording of the treatment, as printed' })),
    taxLines: Type.Array(TaxLineSchema, { description: 'The tax per rate' }),
    seller: PartySchema,
    buyer: PartySchema,
    dueDate: Nullable(
      Type.String({ format: 'date', description: 'Issue date plus the payment terms (UTC day); null while a draft' }),
    ),
    paymentInstructions: Nullable(Type.String({ description: 'How to pay, as printed' })),
    periodStart: DateTime('Start of the billed period'),
    periodEnd: DateTime('End of the billed period (exclusive)'),
    periodFirstDay: Type.String({
      format: 'date',
      description: 'The first day of the period (UTC), as every text shows it',
    }),
    periodLastDay: Type.String({
      format: 'date',
      description: 'The last day of the period (UTC), included, as every text shows it',
    }),
    createdAt: DateTime('When the invoice was written'),
    finalizedAt: Nullable(DateTime('When it opened (took its number)')),
    paidAt: Nullable(DateTime('When it was paid')),
    nextAttemptAt: Nullable(DateTime('When the next automatic charge is due')),
    attempts: Type.Integer({ description: 'Charge attempts the customer side declined so far' }),
    lines: Type.Array(InvoiceLineSchema),
    creditNotes: Type.Array(CreditNoteRefSchema, { description: 'Credit notes issued against it, oldest first' }),
    creditedMinor: Minor('The sum of its credit notes'),
  },
  { additionalProperties: false, title: 'Invoice' },
);

export const InvoiceParams = Type.Object(
  { id: Type.String({ maxLength: 100, description: 'The invoice id (inv_…)' }) },
  { additionalProperties: false },
);
export const CreditNoteParams = Type.Object(
  { id: Type.String({ maxLength: 100, description: 'The credit note id (cn_…)' }) },
  { additionalProperties: false },
);

export const InvoiceListQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, default: 24, description: 'How many, newest first' }),
    ),
    before: Type.Optional(
      Type.String({ maxLength: 100, description: 'An invoice id: the page after it (older ones)' }),
    ),
  },
  { additionalProperties: false },
);
