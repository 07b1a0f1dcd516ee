// Several statements as one unit on either dialect. Kysely's own transactions hold the connection
// across awaits, which on SQLite would stall the group transaction that shares the one connection;
// so on SQLite the compiled statements run inside one group item as a savepoint (all or nothing, the
// rest of the group unaffected), on PostgreSQL in a transaction.
import type BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';
import type { Database } from './index.js';

const statements = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();

function prepared(sqlite: BetterSqlite3.Database, text: string): BetterSqlite3.Statement {
  let cache = statements.get(sqlite);
  if (!cache) statements.set(sqlite, (cache = new Map()));
  let statement = cache.get(text);
  if (!statement) cache.set(text, (statement = sqlite.prepare(text)));
  return statement;
}

/** Runs the statements in order, all or nothing; resolves with the rows each one changed. */
export async function atomically(db: Database, queries: CompiledQuery[]): Promise<number[]> {
  if (db.kind === 'sqlite') {
    const { sqlite } = db;
    // Inside the group's transaction, better-sqlite3 turns this nested transaction into a savepoint.
    const unit = sqlite.transaction(() => queries.map((q) => prepared(sqlite, q.sql).run(...(q.parameters as unknown[])).changes));
    return db.group.run(() => unit());
  }
  return db.kysely.transaction().execute(async (trx) => {
    const changed: number[] = [];
    for (const query of queries) changed.push(Number((await trx.executeQuery(query)).numAffectedRows ?? 0));
    return changed;
  });
}
