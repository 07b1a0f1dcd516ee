// The database handle every capability receives: Kysely for ordinary queries over either dialect,
// plus the raw driver for the few hot statements that are prepared once.
import { existsSync } from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import type pg from 'pg';
import { DEFAULT_POOL_SIZE, redactUrl, type DatabaseTarget } from '../config.js';
import { migrateToLatest } from './migrate.js';
import type { DatabaseSchema } from './schema.js';
import { ImmediateSqliteDialect, openSqlite, sqliteWriteProblem } from './sqlite.js';
import { openPostgres } from './postgres.js';
import { SqliteGroup } from './sqlite-group.js';
import { Checkpointer } from './checkpointer.js';
import { OffLoopReader } from './reader.js';
import { probeWrite } from './probe.js';

export { SqliteGroup } from './sqlite-group.js';
export { TurnBatcher } from './batcher.js';
export { TurnLoop, type TurnWork } from './turn-loop.js';
export { forDialect, type PerDialect, type PostgresDatabase, type SqliteDatabase } from './dialect.js';
export type { Checkpointer } from './checkpointer.js';
export type { OffLoopReader } from './reader.js';
export { readDatabaseIdentity } from './identity.js';
export { readiness, WriteOutcome, type Readiness } from './probe.js';
export { ConnectionShare, waitedForConnection } from './share.js';

export type { DatabaseSchema } from './schema.js';
export type * from './schema.js';

interface Common {
  kysely: Kysely<DatabaseSchema>;
  /** Where the data lives, fit for logs (no password). */
  description: string;
  /**
   * What readiness (probe.ts) asks through. PostgreSQL: a connection of its own (a pool of one,
   * opened when first asked), so /api/ready never waits behind work holding the pool's connections.
   * SQLite: the database itself (one connection, no pool to wait for).
   */
  probe: Database;
  close(): Promise<void>;
}
export type Database =
  /** `reader`: SELECTs that visit many rows, read on a thread of their own (reader.ts). */
  | (Common & {
      kind: 'sqlite';
      sqlite: BetterSqlite3.Database;
      group: SqliteGroup;
      checkpointer: Checkpointer | null;
      reader: OffLoopReader;
    })
  /** `poolSize`: the most connections `pool` opens (FLIGHTSTATUS_DB_POOL_SIZE). */
  | (Common & { kind: 'postgres'; pool: pg.Pool; poolSize: number });

export class DatabaseUnavailableError extends Error {
  constructor(description: string, cause: unknown) {
    super(`Cannot open the database at ${description}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'DatabaseUnavailableError';
  }
}

/** The database opens but cannot be written: the service would start "healthy" and fail every call. */
export class DatabaseNotWritableError extends DatabaseUnavailableError {
  /** `problem`: what the file system says stops the write (sqliteWriteProblem), when it says. */
  constructor(description: string, cause: unknown, problem: string | null = null) {
    super(description, cause);
    this.name = 'DatabaseNotWritableError';
    const said = cause instanceof Error ? cause.message : String(cause);
    this.message =
      problem !== null
        ? `${problem} (${description}: ${said})`
        : `The database at ${description} cannot be written (${said}); ` +
          'the service must write to it: check the permissions of the file and its folder, the free disk space, or that the server is not read-only';
  }
}

export interface OpenOptions {
  /** Apply pending migrations before returning (the service and the CLI do). */
  migrate?: boolean;
  /** Commit a harmless write before returning, failing with DatabaseNotWritableError (the service does). */
  requireWritable?: boolean;
  onIdleError?: (error: Error) => void;
  /**
   * SQLite: checkpoint the WAL from a worker thread instead of inside commits (long-running
   * services; a short CLI command leaves it to SQLite). Problems go to `onBackgroundError`.
   */
  backgroundCheckpoints?: boolean;
  onBackgroundError?: (message: string) => void;
}

/** The target as logs and messages name it: the SQLite path, or the PostgreSQL URL without its password. */
/**
 * The rows of a SELECT that visits many rows (10,000 watches read whole: 17–22 ms): on SQLite read by
 * the off-loop reader (reader.ts), so requests are not held behind it; on PostgreSQL as every query.
 */
export async function readMany<Row>(db: Database, query: CompiledQuery<Row>): Promise<Row[]> {
  if (db.kind === 'sqlite') return db.reader.read<Row>(query.sql, query.parameters);
  return (await db.kysely.executeQuery(query)).rows;
}

export function describeTarget(target: DatabaseTarget): string {
  return target.kind === 'sqlite' ? `sqlite:${target.path}` : redactUrl(target.url);
}

/** A SQLite file that does not exist yet (opening it would create an empty database). */
export function notCreatedYet(target: DatabaseTarget): boolean {
  return target.kind === 'sqlite' && target.path !== ':memory:' && !existsSync(target.path);
}

/**
 * Opens, checks the connection (failing with a clear message), and optionally migrates. With
 * forDialect (dialect.ts), the one place that tells the dialects apart: by the configured target.
 */
export async function openDatabase(target: DatabaseTarget, options: OpenOptions = {}): Promise<Database> {
  const description = describeTarget(target);
  // SQLite's "unable to open database file" names no folder: say which one cannot be written.
  const writeProblem = () => (target.kind === 'sqlite' ? sqliteWriteProblem(target.path) : null);
  let database: Database;
  try {
    if (target.kind === 'sqlite') {
      const background = options.backgroundCheckpoints === true && target.path !== ':memory:';
      const sqlite = openSqlite(target.path, { backgroundCheckpoints: background });
      const kysely = new Kysely<DatabaseSchema>({ dialect: new ImmediateSqliteDialect(sqlite) });
      const group = new SqliteGroup(sqlite);
      const checkpointer = background ? Checkpointer.start(target.path, options.onBackgroundError ?? (() => {})) : null;
      const reader = new OffLoopReader(target.path === ':memory:' ? null : target.path, sqlite);
      const close = async () => {
        await group.idle();
        await reader.stop();
        await checkpointer?.stop();
        await kysely.destroy();
      };
      database = {
        kind: 'sqlite',
        sqlite,
        group,
        checkpointer,
        reader,
        kysely,
        description,
        close,
        get probe(): Database {
          return this;
        },
      };
    } else {
      const onIdleError = options.onIdleError ?? (() => {});
      const poolSize = target.poolSize ?? DEFAULT_POOL_SIZE;
      const pool = openPostgres(target.url, poolSize, onIdleError);
      const kysely = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
      const probePool = openPostgres(target.url, 1, onIdleError, 'flightstatus readiness');
      const probeKysely = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool: probePool }) });
      const probe: Database = {
        kind: 'postgres',
        pool: probePool,
        poolSize: 1,
        kysely: probeKysely,
        description,
        close: () => probeKysely.destroy(),
        get probe(): Database {
          return this;
        },
      };
      const close = async () => void (await Promise.all([kysely.destroy(), probeKysely.destroy()]));
      database = { kind: 'postgres', pool, poolSize, kysely, description, close, probe };
      await pool.query('select 1');
    }
  } catch (error) {
    const problem = writeProblem();
    if (problem !== null) throw new DatabaseNotWritableError(description, error, problem);
    throw new DatabaseUnavailableError(description, error);
  }
  if (options.requireWritable) {
    try {
      await probeWrite(database);
    } catch (error) {
      await database.close().catch(() => {});
      throw new DatabaseNotWritableError(description, error, writeProblem());
    }
  }
  if (options.migrate) {
    try {
      await migrateToLatest(database);
    } catch (error) {
      await database.close().catch(() => {});
      throw error;
    }
  }
  return database;
}
