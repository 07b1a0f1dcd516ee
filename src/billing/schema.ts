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
    amount: Type.String({ description: 'Decimal string in the currency: quantity × unit price, rounded once, half up' }),
    amountMinor: Type.Integer({ description: 'The amount in minor units (cents)' }),
  },
  { additionalProperties: false },
);

export const InvoiceSchema = Type.Object(
  {
    id: Type.String(),
    number: Nullable(Type.String({ description: 'FS-000042: sequential without gaps, taken when the invoice opens' })),
    accountId: Type.String(),
    accountSlug: Type.String(),
    accountName: Type.String(),
    kind: Type.Union([Type.Literal('overage'), Type.Literal('fee')], {
      description: 'overage: requests past the allowance in one calendar month (UTC), billed after it; fee: the plan fee of one 30-day window, billed at its start',
    }),
    state: Type.Union([Type.Literal('draft'), Type.Literal('open'), Type.Literal('paid'), Type.Literal('uncollectible'), Type.Literal('void')], {
      description: 'draft (not yet numbered) → open (numbered, owed) → paid or uncollectible (written off); void (issued by mistake)',
    }),
    currency: Type.String({ description: 'ISO 4217' }),
    total: Type.String({ description: 'Decimal string in the currency, e.g. "12.34"' }),
    totalMinor: Type.Integer({ description: 'The total in minor units (cents)' }),
    periodStart: DateTime('Start of the billed period'),
    periodEnd: DateTime('End of the billed period (exclusive)'),
    createdAt: DateTime('When the invoice was written'),
    finalizedAt: Nullable(DateTime('When it opened (took its number)')),
    paidAt: Nullable(DateTime('When it was paid')),
    nextAttemptAt: Nullable(DateTime('When the next automatic charge is due')),
    attempts: Type.Integer({ description: 'Charge attempts the customer side declined so far' }),
    lines: Type.Array(InvoiceLineSchema),
  },
  { additionalProperties: false, title: 'Invoice' },
);

export const InvoiceParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'The invoice id (inv_…)' }) }, { additionalProperties: false });

export const InvoiceListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 24, description: 'How many, newest first' })),
    before: Type.Optional(Type.String({ maxLength: 100, description: 'An invoice id: the page after it (older ones)' })),
  },
  { additionalProperties: false },
);
