// A random id stored once in each database, so two processes can tell whether they opened the same
// database however each addressed it (a relative or absolute SQLite path, localhost or 127.0.0.1):
// the CLI compares its database's id with the one the running service reports and refuses to write
// to a different database (docs/decisions.md, "Operator API and CLI").
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

export const databaseIdentity: DialectMigration = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('database_identity')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .execute();
    await db
      .insertInto('database_identity')
      .values({ id: `db_${randomBytes(12).toString('base64url')}` })
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('database_identity').execute();
  },
});
