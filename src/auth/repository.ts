// The key lookup runs on every authenticated request, so it is a statement prepared once per
// process, run inside the SQLite group transaction, or a named prepared statement on PostgreSQL;
// not a Kysely query.
import type { Database } from '../db/index.js';
import { PRINCIPAL_SELECT, type PrincipalRow } from './principal.js';

export interface KeyLookup {
  findByHash(hash: string): Promise<PrincipalRow | undefined>;
}

export function createKeyLookup(db: Database): KeyLookup {
  if (db.kind === 'sqlite') {
    const statement = db.sqlite.prepare<[string], PrincipalRow>(`${PRINCIPAL_SELECT} WHERE k.hash = ?`);
    const { group } = db;
    return { findByHash: (hash) => group.run(() => statement.get(hash)) };
  }
  const text = `${PRINCIPAL_SELECT} WHERE k.hash = $1`;
  return {
    async findByHash(hash) {
      const result = await db.pool.query<PrincipalRow>({ name: 'auth_find_key', text, values: [hash] });
      return result.rows[0];
    },
  };
}
