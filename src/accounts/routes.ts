// GET /api/v1/account (README.md, "The API"): the key and account behind the credential. Unmetered.
import { Type, type Static } from 'typebox';
import { iso } from '../clock.js';
import type { HttpServer } from '../http/server.js';
import { DateTime, Envelope, errors, withCreditHeaders } from '../http/schemas.js';
import type { MeteringService } from '../metering/index.js';
import { policyOf } from '../metering/index.js';

const PlanSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    currency: Type.String({ description: 'ISO 4217' }),
    monthlyFee: Type.String({ description: 'Decimal string, billed per 30-day window in advance' }),
    included: Type.Integer({ description: 'Requests included per window' }),
    overage: Type.Boolean({ description: 'Requests past the allowance are served and billed monthly' }),
    overagePrice: Type.Union([Type.String(), Type.Null()], { description: 'Price of one request past the allowance' }),
    pendingChange: Type.Union(
      [Type.Object({ planId: Type.String(), from: DateTime('When the next window starts on it') }), Type.Null()],
      {
        description: 'A plan change that takes effect at the next window',
      },
    ),
  },
  { additionalProperties: false },
);

/** A catalogue plan as the account call shows it (billing's PlansService gives it): the schema's type. */
export type PlanSummary = Omit<Static<typeof PlanSchema>, 'pendingChange'>;

export const AccountResponse = Envelope(
  Type.Object(
    {
      accountId: Type.String(),
      accountSlug: Type.String(),
      keyId: Type.String(),
      keyName: Type.String(),
      keyPrefix: Type.String({ description: 'The first characters of the key, to tell keys apart' }),
      unlimited: Type.Boolean({ description: 'Internal account: unmetered, never refused for credit' }),
      requestCount: Type.Integer({ description: 'Lifetime count of metered requests of the account' }),
      plan: Type.Union([PlanSchema, Type.Null()], {
        description: 'The catalogue plan of the current window; null on a custom allowance',
      }),
      credits: Type.Union(
        [
          Type.Object(
            {
              included: Type.Integer({ description: 'Requests included in the current window' }),
              used: Type.Integer({ description: 'Requests consumed in the current window' }),
              remaining: Type.Integer({ description: 'Requests left before the ceiling' }),
              overage: Type.Integer({ description: 'Requests taken beyond the allowance (overage plans only)' }),
              periodEnd: DateTime('When the current window closes and the allowance resets'),
            },
            { additionalProperties: false },
          ),
          Type.Null(),
        ],
        { description: 'Credit position of the current 30-day window; null on unlimited accounts' },
      ),
    },
    { additionalProperties: false, title: 'Account' },
  ),
  'The account and key behind the credential',
);

export function accountRoutes(
  app: HttpServer,
  deps: { metering: MeteringService; plans: { summary(id: string): Promise<PlanSummary | undefined> } },
): void {
  app.get(
    '/api/v1/account',
    {
      config: { access: 'key' },
      schema: {
        summary: 'Inspect the account and key behind the credential',
        description: 'Unmetered: costs no credit. Carries the credit headers.',
        tags: ['account'],
        security: [{ bearer: [] }, { apiKey: [] }, { legacyApiKey: [] }],
        response: { 200: withCreditHeaders(AccountResponse), ...errors(401, 402, 403) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const position = request.credits!;
      const { planId } = policyOf(principal, position.window.start);
      const next = principal.account.nextPlan;
      const summary = planId === null ? undefined : await deps.plans.summary(planId);
      const plan = summary
        ? {
            ...summary,
            pendingChange: next && next.from > position.window.start ? { planId: next.id, from: iso(next.from) } : null,
          }
        : null;
      return {
        success: true as const,
        data: {
          accountId: principal.account.id,
          accountSlug: principal.account.slug,
          keyId: principal.keyId,
          keyName: principal.keyName,
          keyPrefix: principal.keyPrefix,
          unlimited: principal.account.unlimited,
          requestCount: await deps.metering.requestCount(principal.account.id),
          plan,
          credits:
            position.included === null
              ? null
              : {
                  included: position.included,
                  used: position.used,
                  remaining: position.remaining ?? 0,
                  overage: position.overage,
                  periodEnd: iso(position.window.end),
                },
        },
      };
    },
  );
}
