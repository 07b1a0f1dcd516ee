// A receiver's bad second must not cost it its events (docs/webhooks.md, "When a receiver fails").
// - endpoints.backoff_until: after a failed attempt the endpoint's other deliveries wait until then
//   (a short pause that grows with each counted failure, capped at the delivery cycle); null while it
//   answers.
// - deliveries.state 'skipped': an event observed while its endpoint was disabled, kept (not sent)
//   so that it can be resent; no column change is needed, the state is text on both dialects.
import type { Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const endpointBackoff: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('endpoints').addColumn('backoff_until', 'bigint').execute();
  },
});
