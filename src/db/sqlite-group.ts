// Group transactions for SQLite: every statement queued during one turn of the event loop runs in
// one BEGIN IMMEDIATE … COMMIT. Each autocommit statement in WAL mode pays for its own read or write
// transaction (measured here: a key lookup costs 4.9 µs alone and 1.6 µs inside a shared transaction;
// a usage insert 46 µs alone and 7 µs in a group of 25), so the hot path (key lookup, credit,
// usage row) goes through here. Callers get their own result, and only after the commit that holds
// their statement: nothing is acknowledged before it is stored. When to flush: turn-loop.ts (a
// synchronous flush, so nothing but the one setImmediate stands between a request and its commit).
import type BetterSqlite3 from 'better-sqlite3';
import { TurnLoop } from './turn-loop.js';

interface Work {
  run(): unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  outcome?: { ok: true; value: unknown } | { ok: false; error: unknown };
}

export class SqliteGroup {
  private queue: Work[] = [];
  private readonly loop = new TurnLoop({ pending: () => this.queue.length > 0, flush: () => this.flush() });
  private readonly transaction: (works: Work[]) => void;

  constructor(private readonly db: BetterSqlite3.Database) {
    const body = (works: Work[]) => {
      for (const work of works) {
        try {
          work.outcome = { ok: true, value: work.run() };
        } catch (error) {
          // Usually SQLite rolls back the failed statement alone and the rest of the group still
          // commits. Some errors (disk full, I/O, out of memory) roll back the whole transaction:
          // then stop, rather than run the remaining work in autocommit, and fail the whole group.
          if (!db.inTransaction) throw error;
          work.outcome = { ok: false, error };
        }
      }
    };
    const transaction = db.transaction(body);
    this.transaction = (works) => transaction.immediate(works);
  }

  /** Runs `work` (synchronous statements only) inside the next group transaction. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run: work, resolve: resolve as (value: unknown) => void, reject });
      this.loop.wake();
    });
  }

  /** Statements waiting for the next group transaction. */
  get queued(): number {
    return this.queue.length;
  }

  /** Resolves once nothing is queued. */
  idle(): Promise<void> {
    return this.loop.idle();
  }

  private flush(): void {
    // Never fold the group into a transaction someone else holds open on this connection: the
    // queue stays, and the loop tries again on the next turn.
    if (this.db.inTransaction) return;
    const works = this.queue;
    this.queue = [];
    try {
      this.transaction(works);
    } catch (error) {
      // The transaction as a whole failed (locked past busy_timeout, disk full…): nothing committed.
      for (const work of works) work.outcome = { ok: false, error };
    }
    for (const work of works) {
      const outcome = work.outcome!;
      if (outcome.ok) work.resolve(outcome.value);
      else work.reject(outcome.error);
    }
  }
}
