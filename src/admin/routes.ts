// The operator API under /api/admin/v1 (Authorization: Bearer <FLIGHTSTATUS_ADMIN_TOKEN>). Without a
// configured token none of these routes exist: every /api/admin path answers 404.
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { AccountsService, MAX_INCLUDED, SLUG_PATTERN, type AccountView as AccountDescription } from '../accounts/index.js';
import type { BillingService } from '../billing/index.js';
import { secretsEqual } from '../auth/index.js';
import { DAY, dayProblem, readDay, type Clock } from '../clock.js';
import { ApiError } from '../http/errors.js';
import { Envelope, errors } from '../http/schemas.js';
import { envelope, unwrap } from '../http/results.js';
import type { HttpServer } from '../http/server.js';
import type { MeteringService } from '../metering/index.js';

const Plan = Type.Object(
  {
    included: Type.Integer({ minimum: 0, maximum: MAX_INCLUDED, description: 'Credits per 30-day window' }),
    overage: Type.Optional(Type.Boolean({ description: 'Serve and bill requests past the allowance instead of 429' })),
  },
  { additionalProperties: false },
);

const PlanId = Type.String({ maxLength: 40, description: 'A plan of the catalogue (priced; docs/billing.md)' });

const CreateAccount = Type.Object(
  {
    slug: Type.String({ pattern: SLUG_PATTERN, description: '2–64 lower-case letters, digits or inner hyphens' }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    unlimited: Type.Optional(Type.Boolean()),
    plan: Type.Optional(Plan),
    planId: Type.Optional(PlanId),
  },
  { additionalProperties: false },
);

const NullableText = (maxLength: number, description: string) => Type.Union([Type.String({ maxLength }), Type.Null()], { description });
const OrNull = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const UpdateAccount = Type.Object(
  {
    disabled: Type.Optional(Type.Boolean()),
    unlimited: Type.Optional(Type.Boolean()),
    plan: Type.Optional(Plan),
    planId: Type.Optional({ ...PlanId, description: 'Subscribe to a catalogue plan: at once for a first subscription, else from the next window' }),
    gatewayCustomer: Type.Optional(Type.String({ maxLength: 255, description: "The account's customer at the payment gateway (Stripe cus_…); empty clears" })),
    paymentMethod: Type.Optional(Type.String({ maxLength: 255, description: 'The saved payment method charged off-session (Stripe pm_…); empty clears' })),
    subscriptionStatus: Type.Optional(
      Type.Union([Type.Literal('active'), Type.Literal('canceled'), Type.Literal('past_due'), Type.Literal('none')]),
    ),
    cancelAtWindowEnd: Type.Optional(Type.Boolean({ description: 'true: the subscription ends with the current window (no fee for the next); false: it goes on' })),
    billing: Type.Optional(
      Type.Object(
        {
          name: Type.Optional(NullableText(200, 'Legal name on invoices (empty: the account name)')),
          address: Type.Optional(NullableText(700, 'Postal address, lines separated by newlines or ";" (at most 6 of 100 characters)')),
          country: Type.Optional(NullableText(60, 'ISO 3166-1 alpha-2 ("DE"); decides the VAT')),
          vatId: Type.Optional(NullableText(40, 'VAT id; format and check digits are checked offline (not against VIES)')),
          email: Type.Optional(NullableText(254, 'Where invoices and receipts are mailed (else the owner); an address the operator gives counts as confirmed')),
        },
        { additionalProperties: false, description: 'The billing details invoices are addressed to; a field given replaces, null or "" clears, one left out is kept' },
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

const CreateKey = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100, description: 'What the key is for, e.g. "production"' }) },
  { additionalProperties: false },
);

const UpdateKey = Type.Object({ disabled: Type.Boolean() }, { additionalProperties: false });

const AccountParams = Type.Object({ account: Type.String({ maxLength: 100, description: 'Account id (acct_…) or slug' }) });
const KeyParams = Type.Object({ keyId: Type.String({ maxLength: 100 }) });
const UsageQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ description: 'First UTC day, YYYY-MM-DD (default: 29 days before `to`)' })),
    to: Type.Optional(Type.String({ description: 'Last UTC day, YYYY-MM-DD (default: today)' })),
  },
  { additionalProperties: false },
);

/** Longest usage report in days; a year of daily rows is plenty for one call. */
const MAX_USAGE_DAYS = 366;

const KeyView = Type.Object({
  keyId: Type.String(),
  name: Type.String(),
  keyPrefix: Type.String(),
  disabled: Type.Boolean(),
  createdAt: Type.String(),
});
const AccountView = Type.Object({
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
      Type.Object({ planId: Type.String(), included: Type.Integer(), overage: Type.Boolean(), from: Type.String({ description: 'When the next window starts on it' }) }),
      Type.Null(),
    ]),
    windowAnchor: Type.String(),
    cancelAt: Type.Union([Type.String({ description: 'When a cancellation at the end of the window takes effect' }), Type.Null()]),
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
const CreatedKeyView = Type.Object({
  keyId: Type.String(),
  accountId: Type.String(),
  name: Type.String(),
  keyPrefix: Type.String(),
  key: Type.String({ description: 'The plaintext key; shown this once, never again' }),
  disabled: Type.Boolean(),
  createdAt: Type.String(),
});

