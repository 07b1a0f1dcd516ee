// The key lookup runs on every authenticated request, so it is a statement prepared once per
// process (run inside the SQLite group transaction) or a named prepared statement on PostgreSQL,
// shared by the lookups of one turn of the event loop; not a Kysely query.
import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import { TurnBatcher, type Database, type SqliteGroup } from '../db/index.js';
import { PRINCIPAL_COLUMNS, PRINCIPAL_FROM, type PrincipalRow } from './principal.js';

export interface KeyLookup {
  findByHash(hash: string): Promise<PrincipalRow | undefined>;
}

export class SqliteKeyLookup implements KeyLookup {
  private readonly statement: BetterSqlite3.Statement<[string], PrincipalRow>;

  constructor(
    db: BetterSqlite3.Database,
    private readonly group: SqliteGroup,
  ) {
    this.statement = db.prepare(`SELECT ${PRINCIPAL_COLUMNS} ${PRINCIPAL_FROM} WHERE k.hash = ?`);
  }

  findByHash(hash: string): Promise<PrincipalRow | undefined> {
    return this.group.run(() => this.findByHashNow(hash));
  }

  /** Synchronous; only for work already running inside the group transaction. */
  findByHashNow(hash: string): PrincipalRow | undefined {
    return this.statement.get(hash);
  }
}

/**
 * Key lookups of one turn of the event loop share one statement (db/batcher.ts). Each row carries
 * the key's and the account's row versions, which a credit statement can check (PrincipalVersion).
 */
class PostgresKeyLookup implements KeyLookup {
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

export function createKeyLookup(db: Database): KeyLookup {
  return db.kind === 'sqlite' ? new SqliteKeyLookup(db.sqlite, db.group) : new PostgresKeyLookup(db.pool);
}
