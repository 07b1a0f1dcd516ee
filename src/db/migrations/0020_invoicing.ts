// Invoices a business can book (docs/billing.md, "Invoices a business can book").
// - account_billing: the buyer's details per account (legal name, address, country, VAT id, billing
//   email), edited by the customer on the dashboard and by the operator through the API and CLI.
// - invoices: what an invoice states is frozen when it opens (takes its number), so it never changes
//   after it is issued: the seller and the buyer as they were (JSON), the tax treatment, rate and
//   country, the net amount and the tax (total_minor is from then on the amount owed, tax included),
//   and the due date. Invoices opened before this migration have none of it (null: shown as issued).
// - credit_notes: a refund or a correction of an issued invoice, numbered from its own counter
//   (invoice_numbers row `credit_note`), in the same way as invoices: no gaps.
// - accounts.cancel_at: a cancellation the customer asked for, effective at the end of the window.
import type { Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const invoicing: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('account_billing')
      .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
      .addColumn('name', 'text')
      .addColumn('address', 'text')
      .addColumn('country', 'text')
      .addColumn('vat_id', 'text')
      .addColumn('email', 'text')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    for (const [column, type] of [
      ['net_minor', 'bigint'],
      ['tax_minor', 'bigint'],
      ['tax_treatment', 'text'],
      ['tax_rate_bp', 'integer'],
      ['tax_country', 'text'],
      ['due_at', 'bigint'],
      ['seller_json', 'text'],
      ['buyer_json', 'text'],
    ] as const) {
      await db.schema.alterTable('invoices').addColumn(column, type).execute();
    }
    await db.schema
      .createTable('credit_notes')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('number', 'integer', (c) => c.notNull().unique())
      .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id'))
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('net_minor', 'bigint', (c) => c.notNull())
      .addColumn('tax_minor', 'bigint', (c) => c.notNull())
      .addColumn('total_minor', 'bigint', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('credit_notes_invoice').on('credit_notes').column('invoice_id').execute();
    await db.schema
      .createIndex('credit_notes_account')
      .on('credit_notes')
      .columns(['account_id', 'created_at'])
      .execute();
    await db.insertInto('invoice_numbers').values({ id: 'credit_note', last: 0 }).execute();
    await db.schema.alterTable('accounts').addColumn('cancel_at', 'bigint').execute();
  },
});
