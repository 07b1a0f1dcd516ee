// Following watched flights nobody's boards show, and settling watches by their flight's own times
// (docs/watches.md, "Followed through the providers" and "Settled").
// - followed_flights: one row per flight (as a watch asks it) that no polled board shows, followed by
//   asking the flight provider on a schedule its phase sets (src/watches/follow.ts). `state` is what
//   the last answers showed (JSON: each end's board-engine memory, the last answer, the back-off);
//   `version` makes a write compare-and-set, so two workers that read the same state store one
//   change; `next_at` is when it is asked again.
// - follow_requests: provider requests made for following, per hour, globally ('*') and per account:
//   the budgets of FLIGHTSTATUS_FOLLOW_REQUESTS_PER_HOUR and FLIGHTSTATUS_FOLLOW_ACCOUNT_REQUESTS_PER_HOUR.
// - flight_watches.settle_at / settle_checks: when the settle job next asks about the watch (set from
//   the flight's own arrival, or the back-off after an incomplete record), and how often it asked.
import type { Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const followedFlights: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('followed_flights')
      .addColumn('flight_key', 'text', (c) => c.primaryKey())
      .addColumn('flight_number', 'text', (c) => c.notNull())
      .addColumn('flight_date', 'text', (c) => c.notNull())
      .addColumn('date_basis', 'text', (c) => c.notNull())
      .addColumn('origin', 'text')
      .addColumn('destination', 'text')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('next_at', 'bigint')
      .addColumn('requests', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('followed_flights_next').on('followed_flights').columns(['next_at']).execute();
    await db.schema
      .createTable('follow_requests')
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('hour', 'bigint', (c) => c.notNull())
      .addColumn('requests', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('follow_requests_pk', ['scope', 'hour'])
      .execute();
    await db.schema.alterTable('flight_watches').addColumn('settle_at', 'bigint').execute();
    await db.schema
      .alterTable('flight_watches')
      .addColumn('settle_checks', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
});
