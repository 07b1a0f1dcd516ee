// A rotated webhook secret that keeps signing for a while (docs/webhooks.md, "Rotating the secret"):
// the secret before the last rotation, sealed as the current one is, and until when attempts are
// also signed with it. Both NULL when the last rotation ended the old secret at once (or there was none).
import type { Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const secretOverlap: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('endpoints').addColumn('previous_secret', 'text').execute();
    await db.schema.alterTable('endpoints').addColumn('previous_secret_until', 'bigint').execute();
  },
});
