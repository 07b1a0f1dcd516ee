// The dashboard's people (docs/dashboard.md): users who sign in with an email and a password and act
// for an account, their sessions, the operator's one-time invitations, and the sign-in throttle.
// - users.role is 'owner' for now; several users of one account are rows with the same account_id.
// - sessions.id and invites.id are SHA-256 hashes of the random tokens the browser holds: a leaked
//   table gives no way in, as with API keys.
// - signin_throttle: failed sign-ins per email (hashed) and per client address, shared by every
//   process, so a lock-out holds on every host.
// - refusals: metered requests refused before any credit was taken (allowance used up, no active
//   plan, disabled key or account), counted per account, UTC day and status: they have no usage row,
//   and the dashboard's chart shows them beside the answered ones.
// - delivery_attempts: one row per attempt of a webhook delivery (its answer or error and how long it
//   took), written with the delivery's own update, so the dashboard can show a delivery's attempts.
import type { Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const users: DialectMigration = (dialect) => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('users')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('users_account').on('users').column('account_id').execute();

    await db.schema
      .createTable('sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();

    await db.schema
      .createTable('invites')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute();

    await db.schema
      .createTable('signin_throttle')
      .addColumn('bucket', 'text', (c) => c.primaryKey())
      .addColumn('failures', 'integer', (c) => c.notNull())
      .addColumn('last_failure_at', 'bigint', (c) => c.notNull())
      .addColumn('locked_until', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('delivery_attempts')
      .addColumn('seq', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
        dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
      )
      .addColumn('delivery_id', 'text', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('status', 'integer')
      .addColumn('error', 'text')
      .addColumn('duration_ms', 'double precision', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('refusals')
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('day', 'bigint', (c) => c.notNull())
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('count', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('refusals_pk', ['account_id', 'day', 'status'])
      .execute();
    await db.schema
      .createIndex('delivery_attempts_delivery')
      .on('delivery_attempts')
      .columns(['delivery_id', 'attempt'])
      .execute();
  },
});
