// PostgreSQL through node-postgres: one pool per process shared by Kysely and the hot paths'
// named prepared statements.
import { userInfo } from 'node:os';
import pg from 'pg';

// int8 (bigint) columns hold epoch milliseconds and counters, far below 2^53: read them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value));

/** Connections per process; several processes share one server, so keep it modest. */
const POOL_SIZE = 10;
const CONNECT_TIMEOUT_MS = 5000;

export function openPostgres(url: string, onIdleError: (error: Error) => void): pg.Pool {
  const pool = new pg.Pool({
    connectionString: withDefaultUser(url),
    max: POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    application_name: 'flightstatus',
  });
  // An idle client losing its server emits here; without a listener it would crash the process.
  pool.on('error', onIdleError);
  return pool;
}

/** Like libpq (psql): without a user in the URL or PGUSER, connect as the operating-system user. */
export function withDefaultUser(url: string): string {
  const parsed = new URL(url);
  if (parsed.username !== '' || process.env.PGUSER || parsed.searchParams.has('user')) return url;
  parsed.username = encodeURIComponent(userInfo().username);
  return parsed.toString();
}
