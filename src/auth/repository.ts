// The key lookup runs on every authenticated request, so it is a statement prepared once per
// process (run inside the SQLite group transaction) or a named prepared statement on PostgreSQL;
// not a Kysely query.
import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import type { Database, SqliteGroup } from '../db/index.js';
import { PRINCIPAL_SELECT, type PrincipalRow } from './principal.js';

export interface KeyLookup {
  findByHash(hash: string): Promise<PrincipalRow | undefined>;
}

export class SqliteKeyLookup implements KeyLookup {
  private readonly statement: BetterSqlite3.Statement<[string], PrincipalRow>;

  constructor(
    db: BetterSqlite3.Database,
    private readonly group: SqliteGroup,
  ) {
    this.statement = db.prepare(`${PRINCIPAL_SELECT} WHERE k.hash = ?`);
  }

  findByHash(hash: string): Promise<PrincipalRow | undefined> {
    return this.group.run(() => this.findByHashNow(hash));
  }

  /** Synchronous; only for work already running inside the group transaction. */
  findByHashNow(hash: string): PrincipalRow | undefined {
    return this.statement.get(hash);
  }
}

class PostgresKeyLookup implements KeyLookup {
  private readonly text = `${PRINCIPAL_SELECT} WHERE k.hash = $1`;

  constructor(private readonly pool: pg.Pool) {}

  async findByHash(hash: string): Promise<PrincipalRow | undefined> {
    const result = await this.pool.query<PrincipalRow>({ name: 'auth_find_key', text: this.text, values: [hash] });
    return result.rows[0];
  }
}

export function createKeyLookup(db: Database): KeyLookup {
  return db.kind === 'sqlite' ? new SqliteKeyLookup(db.sqlite, db.group) : new PostgresKeyLookup(db.pool);
}
