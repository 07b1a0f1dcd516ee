// The schemas of the operator's account and key routes (routes.ts): what creating and changing an
// account or a key takes, and the account, key and new key it answers with.
import { Type } from 'typebox';
import { MAX_INCLUDED, SLUG_PATTERN } from '../accounts/index.js';

const Plan = Type.Object(
  {
    included: Type.Integer({ minimum: 0, maximum: MAX_INCLUDED, description: 'Credits per 30-day window' }),
    overage: Type.Optional(Type.Boolean({ description: 'Serve and bill requests past the allowance instead of 429' })),
  },
  { additionalProperties: false },
);

const PlanId = Type.String({ maxLength: 40, description: 'A plan of the catalogue (priced; docs/billing.md)' });

export const CreateAccount = Type.Object(
  {
    slug: Type.String({ pattern: SLUG_PATTERN, description: '2–64 lower-case letters, digits or inner hyphens' }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    unlimited: Type.Optional(Type.Boolean()),
    plan: Type.Optional(Plan),
    planId: Type.Optional(PlanId),
  },
  { additionalProperties: false },
);

const NullableText = (maxLength: number, description: string) =>
  Type.Union([Type.String({ maxLength }), Type.Null()], { description });
const OrNull = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const UpdateAccount = Type.Object(
  {
    disabled: Type.Optional(Type.Boolean()),
    unlimited: Type.Optional(Type.Boolean()),
    plan: Type.Optional(Plan),
    planId: Type.Optional({
      ...PlanId,
      description:
        'Subscribe to a catalogue plan: at once for a first subscription, else from the next window (with effective "now", an upgrade at once)',
    }),
    effective: Type.Optional(
      Type.Union([Type.Literal('now'), Type.Literal('next_window')], {
        description:
          'With planId. "next_window" (the default): a change applies from the next 30-day window. "now": an upgrade (a plan with a higher fee in the same currency, on an active subscription) applies at once, inside the window in progress, and the difference of the fees, prorated for the time left of the window, is invoiced at once (kind upgrade); a change that would wait for the next window is refused (409). Not with plan, subscriptionStatus or cancelAtWindowEnd',
      }),
    ),
    gatewayCustomer: Type.Optional(
      Type.String({
        maxLength: 255,
        description: "The account's customer at the payment gateway (Stripe cus_…); empty clears",
      }),
    ),
    paymentMethod: Type.Optional(
      Type.String({
        maxLength: 255,
        description: 'The saved payment method charged off-session (Stripe pm_…); empty clears',
      }),
    ),
    subscriptionStatus: Type.Optional(
      Type.Union([Type.Literal('active'), Type.Literal('canceled'), Type.Literal('past_due'), Type.Literal('none')]),
    ),
    cancelAtWindowEnd: Type.Optional(
      Type.Boolean({
        description: 'true: the subscription ends with the current window (no fee for the next); false: it goes on',
      }),
    ),
    billing: Type.Optional(
      Type.Object(
        {
          name: Type.Optional(NullableText(200, 'Legal name on invoices (empty: the account name)')),
          address: Type.Optional(
            NullableText(700, 'Postal address, lines separated by newlines or ";" (at most 6 of 100 characters)'),
          ),
          country: Type.Optional(NullableText(60, 'ISO 3166-1 alpha-2 ("DE"); decides the VAT')),
          vatId: Type.Optional(
            NullableText(40, 'VAT id; format and check digits are checked offline (not against VIES)'),
          ),
          email: Type.Optional(
            NullableText(
              254,
              'Where invoices and receipts are mailed (else the owner); an address the operator gives counts as confirmed',
            ),
          ),
        },
        {
          additionalProperties: false,
          description:
            'The billing details invoices are addressed to; a field given replaces, null or "" clears, one left out is kept',
        },
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const CreateKey = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100, description: 'What the key is for, e.g. "production"' }) },
  { additionalProperties: false },
);

export const UpdateKey = Type.Object({ disabled: Type.Boolean() }, { additionalProperties: false });

export const AccountParams = Type.Object({
  account: Type.String({ maxLength: 100, description: 'Account id (acct_…) or slug' }),
});
export const KeyParams = Type.Object({ keyId: Type.String({ maxLength: 100 }) });

export const KeyView = Type.Object({
  keyId: Type.String(),
  name: Type.String(),
  keyPrefix: Type.String(),
  disabled: Type.Boolean(),
  createdAt: Type.String(),
});
export const AccountView = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  unlimited: Type.Boolean(),
  disabled: Type.Boolean(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  subscription: Type.Object({
    status: Type.String(),
    plan: Type.Union([Type.Object({ included: Type.Integer(), overage: Type.Boolean() }), Type.Null()]),
    planId: Type.Union([Type.String(), Type.Null()]),
    pendingPlan: Type.Union([
      Type.Object({
        planId: Type.String(),
        included: Type.Integer(),
        overage: Type.Boolean(),
        from: Type.String({ description: 'When the next window starts on it' }),
      }),
      Type.Null(),
    ]),
    windowAnchor: Type.String(),
    cancelAt: Type.Union([
      Type.String({ description: 'When a cancellation at the end of the window takes effect' }),
      Type.Null(),
    ]),
  }),
  billing: Type.Object({
    gatewayCustomer: OrNull(Type.String()),
    paymentMethod: OrNull(Type.String()),
    name: OrNull(Type.String({ description: 'Legal name on invoices; null: the account name' })),
    address: Type.Array(Type.String()),
    country: OrNull(Type.String()),
    vatId: OrNull(Type.String()),
    email: OrNull(Type.String({ description: 'Where invoices are mailed once confirmed; null: the owner' })),
    emailConfirmed: Type.Boolean({
      description:
        'Whether the billing email is confirmed: set by the operator (this API, the CLI), or its link, mailed when the customer set it on the dashboard, opened. Until then billing mail goes to the owner. False when there is no billing email',
    }),
  }),
  credits: Type.Union([
    Type.Object({
      included: Type.Integer(),
      used: Type.Integer(),
      remaining: Type.Integer(),
      overage: Type.Integer(),
      periodStart: Type.String(),
      periodEnd: Type.String(),
    }),
    Type.Null(),
  ]),
  requestCount: Type.Integer(),
  keys: Type.Array(KeyView),
});
export const CreatedKeyView = Type.Object({
  keyId: Type.String(),
  accountId: Type.String(),
  name: Type.String(),
  keyPrefix: Type.String(),
  key: Type.String({ description: 'The plaintext key; shown this once, never again' }),
  disabled: Type.Boolean(),
  createdAt: Type.String(),
});
