// GET /api/v1/account (spec 2.2, 4.2): the key and account behind the credential. Unmetered.
import { Type } from 'typebox';
import { iso } from '../clock.js';
import type { HttpServer } from '../http/server.js';
import { DateTime, Envelope, errors, withCreditHeaders } from '../http/schemas.js';
import type { MeteringService } from '../metering/index.js';

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

export function accountRoutes(app: HttpServer, deps: { metering: MeteringService }): void {
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
