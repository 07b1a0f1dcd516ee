// Billing (docs/billing.md): an account's subscription to a catalogue plan, the overage record on
// each usage row, invoices with their lines, the gapless invoice counter, the record of every
// billing state change, and the months the invoicing job has closed.
// - accounts.plan_id: the catalogue plan in effect (its allowance is copied into plan_included and
//   plan_overage, which the admission reads; plans never change once created). next_plan_*: a change
//   waiting for the window that starts at next_plan_from, its allowance copied the same way; the
//   admission applies it from that window on by itself, so no job has to run at the boundary.
// - usage_log.overage = 1 marks a request served past the allowance, written by the same statement
//   that took its credit; usage_log.plan_id says which plan priced it. The partial index keeps the
//   month's scan to the overage rows.
// - invoices are unique per account, kind and period: the invoicing job, run twice or on two
//   processes at once, stores each invoice once. number stays null while a draft and is taken from
//   invoice_numbers in the same transaction that opens the invoice, so numbers have no gaps.
import { sql, type Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const billing: DialectMigration = (dialect) => ({
  async up(db: Kysely<any>) {
    for (const [column, type] of [
      ['plan_id', 'text'],
      ['next_plan_id', 'text'],
      ['next_plan_from', 'bigint'],
      ['next_plan_included', 'integer'],
      ['next_plan_overage', 'integer'],
      ['gateway_customer', 'text'],
      ['payment_method', 'text'],
    ] as const) {
      await db.schema.alterTable('accounts').addColumn(column, type).execute();
    }
    await db.schema
      .alterTable('usage_log')
      .addColumn('overage', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('usage_log').addColumn('plan_id', 'text').execute();
    await db.schema
      .createIndex('usage_log_overage_at')
      .on('usage_log')
      .columns(['at', 'account_id'])
      .where(sql.ref('overage'), '=', 1)
      .execute();

    await db.schema
      .createTable('invoices')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('number', 'integer', (c) => c.unique())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('period_start', 'bigint', (c) => c.notNull())
      .addColumn('period_end', 'bigint', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('total_minor', 'bigint', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'bigint')
      .addColumn('overdue', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('gateway_ref', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('finalized_at', 'bigint')
      .addColumn('paid_at', 'bigint')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('invoices_account_period', ['account_id', 'kind', 'period_start'])
      .execute();
    await db.schema.createIndex('invoices_state_due').on('invoices').columns(['state', 'next_attempt_at']).execute();
    await db.schema
      .createIndex('invoices_account_created')
      .on('invoices')
      .columns(['account_id', 'created_at'])
      .execute();

    await db.schema
      .createTable('invoice_lines')
      // No foreign key: lines are written only with their invoice, in its transaction. A key's check
      // on PostgreSQL is a cached plan that, with `invoices` analysed while small, scans the table
      // for every line: quadratic in a month's invoices (docs/performance.md, "Invoicing").
      .addColumn('invoice_id', 'text', (c) => c.notNull())
      .addColumn('line', 'integer', (c) => c.notNull())
      .addColumn('plan_id', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('quantity', 'bigint', (c) => c.notNull())
      .addColumn('unit_price_micro_minor', 'bigint', (c) => c.notNull())
      .addColumn('amount_minor', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('invoice_lines_pk', ['invoice_id', 'line'])
      .execute();

    await db.schema
      .createTable('invoice_numbers')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('last', 'integer', (c) => c.notNull())
      .execute();
    await db.insertInto('invoice_numbers').values({ id: 'invoice', last: 0 }).execute();

    await db.schema
      .createTable('billing_events')
      .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
        dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
      )
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('invoice_id', 'text')
      /** 'invoice' (its state), 'account' (the subscription's state), 'charge' (one attempt), 'plan' (a plan change). */
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('from_state', 'text')
      .addColumn('to_state', 'text', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('billing_events_account_at')
      .on('billing_events')
      .columns(['account_id', 'at'])
      .execute();
    await db.schema.createIndex('billing_events_invoice').on('billing_events').column('invoice_id').execute();

    await db.schema
      .createTable('billing_runs')
      .addColumn('period_start', 'bigint', (c) => c.primaryKey())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('finished_at', 'bigint')
      .addColumn('invoices', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
});
