// Accounts, keys, credit windows and the usage log.
import type { Kysely } from 'kysely';
import type { DialectKind, DialectMigration } from '../migrate.js';

export const foundation: DialectMigration = (dialect: DialectKind) => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('accounts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('unlimited', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('billing_status', 'text', (c) => c.notNull().defaultTo('none'))
      .addColumn('plan_included', 'integer')
      .addColumn('plan_overage', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('window_anchor', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull().unique())
      .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();

    await db.schema
      .createTable('credit_windows')
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('window_start', 'bigint', (c) => c.notNull())
      .addColumn('used', 'integer', (c) => c.notNull())
      .addColumn('last_grant', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('credit_windows_pk', ['account_id', 'window_start'])
      .execute();

    await db.schema
      .createTable('usage_log')
      .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
        dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
      )
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('key_id', 'text', (c) => c.notNull())
      .addColumn('endpoint', 'text', (c) => c.notNull())
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('duration_ms', 'double precision', (c) => c.notNull())
      .addColumn('query', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('usage_log_account_at').on('usage_log').columns(['account_id', 'at']).execute();
    await db.schema.createIndex('usage_log_key_at').on('usage_log').columns(['key_id', 'at']).execute();
  },
});
