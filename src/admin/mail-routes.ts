// GET /api/admin/v1/mail: what the service mailed, newest first: to whom, what kind, its subject, its
// state (queued, sent, failed) with the attempts and the last error, never the body. Filters: an
// account (id or slug), a state. How the operator sees that a mail server refuses, or who was told
// that an invoice is past due.
import { Type } from 'typebox';
import type { AccountsService } from '../accounts/index.js';
import { iso } from '../clock.js';
import { ApiError } from '../http/errors.js';
import { integerQuery } from '../http/validation.js';
import { Envelope, errors } from '../http/schemas.js';
import { envelope } from '../http/results.js';
import type { HttpServer } from '../http/server.js';
import type { MailService } from '../mail/index.js';
import { adminScope, common } from './routes.js';

const MailQuery = Type.Object(
  {
    account: Type.Optional(Type.String({ maxLength: 100, description: 'An account id or slug' })),
    state: Type.Optional(Type.String({ enum: ['queued', 'sent', 'failed'] })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'Default 50' })),
  },
  { additionalProperties: false },
);

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const MailRow = Type.Object({
  id: Type.String(),
  accountId: Nullable(Type.String()),
  to: Type.String(),
  kind: Type.String(),
  subject: Type.String(),
  state: Type.String(),
  attempts: Type.Integer(),
  lastError: Nullable(Type.String()),
  createdAt: Type.String(),
  sentAt: Nullable(Type.String()),
  nextAttemptAt: Nullable(Type.String()),
});

export function mailRoutes(
  app: HttpServer,
  deps: { adminToken: string; mail: MailService; accounts: AccountsService },
): void {
  adminScope(app, deps.adminToken, (admin) => {
    admin.get(
      '/api/admin/v1/mail',
      {
        preValidation: integerQuery('limit'),
        schema: {
          ...common,
          querystring: MailQuery,
          response: {
            200: Envelope(Type.Object({ enabled: Type.Boolean(), mails: Type.Array(MailRow) }), 'Mails, newest first'),
            ...errors(400, 401, 404),
          },
        },
      },
      async (request) => {
        const { account, state, limit } = request.query;
        let accountId: string | undefined;
        if (account !== undefined) {
          const found = await deps.accounts.find(account);
          if (!found) throw new ApiError('not_found', `No account ${JSON.stringify(account.slice(0, 60))}`);
          accountId = found.id;
        }
        const mails = await deps.mail.list({
          accountId,
          state: state as 'queued' | 'sent' | 'failed' | undefined,
          limit,
        });
        return envelope({
          enabled: deps.mail.enabled,
          mails: mails.map((m) => ({
            ...m,
            createdAt: iso(m.createdAt),
            sentAt: m.sentAt === null ? null : iso(m.sentAt),
            nextAttemptAt: m.nextAttemptAt === null ? null : iso(m.nextAttemptAt),
          })),
        });
      },
    );
  });
}
