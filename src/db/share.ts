// A share of the process's PostgreSQL pool for background work (the batch runner's): at most `size`
// of the statements run through it hold a connection at once; the others wait here, in order and
// with no deadline. Waiting in the pool's own queue instead would be shared with the API and
// readiness, and bounded by its connect timeout (db/postgres.ts): with more work in flight than
// connections, a slow database turns that wait into "timeout exceeded when trying to connect",
// which the work would take for a failure. Here the wait is back-pressure, and the rest of the pool
// stays free for everything else (docs/decisions.md, "Batches on a PostgreSQL pool").
//
// Only database work goes through a share: a batch lookup waiting on a provider holds no
// connection and takes no place in it. Nothing run through a share may run another statement
// through the same share and wait for it (with a share of 1 that would never end).
import pLimit, { type LimitFunction } from 'p-limit';

export class ConnectionShare {
  /** No share: work runs straight away, and waits in the pool's queue (a single lookup's, the API's). */
  static readonly none = new ConnectionShare(null);

  private readonly limit: LimitFunction | null;

  /** `size`: connections at most; null: no limit (SQLite, whose one connection has no pool to run out of). */
  constructor(readonly size: number | null) {
    this.limit = size === null ? null : pLimit(size);
  }

  /** Runs `work` (one statement, or one transaction) once the share has room for it. */
  run<T>(work: () => Promise<T>): Promise<T> {
    return this.limit ? this.limit(work) : work();
  }
}

/**
 * The pool's wait for a connection ran out (pg-pool's connect timeout): the pool was busy, not the
 * statement wrong. Also a new connection that took longer than that to open.
 */
export function waitedForConnection(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  return (
    error.message === 'timeout exceeded when trying to connect' ||
    error.message === 'Connection terminated due to connection timeout'
  );
}
