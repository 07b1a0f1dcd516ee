// GET /api/ready and the start-up check: a database the service cannot write, or one missing
// migrations, is not ready (503), and a SQLite file the service cannot write stops the start.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import pg from 'pg';
import { withDefaultUser } from '../src/db/postgres.js';
import { createLogger } from '../src/logger.js';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createTestDatabase, describeEachDatabase, describeWithoutDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';
import { runCli, scratchDir } from './helpers/process.js';

describeWithoutDatabase('probes in the log', () => {
  it('logs the liveness and readiness probes only above info, and other requests as before', async () => {
    let logged = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logged += String(chunk);
        done();
      },
    });
    const t = await startTestApp('sqlite', { logger: createLogger('info', sink) });
    try {
      for (let i = 0; i < 3; i++) {
        expect((await t.get('/api/health')).statusCode).toBe(200);
        expect((await t.get('/api/ready')).statusCode).toBe(200);
      }
      expect(logged).not.toContain('/api/health');
      expect(logged).not.toContain('/api/ready');
      expect((await t.get('/api/v1/webhooks')).statusCode).toBe(401);
      expect(logged).toContain('/api/v1/webhooks');
    } finally {
      await t.close();
    }
  });
});

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

  it('answers 503 not_writable with the first metered request refused for want of space, and 200 once a write fits again', async () => {
    const { key } = await t.account({ plan: { included: 1000 } });
    expect((await t.get('/api/ready')).statusCode).toBe(200);
    const restore = await fillDatabase();
    // Charged requests (a bad date is a 400 that costs a credit) with long queries, each writing its
    // usage row, until one cannot be written: 503, no credit.
    const url = `/api/v1/flights/status?flightNumber=W63101&flightDate=bad&note=${'n'.repeat(1800)}`;
    let refused = false;
    for (let i = 0; i < 200 && !refused; i++) {
      const response = await t.get(url, bearer(key));
      if (response.statusCode === 503) refused = true;
      else expect(response.statusCode).toBe(400);
    }
    expect(refused).toBe(true);
    // At once, not at some later probe: the very next readiness answer says so.
    const ready = await t.get('/api/ready');
    expect(ready.statusCode).toBe(503);
    expect(json(ready)).toEqual({
      ok: false,
      service: 'flight-status-service',
      reason: 'not_writable',
      message: 'the database cannot be written',
    });
    expect((await t.get('/api/ready')).statusCode).toBe(503); // its own retry needs space too
    expect((await t.get(url, bearer(key))).statusCode).toBe(503);

    await restore();
    expect((await t.get('/api/ready')).statusCode).toBe(200);
    expect((await t.get(url, bearer(key))).statusCode).toBe(400);
    // The probe's row is gone: the usage log holds only the requests' rows.
    const probes = await sql<{
      n: number;
    }>`SELECT count(*) AS n FROM usage_log WHERE endpoint = 'readiness probe'`.execute(t.app.db.kysely);
    expect(Number(probes.rows[0]!.n)).toBe(0);
  });

  // Issue 42: a worker's batches once held every connection and its /api/ready stopped answering.
  // Readiness asks through a connection of its own, so work holding the pool does not hold it up.
  it.runIf(kind === 'postgres')('answers at once while every connection of the pool is held', async () => {
    const db = t.app.db;
    if (db.kind !== 'postgres') return;
    expect(db.poolSize).toBe(10);
    const held = await Promise.all(Array.from({ length: db.poolSize }, () => db.pool.connect()));
    try {
      expect(db.pool.totalCount).toBe(db.poolSize);
      const began = performance.now();
      const response = await t.get('/api/ready');
      expect(json(response)).toEqual({ ok: true, service: 'flight-status-service' });
      expect(performance.now() - began).toBeLessThan(2_000);
    } finally {
      for (const client of held) client.release();
    }
  });

  it('answers 503 migrations_pending when the database lacks a migration this version needs', async () => {
    const last = await sql<{ name: string }>`SELECT max(name) AS name FROM kysely_migration`.execute(t.app.db.kysely);
    await sql`DELETE FROM kysely_migration WHERE name = ${last.rows[0]!.name}`.execute(t.app.db.kysely);
    const response = await t.get('/api/ready');
    expect(response.statusCode).toBe(503);
    expect(json(response)).toMatchObject({ ok: false, reason: 'migrations_pending' });
  });

  /**
   * A database with no room left for rows. SQLite: max_page_count at the file's current size on the
   * service's connection, so the next page it needs fails with a real SQLITE_FULL ("database or disk
   * is full"). PostgreSQL (a full disk cannot be made here): a trigger raising disk_full, the error a
   * full disk gives, on every insert into the usage log.
   */
  async function fillDatabase(): Promise<() => Promise<void>> {
    const db = t.app.db;
    if (db.kind === 'sqlite') {
      const pages = db.sqlite.pragma('page_count', { simple: true }) as number;
      db.sqlite.pragma(`max_page_count = ${pages}`);
      return async () => void db.sqlite.pragma('max_page_count = 1073741823');
    }
    await sql`CREATE FUNCTION disk_is_full() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$`.execute(
      db.kysely,
    );
    await sql`CREATE TRIGGER disk_is_full BEFORE INSERT ON usage_log FOR EACH ROW EXECUTE FUNCTION disk_is_full()`.execute(
      db.kysely,
    );
    return async () => {
      await sql`DROP TRIGGER disk_is_full ON usage_log`.execute(db.kysely);
      await sql`DROP FUNCTION disk_is_full()`.execute(db.kysely);
    };
  }

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
    // Its session may be cut with the others when the test app's database is dropped.
    admin.on('error', () => {});
    await admin.connect();
    const setReadOnly = async (on: boolean) => {
      // Both pools: the service's, and readiness's connection of its own, which would otherwise be
      // asked once more on its cut session (or before the cut reached it, still read-only).
      const pools = [db.pool, db.probe.kind === 'postgres' ? db.probe.pool : db.pool];
      const dropped = Promise.all(
        pools.map(
          (pool) =>
            new Promise<void>((resolve) => {
              const check = () => pool.totalCount === 0 && (pool.off('remove', check), resolve());
              pool.on('remove', check);
              check();
            }),
        ),
      );
      await admin.query(`ALTER DATABASE ${name} SET default_transaction_read_only = ${on ? 'on' : 'off'}`);
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      );
      await dropped;
    };
    await setReadOnly(true);
    return async () => {
      await setReadOnly(false);
      await admin.end();
    };
  }
});

