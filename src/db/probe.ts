// Is the database fit to serve? Reachable, writable, and at the migrations this code expects. Used
// at start-up (a database the service cannot write stops the start) and by GET /api/ready.
import { sql } from 'kysely';
import { forDialect } from './dialect.js';
import type { Database } from './index.js';
import { MIGRATION_NAMES } from './migrate.js';
import { postgresProbeWrite } from './postgres.js';
import { sqliteProbeWrite } from './sqlite.js';

export type Readiness =
  { ok: true } | { ok: false; reason: 'unreachable' | 'not_writable' | 'migrations_pending'; detail: string };

/**
 * Commits a write that changes nothing, or throws the database's reason. SQLite: rewrites its own
 * user_version in a BEGIN IMMEDIATE transaction (a read-only file, folder or connection fails
 * there). PostgreSQL: a read-only session (a standby, default_transaction_read_only) is refused.
 */
export function probeWrite(db: Database): Promise<void> {
  return forDialect(db, { sqlite: sqliteProbeWrite, postgres: postgresProbeWrite });
}

/** Migrations this code has that the database has not applied. */
export async function pendingMigrations(db: Database): Promise<string[]> {
  const applied = await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(db.kysely);
  const names = new Set(applied.rows.map((r) => r.name));
  return MIGRATION_NAMES.filter((name) => !names.has(name));
}

/**
 * The outcome of the request path's last write (metering: a credit with its usage row, a
 * settlement), which readiness follows at once. The probe's own write changes nothing and so needs
 * no space: on a full disk (SQLITE_FULL, PostgreSQL's disk_full) it still commits while every
 * metered request gets 503, so a failed metered write is what tells readiness first.
 */
export class WriteOutcome {
  private failure: string | null = null;

  succeeded(): void {
    this.failure = null;
  }

  failed(error: unknown): void {
    this.failure = messageOf(error);
  }

  /** The database's words for the last write's failure, or null when it succeeded. */
  get lastFailure(): string | null {
    return this.failure;
  }
}

/**
 * `writes`: the request path's last write, and a write of its own kind to try again while that
 * failed (one that needs space as a metered request does). Readiness is 503 `not_writable` until
 * that write, or a metered one, succeeds: a process taken out of rotation gets no metered requests,
 * so without the retry it could never come back.
 */
export async function readiness(
  database: Database,
  writes?: { outcome: WriteOutcome; retry: () => Promise<void> },
): Promise<Readiness> {
  // Its own connection on PostgreSQL (Database.probe): the answer never waits behind the pool's work.
  const db = database.probe;
  try {
    await sql`SELECT 1`.execute(db.kysely);
  } catch (error) {
    return { ok: false, reason: 'unreachable', detail: messageOf(error) };
  }
  if (writes && writes.outcome.lastFailure !== null) {
    const failure = writes.outcome.lastFailure;
    try {
      await writes.retry();
      writes.outcome.succeeded();
    } catch (error) {
      return {
        ok: false,
        reason: 'not_writable',
        detail: `the last metered write failed (${failure}); trying again: ${messageOf(error)}`,
      };
    }
  }
  try {
    await probeWrite(db);
  } catch (error) {
    return { ok: false, reason: 'not_writable', detail: messageOf(error) };
  }
  try {
    const pending = await pendingMigrations(db);
    if (pending.length > 0) return { ok: false, reason: 'migrations_pending', detail: pending.join(', ') };
  } catch (error) {
    return { ok: false, reason: 'migrations_pending', detail: messageOf(error) };
  }
  return { ok: true };
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
