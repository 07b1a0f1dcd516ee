// Email (docs/mail.md): the outbox the worker sends from, and who asked for no more notices.
// - mail_outbox: one row per mail. `body` is the JSON of its parts (text, html, attachments as base64)
//   until it is sent; sending clears it (what was sent stays: to whom, what kind, its subject, when),
//   so invoices and links do not pile up in the database. `dedupe_key` makes a mail that must go
//   once (credits at 80 % of a window) a no-op the second time. State queued → sent, or failed after
//   its last retry; `lease_until` lets one worker of several take a row at a time.
// - mail_unsubscribes: an address that asked for no more mails of a category (only notices have one).
// - mail_unsubscribe_tokens: the SHA-256 of each unsubscribe link's token, with what it unsubscribes.
import type { Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const mail: DialectMigration = (dialect) => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('mail_outbox')
      // `seq` orders mails queued at the same service time (an invoice before its first decline).
      .addColumn('seq', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
        dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
      )
      .addColumn('id', 'text', (c) => c.notNull().unique())
      .addColumn('account_id', 'text')
      .addColumn('recipient', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('body', 'text')
      .addColumn('dedupe_key', 'text', (c) => c.unique())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('lease_until', 'bigint')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('sent_at', 'bigint')
      .execute();
    await db.schema.createIndex('mail_outbox_due').on('mail_outbox').columns(['state', 'next_attempt_at']).execute();
    await db.schema
      .createIndex('mail_outbox_account')
      .on('mail_outbox')
      .columns(['account_id', 'created_at'])
      .execute();
    await db.schema
      .createTable('mail_unsubscribes')
      .addColumn('recipient', 'text', (c) => c.notNull())
      .addColumn('category', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('mail_unsubscribes_pk', ['recipient', 'category'])
      .execute();
    await db.schema
      .createTable('mail_unsubscribe_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('recipient', 'text', (c) => c.notNull())
      .addColumn('category', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
  },
});
