// Idempotency keys (docs/idempotency.md): the first answer to a POST sent with an Idempotency-Key,
// kept 24 hours per account and key, so a retry from any process gets that answer again.
import type { Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const idempotencyKeys: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('idempotency_keys')
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      // SHA-256 of method, path with query, and body: what "the same request" means.
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      // Null while the first request is still being answered.
      .addColumn('status', 'integer')
      .addColumn('content_type', 'text')
      .addColumn('body', 'text')
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'key'])
      .execute();
    await db.schema
      .createIndex('idempotency_keys_age')
      .on('idempotency_keys')
      .columns(['account_id', 'created_at'])
      .execute();
  },
});