describeWithoutDatabase('start-up on a SQLite file the service cannot write', () => {
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
        const readOnlyMount = [
          'unshare',
          '--mount',
          'sh',
          '-c',
          'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" "$0" && exec "$@"',
          path,
        ];
        const [file, ...args] = asRoot ? [...readOnlyMount, ...command] : command;
        const child = spawn(file!, args, {
          cwd,
          env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url, PORT: '0', LOG_LEVEL: 'silent' },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
        child.on('close', (code) => resolve({ code, stderr })); // once stderr is read to its end
        // Spawning can fail outright: say so instead of waiting.
        child.on('error', (error) => resolve({ code: null, stderr: `spawn failed: ${error.message}` }));
      });
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(
            `^flightstatus: The database file ${escape(path)} is not writable; make it writable by the user the service runs as \\(.+\\), or set DATABASE_URL to a file in a writable folder \\(sqlite:${escape(path)}: attempt to write a readonly database\\)$`,
          ),
        ),
      ]);
    } finally {
      await database.drop();
    }
  });

  // SQLite says only "unable to open database file" (or "attempt to write a readonly database" when
  // the file is writable but its -wal cannot be made): the start names the folder instead. As root,
  // whom permission bits do not stop, the service runs as user nobody.
  it('refuses to start in a folder it cannot write, naming the folder and what to do', async () => {
    const asRoot = process.getuid?.() === 0;
    const folder = scratchDir();
    const existing = join(folder, 'existing');
    mkdirSync(existing);
    writeFileSync(join(existing, 'fs.db'), '');
    chmodSync(join(existing, 'fs.db'), 0o666); // the file itself is writable; its folder is not
    const readOnly = asRoot ? 0o755 : 0o555; // root's folders, or the user's own without write bits
    for (const dir of [folder, existing]) chmodSync(dir, readOnly);
    const as = asRoot ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
    const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
    const start = (database: string) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const [file, ...args] = [...as, process.execPath, main, 'serve'];
        const child = spawn(file!, args, {
          cwd: folder,
          env: { PATH: process.env.PATH ?? '', DATABASE_URL: `sqlite:${database}`, PORT: '0', LOG_LEVEL: 'silent' },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
        child.on('close', (code) => resolve({ code, stderr })); // once stderr is read to its end
        child.on('error', (error) => resolve({ code: null, stderr: `spawn failed: ${error.message}` }));
      });
    const fix =
      'make it writable by the user the service runs as \\(.+\\), or set DATABASE_URL to a file in a writable folder';
    try {
      for (const [database, expected] of [
        [
          join(folder, 'fs.db'),
          `The database folder ${escape(folder)} is not writable: SQLite creates the database and its -wal and -shm files there; ${fix} \\(sqlite:.*: unable to open database file\\)`,
        ],
        [
          join(existing, 'fs.db'),
          `The database folder ${escape(existing)} is not writable: .*; ${fix} \\(sqlite:.*: attempt to write a readonly database\\)`,
        ],
        [
          join(folder, 'new', 'fs.db'),
          `The database folder ${escape(join(folder, 'new'))} does not exist and cannot be created: ${escape(folder)} is not writable; make ${escape(folder)} writable by the user`,
        ],
      ] as const) {
        const result = await start(database);
        expect(result.code, result.stderr).toBe(1);
        expect(result.stderr.trim().split('\n')).toEqual([
          expect.stringMatching(new RegExp(`^flightstatus: ${expected}`)),
        ]);
      }
    } finally {
      for (const dir of [folder, existing]) chmodSync(dir, 0o755);
    }
  });
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
