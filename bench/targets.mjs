// Fresh databases for the benches: a SQLite file in a temporary folder, or a new PostgreSQL database
// on the server of BENCH_POSTGRES_URL (default: TEST_DATABASE_URL, else postgres://127.0.0.1:5432/test;
// "off" skips PostgreSQL). Each target gives its URL, the service's database config, and drop().
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const POSTGRES_BASE =
  process.env.BENCH_POSTGRES_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://127.0.0.1:5432/test';

/**
 * The configuration of a service the bench builds in its own process on `target`, on the manual clock,
 * to drive the board poll itself: `base` is loadConfig's reading (its environment the bench's), and
 * the delivery cycle is kept out of the way (once a year), so the poll alone is measured.
 */
export function pollOnlyConfig(base, target) {
  return {
    ...base,
    port: 0,
    database: target.database,
    clock: { kind: 'manual', start: null },
    webhooks: {
      intervalMs: 365 * 86_400_000,
      timeoutMs: 10_000,
      allowHttp: false,
      allowPrivate: false,
      secretKey: Buffer.alloc(32, 0xbe),
      concurrency: 64,
      perEndpoint: 8,
    },
  };
}

export function sqliteTarget() {
  const dir = mkdtempSync(join(tmpdir(), 'flightstatus-bench-'));
  const path = join(dir, 'bench.db');
  return {
    url: `sqlite:${path}`,
    database: { kind: 'sqlite', path, url: `sqlite:${path}` },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A new PostgreSQL database, or null (with a line on stderr) when the server does not answer. */
export async function postgresTarget(prefix = 'flightstatus_bench') {
  if (POSTGRES_BASE === 'off') return null;
  const adminUrl = new URL(POSTGRES_BASE);
  if (adminUrl.username === '' && !process.env.PGUSER) adminUrl.username = userInfo().username;
  const name = `${prefix}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  try {
    await admin(adminUrl.toString(), `CREATE DATABASE ${name}`);
  } catch (error) {
    console.error(`PostgreSQL at ${POSTGRES_BASE} not reachable (${error.message}); skipping it`);
    return null;
  }
  const url = new URL(adminUrl.toString());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    database: { kind: 'postgres', url: url.toString() },
    drop: () => admin(adminUrl.toString(), `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function admin(url, statement) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** An endpoint row written straight into the database (the poll benches need no receiver): `airports` selected, at `now`. */
export const benchEndpoint = (accountId, id, name, airports, now) => ({
  id,
  account_id: accountId,
  name,
  url: 'https://bench.test',
  airports: JSON.stringify(airports),
  enabled: 1,
  secret: 'whsec_bench',
  consecutive_failures: 0,
  created_at: now,
  updated_at: now,
});
