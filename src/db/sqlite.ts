// Embedded SQLite through better-sqlite3: WAL, one connection per process shared by Kysely
// (cold paths) and statements prepared once (hot paths).
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { Database } from './sqlite-driver.js';
import type { SqliteDatabase } from './dialect.js';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
} from 'kysely';

/**
 * How long a writer waits for another process's write lock before failing. The service and the
 * CLI share the file; their transactions last microseconds, so 5 s is only reached on a wedged
 * process, and then failing loudly is right.
 */
const BUSY_TIMEOUT_MS = 5000;

/** WAL file size kept after a checkpoint resets it (the file is reused, not regrown each time). */
const JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024;

/**
 * `backgroundCheckpoints`: the caller runs a Checkpointer (db/checkpointer.ts), so this connection
 * does not checkpoint inside its commits.
 */
export function openSqlite(path: string, options: { backgroundCheckpoints?: boolean } = {}): BetterSqlite3.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // Switching a new file to WAL needs an exclusive lock, and SQLite answers SQLITE_BUSY at once
  // (without the busy handler) while another process is doing the same: retry until the timeout.
  retryWhileBusy(() => db.pragma('journal_mode = WAL'));
  // NORMAL in WAL mode: a commit survives a process crash; only an OS crash or power loss can
  // drop the last commits. FULL would fsync every commit (3x slower here).
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
  if (options.backgroundCheckpoints) db.pragma('wal_autocheckpoint = 0');
  return db;
}

/**
 * Why this process cannot write a SQLite database at `path` as the file system tells it (the folder
 * or the file not writable for this user, or on a read-only mount), in words that name the folder or
 * file and say what to do; null when nothing there stops a write. Asked only after opening or the
 * first write failed: SQLite itself then says only "unable to open database file" or "attempt to
 * write a readonly database". SQLite creates the file and, in WAL mode, its -wal and -shm files
 * beside it, so the folder must be writable, not only the file.
 */
export function sqliteWriteProblem(path: string): string | null {
  if (path === ':memory:' || path === '') return null;
  const file = resolve(path);
  const folder = dirname(file);
  const fix = (what: string) =>
    `make ${what} writable by the user the service runs as (${runningAs()}), or set DATABASE_URL to a file in a writable folder`;
  if (!existsSync(folder)) {
    let parent = dirname(folder);
    while (!existsSync(parent) && dirname(parent) !== parent) parent = dirname(parent);
    return writable(parent)
      ? null
      : `The database folder ${folder} does not exist and cannot be created: ${parent} is not writable; ${fix(parent)}`;
  }
  if (!writable(folder))
    return `The database folder ${folder} is not writable: SQLite creates the database and its -wal and -shm files there; ${fix('it')}`;
  for (const name of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(name) && !writable(name)) return `The database file ${name} is not writable; ${fix('it')}`;
  }
  return null;
}

function writable(path: string): boolean {
  try {
    // access(2) answers for this process's user, and EROFS on a read-only mount even for root.
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function runningAs(): string {
  const uid = process.getuid?.();
  let name: string | null = null;
  try {
    name = userInfo().username;
  } catch {
    // A uid without a passwd entry (containers): the number says it.
  }
  if (uid === undefined) return name ?? 'this user';
  return name === null ? `uid ${uid}` : `${name}, uid ${uid}`;
}

function retryWhileBusy(run: () => unknown): void {
  const deadline = performance.now() + BUSY_TIMEOUT_MS;
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      run();
      return;
    } catch (error) {
      const busy = (error as { code?: string }).code?.startsWith('SQLITE_BUSY') === true;
      if (!busy || performance.now() > deadline) throw error;
      Atomics.wait(sleeper, 0, 0, 5 + Math.random() * 20);
    }
  }
}

/**
 * Kysely's SQLite driver opens transactions with a deferred BEGIN, which fails with SQLITE_BUSY
 * when two processes upgrade from read to write at once. Every write transaction here is
 * BEGIN IMMEDIATE instead (measured: 0 errors with two processes).
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/**
 * SQLite's DDL is transactional, but Kysely's adapter says otherwise, so by default migrations run
 * outside a transaction: two processes starting on a new file race ("table already exists") and a
 * crash mid-migration leaves half a schema. Saying so runs every migration batch inside one
 * BEGIN IMMEDIATE: a second process waits, then finds nothing left to do.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

export class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly database: BetterSqlite3.Database) {
    super({ database });
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver({ database: this.database });
  }
  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

// Statements the units below run, prepared once per connection and text: their callers build the
// same few texts over and over (atomically's compiled queries, the rate-limit take).
const statements = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();

function prepared(sqlite: BetterSqlite3.Database, text: string): BetterSqlite3.Statement {
  let cache = statements.get(sqlite);
  if (!cache) statements.set(sqlite, (cache = new Map()));
  let statement = cache.get(text);
  if (!statement) cache.set(text, (statement = sqlite.prepare(text)));
  return statement;
}

/**
 * atomically() (atomic.ts) on SQLite: Kysely's own transactions hold the connection across awaits,
 * which would stall the group transaction that shares the one connection; so the statements run
 * inside one group item, and there better-sqlite3 turns this nested transaction into a savepoint
 * (all or nothing, the rest of the group unaffected).
 */
export function sqliteAtomically(db: SqliteDatabase, queries: readonly CompiledQuery[]): Promise<number[]> {
  const { sqlite } = db;
  const unit = sqlite.transaction(() =>
    queries.map((q) => prepared(sqlite, q.sql).run(...(q.parameters as unknown[])).changes),
  );
  return db.group.run(() => unit());
}

/**
 * prepared() (prepared.ts) on SQLite: the statement prepared once per connection and text, run at
 * once (autocommit, as Kysely's own statements run: outside the group, which its own callers flush).
 */
export function sqlitePrepared<Row>(db: SqliteDatabase, query: CompiledQuery): { rows: Row[]; changed: number } {
  const statement = prepared(db.sqlite, query.sql);
  const values = query.parameters as unknown[];
  if (statement.reader) {
    const rows = statement.all(...values) as Row[];
    return { rows, changed: rows.length };
  }
  return { rows: [], changed: statement.run(...values).changes };
}

/** firstWithoutRow() (atomic.ts) on SQLite: a savepoint in the group, undone by the throw. */
export async function sqliteFirstWithoutRow(
  db: SqliteDatabase,
  text: string,
  runs: readonly unknown[][],
): Promise<number | null> {
  const statement = prepared(db.sqlite, text);
  const undo = new Error('no row');
  let missing: number | null = null;
  const unit = db.sqlite.transaction(() => {
    runs.forEach((values, i) => {
      if (statement.get(...values) !== undefined) return;
      missing = i;
      throw undo;
    });
  });
  try {
    await db.group.run(() => unit());
  } catch (error) {
    if (error !== undo) throw error;
  }
  return missing;
}

/**
 * probeWrite() (probe.ts) on SQLite: rewrites its own user_version in the group transaction
 * (BEGIN IMMEDIATE … COMMIT, like every other write on this connection); a read-only file, folder
 * or connection fails there.
 */
export function sqliteProbeWrite(db: SqliteDatabase): Promise<void> {
  const { sqlite } = db;
  return db.group.run(() => {
    const version = sqlite.pragma('user_version', { simple: true }) as number;
    sqlite.pragma(`user_version = ${Number(version)}`);
  });
}
