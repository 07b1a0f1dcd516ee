// The operator's plan catalogue (docs/billing.md): what a plan costs and includes. Money is integer:
// the monthly fee in the currency's minor units, the overage price per request in millionths of a
// minor unit.
import type { Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const plans: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('plans')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('monthly_fee_minor', 'bigint', (c) => c.notNull())
      .addColumn('included', 'integer', (c) => c.notNull())
      .addColumn('overage', 'integer', (c) => c.notNull())
      .addColumn('overage_price_micro_minor', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
});
