// GET /api/ready and the start-up check: a database the service cannot write, or one missing
// migrations, is not ready (503), and a SQLite file the service cannot write stops the start.
import { spawn } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import pg from 'pg';
import { withDefaultUser } from '../src/db/postgres.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, describeEachDatabase } from './helpers/databases.js';
import { json, startTestApp, type TestApp } from './helpers/app.js';
import { runCli, scratchDir } from './helpers/process.js';

describeEachDatabase('readiness probe', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp(kind);
  });
  afterEach(async () => t?.close());

  it('answers 200 without a key when the database is reachable, writable and migrated', async () => {
    const response = await t.get('/api/ready');
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ ok: true, service: 'flight-status-service' });
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('answers 503 not_writable while the database refuses writes, and 200 again after', async () => {
    const restore = await makeReadOnly();
    const response = await t.get('/api/ready');
    expect(response.statusCode).toBe(503);
    expect(json(response)).toEqual({
      ok: false,
      service: 'flight-status-service',
      reason: 'not_writable',
      message: 'the database cannot be written',
    });
    await restore();
    expect((await t.get('/api/ready')).statusCode).toBe(200);
    // The health probe, a liveness check, never looked at the database.
    expect((await t.get('/api/health')).statusCode).toBe(200);
  });

  it('answers 503 migrations_pending when the database lacks a migration this version needs', async () => {
    const last = await sql<{ name: string }>`SELECT max(name) AS name FROM kysely_migration`.execute(t.app.db.kysely);
    await sql`DELETE FROM kysely_migration WHERE name = ${last.rows[0]!.name}`.execute(t.app.db.kysely);
    const response = await t.get('/api/ready');
    expect(response.statusCode).toBe(503);
    expect(json(response)).toMatchObject({ ok: false, reason: 'migrations_pending' });
  });

  /** A real read-only database: SQLite's query_only on the service's connection; PostgreSQL's default_transaction_read_only. */
  async function makeReadOnly(): Promise<() => Promise<void>> {
    const db = t.app.db;
    if (db.kind === 'sqlite') {
      db.sqlite.pragma('query_only = ON');
      return async () => void db.sqlite.pragma('query_only = OFF');
    }
    const name = new URL(t.database.url).pathname.slice(1);
    // New sessions of this database are read-only; the pool's current ones are cut (from a session of
    // our own), so the service reconnects into a read-only one.
    const admin = new pg.Client({ connectionString: withDefaultUser(t.database.url) });
    await admin.connect();
    const setReadOnly = async (on: boolean) => {
      const dropped = new Promise<void>((resolve) => {
        const check = () => db.pool.totalCount === 0 && (db.pool.off('remove', check), resolve());
        db.pool.on('remove', check);
        check();
      });
      await admin.query(`ALTER DATABASE ${name} SET default_transaction_read_only = ${on ? 'on' : 'off'}`);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
      await dropped;
    };
    await setReadOnly(true);
    return async () => {
      await setReadOnly(false);
      await admin.end();
    };
  }
});

describe('start-up on a SQLite file the service cannot write', () => {
  it('refuses to start, with one line naming the path', async () => {
    const database = await createTestDatabase('sqlite');
    const path = database.target.kind === 'sqlite' ? database.target.path : '';
    try {
      expect((await runCli(['migrate'], { DATABASE_URL: database.url })).code).toBe(0);
      const cwd = scratchDir();
      chmodSync(cwd, 0o755);
      // Root writes any file whatever its mode, so as root the file is made read-only the way a
      // read-only mount does it: bound read-only onto itself in a mount namespace of the child's own
      // (its folder stays writable, so SQLite opens the file read-only and carries on, as for a user
      // without write permission). Anyone else: the file's mode.
      const asRoot = process.getuid?.() === 0;
      if (!asRoot) chmodSync(path, 0o444);
      const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
      const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const command = [process.execPath, main, 'serve'];
        const readOnlyMount = ['unshare', '--mount', 'sh', '-c', 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" "$0" && exec "$@"', path];
        const [file, ...args] = asRoot ? [...readOnlyMount, ...command] : command;
        const child = spawn(file!, args, {
          cwd,
          env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url, PORT: '0', LOG_LEVEL: 'silent' },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
        child.on('exit', (code) => resolve({ code, stderr }));
        // Spawning can fail outright: say so instead of waiting.
        child.on('error', (error) => resolve({ code: null, stderr: `spawn failed: ${error.message}` }));
      });
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(new RegExp(`^flightstatus: The database at sqlite:${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} cannot be written \\(attempt to write a readonly database\\)`)),
      ]);
    } finally {
      await database.drop();
    }
  });
});
