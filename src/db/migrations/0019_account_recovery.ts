// Account recovery and proof of address (docs/mail.md): one-time links sent by mail.
// - password_resets: a link to set a new password, valid an hour, used once. `id` is the SHA-256 of the
//   token in the link (as with sessions and API keys: a leaked table opens nothing).
// - email_verifications: a link that proves the user reads the address, valid a week.
// - users.email_verified_at: when the user's address was proven (null: not yet).
// - plans.self_service: the operator offers the plan for customers to switch to on the dashboard.
// - invites.role and invites.email: an owner invites a colleague by email with a role (owner,
//   developer, billing); the operator's invitations have neither and make owners.
import type { Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const accountRecovery: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('users').addColumn('email_verified_at', 'bigint').execute();
    await db.schema
      .alterTable('plans')
      .addColumn('self_service', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('invites').addColumn('role', 'text').execute();
    await db.schema.alterTable('invites').addColumn('email', 'text').execute();
    for (const table of ['password_resets', 'email_verifications']) {
      await db.schema
        .createTable(table)
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .execute();
      await db.schema.createIndex(`${table}_user`).on(table).column('user_id').execute();
    }
  },
});
