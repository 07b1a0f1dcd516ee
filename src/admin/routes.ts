// The operator API under /api/admin/v1 (Authorization: Bearer <FLIGHTSTATUS_ADMIN_TOKEN>). Without a
// configured token none of these routes exist: every /api/admin path answers 404.
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { AccountsService, type AccountView as AccountDescription } from '../accounts/index.js';
import type { BillingService } from '../billing/index.js';
import { secretsEqual } from '../auth/index.js';
import { DAY, dayProblem, readDay, type Clock } from '../clock.js';
import { ApiError } from '../http/errors.js';
import { Envelope, errors } from '../http/schemas.js';
import { envelope, unwrap } from '../http/results.js';
import type { HttpServer } from '../http/server.js';
import type { MeteringService } from '../metering/index.js';
import {
  AccountParams,
  AccountView,
  CreateAccount,
  CreatedKeyView,
  CreateKey,
  KeyParams,
  KeyView,
  UpdateAccount,
  UpdateKey,
} from './account-schemas.js';

const UsageQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ description: 'First UTC day, YYYY-MM-DD (default: 29 days before `to`)' })),
    to: Type.Optional(Type.String({ description: 'Last UTC day, YYYY-MM-DD (default: today)' })),
  },
  { additionalProperties: false },
);

/** Longest usage report in days; a year of daily rows is plenty for one call. */
const MAX_USAGE_DAYS = 366;

export function adminRoutes(
  app: HttpServer,
  deps: {
    adminToken: string;
    accounts: AccountsService;
    metering: MeteringService;
    clock: Clock;
    billing: BillingService;
  },
): void {
  const { accounts, adminToken, billing } = deps;
  /** The account with its billing details (billing's, kept beside the gateway's). */
  const withBuyer = async (view: AccountDescription) => ({
    ...view,
    billing: { ...view.billing, ...(await billing.buyer(view.id)) },
  });

  adminScope(app, adminToken, (admin) => {
    admin.post(
      '/api/admin/v1/accounts',
      {
        schema: {
          ...common,
          body: CreateAccount,
          response: { 201: Envelope(AccountView, 'Created'), ...errors(400, 401, 409) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(envelope(await withBuyer(unwrap(await accounts.createAccount(request.body))))),
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
                  Type.Object({
                    id: Type.String(),
                    slug: Type.String(),
                    name: Type.String(),
                    disabled: Type.Boolean(),
                  }),
                ),
              }),
              'Accounts',
            ),
          },
        },
      },
      async () => {
        const rows = await accounts.listAccounts();
        return envelope({
          accounts: rows.map((r) => ({ id: r.id, slug: r.slug, name: r.name, disabled: r.disabled === 1 })),
        });
      },
    );

    admin.get(
      '/api/admin/v1/accounts/:account',
      {
        schema: {
          ...common,
          params: AccountParams,
          response: { 200: Envelope(AccountView, 'Account'), ...errors(401, 404) },
        },
      },
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
        const { billing: details, effective, ...changes } = request.body;
        if (effective !== undefined && changes.planId === undefined)
          throw new ApiError('invalid_request', 'effective is given with planId: when the plan change applies');
        const upgradeTo = effective === 'now' ? changes.planId : undefined;
        if (
          upgradeTo !== undefined &&
          (changes.plan || changes.subscriptionStatus || changes.cancelAtWindowEnd !== undefined)
        )
          throw new ApiError(
            'invalid_request',
            'effective "now" cannot be given with plan, subscriptionStatus or cancelAtWindowEnd',
          );
        const account = unwrap(await accounts.describe(request.params.account));
        // Billing details are checked before anything changes, and written after the account's own changes.
        if (details) unwrap(await billing.checkBuyer(account.id, details));
        // An upgrade at once is billing's (it invoices the proration with the change); the rest is the accounts'.
        if (upgradeTo !== undefined) {
          unwrap(await billing.changePlan(account.id, upgradeTo, { onlyNow: true }));
          delete changes.planId;
        }
        const updated =
          Object.keys(changes).length > 0
            ? unwrap(await accounts.updateAccount(account.id, changes))
            : unwrap(await accounts.describe(account.id));
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
        throw new ApiError(
          'unauthorized',
          'The operator API needs "Authorization: Bearer <FLIGHTSTATUS_ADMIN_TOKEN>"',
          {
            'www-authenticate': 'Bearer realm="flightstatus-admin"',
          },
        );
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
  if ((to - from) / DAY + 1 > MAX_USAGE_DAYS)
    throw new ApiError('invalid_request', `A usage report covers at most ${MAX_USAGE_DAYS} days`);
  return { from, to };
}

const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
