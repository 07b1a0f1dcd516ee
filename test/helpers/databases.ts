// Real, isolated databases for tests: a fresh SQLite file per call, and, when TEST_DATABASE_URL
// names a PostgreSQL server, a fresh PostgreSQL database per call (dropped afterwards). Empty, or
// (`migrated`) a copy of the run's template, migrated once in the global setup.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, inject, it } from 'vitest';
import type { DatabaseTarget } from '../../src/config.js';
import { openDatabase } from '../../src/db/index.js';
import { withDefaultUser } from '../../src/db/postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's migrated templates: a SQLite file, and a PostgreSQL database when there is a server. */
    databaseTemplates: { sqlite: string; postgres: string | null };
  }
}

export type DatabaseKind = DatabaseTarget['kind'];

export interface TestDatabase {
  kind: DatabaseKind;
  url: string;
  target: DatabaseTarget;
  drop(): Promise<void>;
}

const POSTGRES_URL = process.env.TEST_DATABASE_URL?.trim() || undefined;

/**
 * SQLite always; PostgreSQL too when a test database URL is given (CI gives it). TEST_DATABASES
 * (`sqlite`, `postgres`, or both, comma-separated) narrows the tests that run once per database to
 * those: CI runs every such test on SQLite on one Node version and on PostgreSQL on the other (.ci/run).
 */
export const DATABASE_KINDS: DatabaseKind[] = databaseKinds();

function databaseKinds(): DatabaseKind[] {
  const available: DatabaseKind[] = POSTGRES_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  const asked = process.env.TEST_DATABASES?.split(',')
    .map((kind) => kind.trim())
    .filter((kind) => kind !== '');
  if (!asked || asked.length === 0) return available;
  const unknown = asked.filter((kind) => !(['sqlite', 'postgres'] as string[]).includes(kind));
  if (unknown.length > 0) throw new Error(`TEST_DATABASES: ${unknown.join(', ')} is not a database (sqlite, postgres)`);
  if (asked.includes('postgres') && !POSTGRES_URL)
    throw new Error('TEST_DATABASES asks for postgres, but TEST_DATABASE_URL is not set');
  return available.filter((kind) => asked.includes(kind));
}

/**
 * `describe` and `it` for the tests of test/ that choose no database (the CLI, whole service processes
 * on SQLite, help, the system clock): CI's second half (.ci/run: TEST_SCOPE=second-node, Node 24 with
 * the tests that choose one on PostgreSQL) skips them, the first ran them on Node 20. The unit tests
 * under src/ run on both Nodes. They were a fifth of the second half's time.
 */
const SECOND_NODE = process.env.TEST_SCOPE?.trim() === 'second-node';
export const describeWithoutDatabase = SECOND_NODE ? describe.skip : describe;
export const itWithoutDatabase = SECOND_NODE ? it.skip : it;

/** `describe` once per database kind, named after it. */
export function describeEachDatabase(name: string, body: (kind: DatabaseKind) => void): void {
  for (const kind of DATABASE_KINDS) describe(`${name} [${kind}]`, () => body(kind));
}

export interface CreateOptions {
  /**
   * A copy of the run's template, every migration applied, with an identity of its own (test apps;
   * tests of migrating and of starting on an empty database leave it off).
   */
  migrated?: boolean;
}

export async function createTestDatabase(kind: DatabaseKind, options: CreateOptions = {}): Promise<TestDatabase> {
  const template = options.migrated ? inject('databaseTemplates')[kind] : null;
  if (options.migrated && !template) throw new Error('TEST_DATABASE_URL is not set');
  let database: TestDatabase;
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'flightstatus-test-'));
    const path = join(dir, 'test.db');
    if (template) copyFileSync(template, path);
    database = {
      kind,
      url: `sqlite:${path}`,
      target: { kind, path, url: `sqlite:${path}` },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  } else {
    if (!POSTGRES_URL) throw new Error('TEST_DATABASE_URL is not set');
    const name = `flightstatus_test_${randomBytes(6).toString('hex')}`;
    await withAdmin(async (client) => {
      await client.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
      // Commits that do not wait for the WAL's fsync (a copy does not inherit this): the suite commits
      // tens of thousands of times (a month on the manual clock alone runs 720 hourly billing slots,
      // each claimed and finished in its own commit), and only a crash of the PostgreSQL server itself,
      // which no test causes, could lose one. A killed service process loses nothing either way.
      await client.query(`ALTER DATABASE ${name} SET synchronous_commit = off`);
    });
    database = {
      kind,
      url: postgresUrl(name),
      target: { kind, url: postgresUrl(name) },
      drop: () => withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
    };
  }
  // Every database has its own id (migration 0007): two copies of one template must not look alike.
  if (template) await newIdentity(database.target);
  return database;
}

/** Migrates the run's templates (the global setup); `drop` removes them at the end of the run. */
export async function createTemplates(): Promise<{
  names: { sqlite: string; postgres: string | null };
  drop: () => Promise<void>;
}> {
  const sqlite = await createTestDatabase('sqlite');
  const postgres = POSTGRES_URL ? await createTestDatabase('postgres') : null;
  try {
    for (const database of [sqlite, postgres]) {
      if (database) await (await openDatabase(database.target, { migrate: true })).close();
    }
  } catch (error) {
    await Promise.all([sqlite.drop(), postgres?.drop()]);
    throw error;
  }
  return {
    names: {
      sqlite: sqlite.target.kind === 'sqlite' ? sqlite.target.path : '',
      postgres: postgres ? new URL(postgres.url).pathname.slice(1) : null,
    },
    drop: async () => void (await Promise.all([sqlite.drop(), postgres?.drop()])),
  };
}

async function newIdentity(target: DatabaseTarget): Promise<void> {
  const db = await openDatabase(target);
  try {
    await db.kysely
      .updateTable('database_identity')
      .set({ id: `db_${randomBytes(12).toString('base64url')}` })
      .execute();
  } finally {
    await db.close();
  }
}

function postgresUrl(name: string): string {
  const url = new URL(POSTGRES_URL!);
  url.pathname = `/${name}`;
  return url.toString();
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