export function adminRoutes(
  app: HttpServer,
  deps: { adminToken: string; accounts: AccountsService; metering: MeteringService; clock: Clock; billing: BillingService },
): void {
  const { accounts, adminToken, billing } = deps;
  /** The account with its billing details (billing's, kept beside the gateway's). */
  const withBuyer = async (view: AccountDescription) => ({ ...view, billing: { ...view.billing, ...(await billing.buyer(view.id)) } });

  adminScope(app, adminToken, (admin) => {

    admin.post(
      '/api/admin/v1/accounts',
      { schema: { ...common, body: CreateAccount, response: { 201: Envelope(AccountView, 'Created'), ...errors(400, 401, 409) } } },
      async (request, reply) => reply.code(201).send(envelope(await withBuyer(unwrap(await accounts.createAccount(request.body))))),
    );

    admin.get(
      '/api/admin/v1/accounts',
      {
        schema: {
          ...common,
          response: {
            200: Envelope(
              Type.Object({
                accounts: Type.Array(
                  Type.Object({ id: Type.String(), slug: Type.String(), name: Type.String(), disabled: Type.Boolean() }),
                ),
              }),
              'Accounts',
            ),
          },
        },
      },
      async () => {
        const rows = await accounts.listAccounts();
        return envelope({ accounts: rows.map((r) => ({ id: r.id, slug: r.slug, name: r.name, disabled: r.disabled === 1 })) });
      },
    );

    admin.get(
      '/api/admin/v1/accounts/:account',
      { schema: { ...common, params: AccountParams, response: { 200: Envelope(AccountView, 'Account'), ...errors(401, 404) } } },
      async (request) => envelope(await withBuyer(unwrap(await accounts.describe(request.params.account)))),
    );

    admin.patch(
      '/api/admin/v1/accounts/:account',
      {
        schema: {
          ...common,
          params: AccountParams,
          body: UpdateAccount,
          response: { 200: Envelope(AccountView, 'Account'), ...errors(400, 401, 404, 409) },
        },
      },
      async (request) => {
        const { billing: details, ...changes } = request.body;
        const account = unwrap(await accounts.describe(request.params.account));
        // Billing details are checked before anything changes, and written after the account's own changes.
        if (details) unwrap(await billing.checkBuyer(account.id, details));
        const updated = Object.keys(changes).length > 0 ? unwrap(await accounts.updateAccount(account.id, changes)) : account;
        if (details) unwrap(await billing.setBuyer(account.id, details));
        return envelope(await withBuyer(updated));
      },
    );

    admin.post(
      '/api/admin/v1/accounts/:account/keys',
      {
        schema: {
          ...common,
          params: AccountParams,
          body: CreateKey,
          response: { 201: Envelope(CreatedKeyView, 'Created key'), ...errors(400, 401, 404) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(envelope(unwrap(await accounts.createKey(request.params.account, request.body.name)))),
    );

    admin.patch(
      '/api/admin/v1/keys/:keyId',
      {
        schema: {
          ...common,
          params: KeyParams,
          body: UpdateKey,
          response: {
            200: Envelope(Type.Object({ ...KeyView.properties, accountId: Type.String() }), 'Key'),
            ...errors(400, 401, 404),
          },
        },
      },
      async (request) => envelope(unwrap(await accounts.setKeyDisabled(request.params.keyId, request.body.disabled))),
    );

    admin.get(
      '/api/admin/v1/accounts/:account/usage',
      {
        schema: {
          ...common,
          params: AccountParams,
          querystring: UsageQuery,
          response: {
            200: Envelope(
              Type.Object({
                accountId: Type.String(),
                from: Type.String(),
                to: Type.String(),
                total: Type.Integer(),
                days: Type.Array(
                  Type.Object({
                    date: Type.String(),
                    requests: Type.Integer(),
                    byStatus: Type.Record(Type.String(), Type.Integer()),
                  }),
                ),
              }),
              'Metered requests per UTC day, from the usage log',
            ),
            ...errors(400, 401, 404),
          },
        },
      },
      async (request) => {
        const account = unwrap(await accounts.describe(request.params.account));
        const range = usageRange(request.query, deps.clock.now());
        const days = await deps.metering.usageByDay(account.id, range.from, range.to + DAY);
        return envelope({
          accountId: account.id,
          from: isoDate(range.from),
          to: isoDate(range.to),
          total: days.reduce((sum, d) => sum + d.requests, 0),
          days,
        });
      },
    );
  });
}

const typed = (instance: FastifyInstance) => instance.withTypeProvider<TypeBoxTypeProvider>();
export type AdminServer = ReturnType<typeof typed>;

/** Operator routes are hidden from the public OpenAPI document. */
export const common = { hide: true, tags: ['operator'] };

/** Registers operator routes in a scope that demands the operator token first. */
export function adminScope(app: HttpServer, adminToken: string, routes: (admin: AdminServer) => void): void {
  app.register(async (instance) => {
    const admin = typed(instance);
    admin.addHook('onRequest', async (request) => {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
      if (!match || !secretsEqual(match[1]!, adminToken)) {
        throw new ApiError('unauthorized', 'The operator API needs "Authorization: Bearer <FLIGHTSTATUS_ADMIN_TOKEN>"', {
          'www-authenticate': 'Bearer realm="flightstatus-admin"',
        });
      }
    });
    routes(admin);
  });
}

export { envelope };

/** Start of the first and of the last UTC day of a usage report. */
function usageRange(query: { from?: string; to?: string }, now: number): { from: number; to: number } {
  const day = (name: 'from' | 'to', value: string | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    const parsed = readDay(value);
    if (!parsed.ok) throw new ApiError('invalid_request', dayProblem(`query.${name}`, value, parsed.problem));
    return parsed.at;
  };
  const to = day('to', query.to, Math.floor(now / DAY) * DAY);
  const from = day('from', query.from, to - 29 * DAY);
  if (from > to) throw new ApiError('invalid_request', 'query.from must not be after query.to');
  if ((to - from) / DAY + 1 > MAX_USAGE_DAYS) throw new ApiError('invalid_request', `A usage report covers at most ${MAX_USAGE_DAYS} days`);
  return { from, to };
}

const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
