// Fixed-window counters in rate_limit_windows (migration 0006), shared by every service process on
// the database: one row per limited thing (`bucket`), holding the start of its current window and
// how much of that window's allowance is used. A take is one guarded upsert per bucket, never a read
// then a write, so concurrent takes from any number of processes never pass a limit. Any
// capability's buckets: webhook test sends (webhooks/limits.ts), dashboard sign-ups (users).
import { firstWithoutRow } from './atomic.js';
import type { Database } from './index.js';

export interface WindowBucket {
  key: string;
  /** Units the bucket allows in one window. */
  limit: number;
}

// Takes one unit of the bucket's window, starting a new window when the stored one is over; no row
// comes back when the window's allowance is used up. Right-hand sides of SET read the old row.
const TAKE = `INSERT INTO rate_limit_windows (bucket, window_start, used) VALUES (?, ?, 1)
ON CONFLICT (bucket) DO UPDATE SET
  used = CASE WHEN rate_limit_windows.window_start = excluded.window_start THEN rate_limit_windows.used + 1 ELSE 1 END,
  window_start = excluded.window_start
WHERE rate_limit_windows.window_start <> excluded.window_start OR rate_limit_windows.used < ?
RETURNING used`;

/**
 * Takes one unit from each bucket's window starting at `windowStart`, all or none: a refusal by one
 * gives the others' units back. Returns null when taken, else the index of the bucket that refused.
 * Buckets are taken in the order given; callers list them in one fixed order (no lock cycles).
 */
export function takeWindowUnits(db: Database, buckets: readonly WindowBucket[], windowStart: number): Promise<number | null> {
  // A refusal undoes every take before it: a savepoint of the group on SQLite, a transaction on PostgreSQL.
  return firstWithoutRow(db, TAKE, buckets.map((b) => [b.key, windowStart, b.limit]));
}

/**
 * Deletes the counters under `prefix` (letters, digits, ':' and '-' only: it is a LIKE pattern) whose
 * window started before `before`: they count nothing any more, and buckets named after something
 * unbounded, such as client addresses, must not pile up.
 */
export async function forgetWindowsBefore(db: Database, prefix: string, before: number): Promise<void> {
  if (!/^[A-Za-z0-9:-]+$/.test(prefix)) throw new Error(`not a bucket prefix: ${prefix}`);
  await db.kysely.deleteFrom('rate_limit_windows').where('bucket', 'like', `${prefix}%`).where('window_start', '<', before).execute();
}
