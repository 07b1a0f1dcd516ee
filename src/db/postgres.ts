// PostgreSQL through node-postgres: one pool per process shared by Kysely and the hot paths'
// named prepared statements.
import { createHash } from 'node:crypto';
import { userInfo } from 'node:os';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import type { PostgresDatabase } from './dialect.js';

// int8 (bigint) columns hold epoch milliseconds and counters, far below 2^53: read them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value));

const CONNECT_TIMEOUT_MS = 5000;

/**
 * `size`: the most connections the pool opens (FLIGHTSTATUS_DB_POOL_SIZE; several processes share one
 * server). A caller waits for one at most CONNECT_TIMEOUT_MS, then gets "timeout exceeded when trying
 * to connect"; work that may wait longer waits in a ConnectionShare (share.ts) instead.
 */
export function openPostgres(
  url: string,
  size: number,
  onIdleError: (error: Error) => void,
  name = 'flightstatus',
): pg.Pool {
  const pool = new pg.Pool({
    connectionString: withDefaultUser(url),
    max: size,
    // Connections once opened stay open. Closed after 30 s idle, as before, every 2-minute delivery
    // cycle met a pool to open again: a new backend per connection, and each of the statements
    // prepared per connection (prepared.ts) planned again, in the cycle's first seconds, on the
    // same cores that serve the API. Only connections beyond `min` close when idle.
    min: size,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    application_name: name,
  });
  // An idle client losing its server emits here; without a listener it would crash the process.
  pool.on('error', onIdleError);
  // A client checked out (Kysely's, between two statements of a transaction; readiness's write probe)
  // whose server goes away emits 'error' on itself, where the pool no longer listens: without a
  // listener of its own that too is an uncaught exception. Nothing is lost by listening: the statement
  // it runs next fails and is reported where it was asked, and the pool drops the client on release
  // (it is no longer queryable). Seen when readiness's test cut the database's sessions.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** Like libpq (psql): without a user in the URL or PGUSER, connect as the operating-system user. */
export function withDefaultUser(url: string): string {
  const parsed = new URL(url);
  if (parsed.username !== '' || process.env.PGUSER || parsed.searchParams.has('user')) return url;
  parsed.username = encodeURIComponent(userInfo().username);
  return parsed.toString();
}

/** atomically() (atomic.ts) on PostgreSQL: one transaction. */
export function postgresAtomically(db: PostgresDatabase, queries: readonly CompiledQuery[]): Promise<number[]> {
  return db.kysely.transaction().execute(async (trx) => {
    const changed: number[] = [];
    for (const query of queries) changed.push(Number((await trx.executeQuery(query)).numAffectedRows ?? 0));
    return changed;
  });
}

/** firstWithoutRow() (atomic.ts) on PostgreSQL: one transaction, rolled back by the throw. */
export async function postgresFirstWithoutRow(
  db: PostgresDatabase,
  text: string,
  runs: readonly unknown[][],
): Promise<number | null> {
  let n = 0;
  const numbered = text.replace(/\?/g, () => `$${++n}`);
  const undo = new Error('no row');
  let missing: number | null = null;
  try {
    await db.kysely.transaction().execute(async (trx) => {
      for (const [i, values] of runs.entries()) {
        const { rows } = await trx.executeQuery(CompiledQuery.raw(numbered, values));
        if (rows.length > 0) continue;
        missing = i;
        throw undo;
      }
    });
  } catch (error) {
    if (error !== undo) throw error;
  }
  return missing;
}

/** probeWrite() (probe.ts) on PostgreSQL: a read-only session (a standby, default_transaction_read_only) is refused. */
export async function postgresProbeWrite(db: PostgresDatabase): Promise<void> {
  const { rows } = await db.pool.query<{ read_only: string }>(
    "SELECT current_setting('transaction_read_only') AS read_only",
  );
  if (rows[0]?.read_only === 'on')
    throw new Error('the session is read-only (a standby, or default_transaction_read_only is on)');
}

/**
 * prepared() (prepared.ts) on PostgreSQL: a named statement, so each connection parses and plans the
 * text once. The name is the text's hash. A statement whose result columns changed under it (a newer
 * version's migration added a column to a table it returns `*` of) fails with "cached plan must not
 * change result type" on every later run on that connection: such a text runs unnamed from then on,
 * as does every run of a text asked to be planned each time (`plan: 'each'`).
 */
export async function postgresPrepared<Row>(
  db: PostgresDatabase,
  query: CompiledQuery,
  plan: 'once' | 'each' = 'once',
): Promise<{ rows: Row[]; changed: number }> {
  const values = query.parameters as unknown[];
  if (plan === 'once' && !unnamed.has(query.sql)) {
    const name = `q_${createHash('sha256').update(query.sql).digest('hex').slice(0, 24)}`;
    try {
      const result = await db.pool.query({ name, text: query.sql, values });
      return { rows: result.rows as Row[], changed: result.rowCount ?? 0 };
    } catch (error) {
      if ((error as { code?: string }).code !== '0A000') throw error;
      unnamed.add(query.sql);
    }
  }
  const result = await db.pool.query({ text: query.sql, values });
  return { rows: result.rows as Row[], changed: result.rowCount ?? 0 };
}

const unnamed = new Set<string>();
