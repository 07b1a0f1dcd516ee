// PostgreSQL: key lookups of one turn of the event loop share one named prepared statement
// (db/batcher.ts). Each row carries the key's and the account's row versions, which a credit
// statement can check (PrincipalVersion).
import type pg from 'pg';
import { TurnBatcher } from '../db/index.js';
import { PRINCIPAL_COLUMNS, PRINCIPAL_FROM, type KeyLookup, type PrincipalRow } from './principal.js';

export class PostgresKeyLookup implements KeyLookup {
  private readonly batcher: TurnBatcher<string, PrincipalRow>;

  constructor(pool: pg.Pool) {
    const text = `SELECT ${PRINCIPAL_COLUMNS}, k.xmin::text AS key_version, a.xmin::text AS account_version
                  ${PRINCIPAL_FROM} WHERE k.hash = ANY($1::text[])`;
    this.batcher = new TurnBatcher(async (hashes) => {
      const result = await pool.query<PrincipalRow>({ name: 'auth_find_keys', text, values: [hashes] });
      return new Map(result.rows.map((row) => [row.key_hash, row]));
    });
  }

  findByHash(hash: string): Promise<PrincipalRow | undefined> {
    return this.batcher.get(hash);
  }
}
