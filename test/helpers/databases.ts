// Real, isolated databases for tests: a fresh SQLite file per call, and, when TEST_DATABASE_URL
// names a PostgreSQL server, a fresh PostgreSQL database per call (dropped afterwards).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe } from 'vitest';
import type { DatabaseTarget } from '../../src/config.js';
import { withDefaultUser } from '../../src/db/postgres.js';

export type DatabaseKind = DatabaseTarget['kind'];

export interface TestDatabase {
  kind: DatabaseKind;
  url: string;
  target: DatabaseTarget;
  drop(): Promise<void>;
}

const POSTGRES_URL = process.env.TEST_DATABASE_URL?.trim() || undefined;

/** SQLite always; PostgreSQL too when a test database URL is given (CI gives it). */
export const DATABASE_KINDS: DatabaseKind[] = POSTGRES_URL ? ['sqlite', 'postgres'] : ['sqlite'];

/** `describe` once per database kind, named after it. */
export function describeEachDatabase(name: string, body: (kind: DatabaseKind) => void): void {
  for (const kind of DATABASE_KINDS) describe(`${name} [${kind}]`, () => body(kind));
}

export async function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'flightstatus-test-'));
    const path = join(dir, 'test.db');
    return {
      kind,
      url: `sqlite:${path}`,
      target: { kind, path, url: `sqlite:${path}` },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (!POSTGRES_URL) throw new Error('TEST_DATABASE_URL is not set');
  const name = `flightstatus_test_${randomBytes(6).toString('hex')}`;
  await withAdmin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    kind,
    url: url.toString(),
    target: { kind, url: url.toString() },
    drop: () => withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
  };
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDefaultUser(POSTGRES_URL!) });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
