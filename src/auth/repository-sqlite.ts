// SQLite: the key lookup is a statement prepared once per process, run inside the group transaction
// (db/sqlite-group.ts); the admission gate runs it synchronously within its own group item.
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteGroup } from '../db/index.js';
import { PRINCIPAL_COLUMNS, PRINCIPAL_FROM, type KeyLookup, type PrincipalRow } from './principal.js';

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
