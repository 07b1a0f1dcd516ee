// The kept board rows on PostgreSQL (dialect.ts chooses them): reads built by Kysely, and the write
// in multi-row statements in one transaction.
import type { PostgresDatabase } from '../db/index.js';
import type { ObservedDialect } from './observed-shapes.js';

/** Rows written per statement. */
const CHUNK = 400;

export function postgresObserved({ kysely }: PostgresDatabase): ObservedDialect {
  return {
    reads: {
      keptHours: (airport, from, to) =>
        kysely
          .selectFrom('kept_hours')
          .select(['from_at', 'to_at'])
          .where('airport', '=', airport)
          .where('to_at', '>', from)
          .where('from_at', '<', to)
          .orderBy('from_at')
          .execute(),
      around: (airport, from, to) =>
        kysely
          .selectFrom('observed_flights')
          .select(['board', 'airport', 'row'])
          .where('airport', '=', airport)
          .where('scheduled_at', '>=', from)
          .where('scheduled_at', '<', to)
          .execute(),
      aircraft: (registration, from, to) =>
        kysely
          .selectFrom('observed_flights')
          .select(['board', 'airport', 'row'])
          .where('registration', '=', registration)
          .where('scheduled_at', '>=', from)
          .where('scheduled_at', '<', to)
          .execute(),
    },
    write: async (values, day) => {
      await kysely.transaction().execute(async (trx) => {
        for (let i = 0; i < values.length; i += CHUNK) {
          await trx
            .insertInto('observed_flights')
            .values(values.slice(i, i + CHUNK))
            .onConflict((oc) =>
              oc.columns(['board', 'airport', 'flight', 'scheduled_at']).doUpdateSet((eb) => ({
                row: eb.ref('excluded.row'),
                seen_at: eb.ref('excluded.seen_at'),
                registration: eb.ref('excluded.registration'),
              })),
            )
            .execute();
        }
        if (day)
          await trx
            .insertInto('airport_days')
            .values(day)
            .onConflict((oc) => oc.columns(['airport', 'date']).doNothing())
            .execute();
      });
    },
  };
}
