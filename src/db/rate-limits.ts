// Fixed-window counters in rate_limit_windows (migration 0006), shared by every service process on
// the database: one row per limited thing (`bucket`), holding the start of its current window and
// how much of that window's allowance is used. A take is one guarded upsert per bucket, never a read
// then a write, so concurrent takes from any number of processes never pass a limit. Any
// capability's buckets: webhook test sends (webhooks/limits.ts), dashboard sign-ups (users),
// invitations (users) and billing-email confirmations (billing).
import { DAY, HOUR } from '../clock.js';
import { firstWithoutRow } from './atomic.js';
import type { Database } from './index.js';

export interface WindowBucket {
  key: string;
  /** Units the bucket allows in one window. */
  limit: number;
  /** Where this bucket's window starts, when not at the call's `windowStart` (a day beside an hour). */
  windowStart?: number;
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
export function takeWindowUnits(
  db: Database,
  buckets: readonly WindowBucket[],
  windowStart: number,
): Promise<number | null> {
  // A refusal undoes every take before it: a savepoint of the group on SQLite, a transaction on PostgreSQL.
  return firstWithoutRow(
    db,
    TAKE,
    buckets.map((b) => [b.key, b.windowStart ?? windowStart, b.limit]),
  );
}

export interface HourAndDay {
  perHour: number;
  perDay: number;
}

/**
 * One unit from `key`'s clock hour and its UTC day (of the service clock, `now`), both or neither
 * (`key:day`, `key:hour`): null when taken, else which window refused and the seconds until it ends.
 * For things an account may do a few times an hour and a bounded number of times a day (invitations,
 * billing-email confirmations); the buckets are per account, so they are not forgotten.
 */
export async function takeHourAndDay(
  db: Database,
  key: string,
  limits: HourAndDay,
  now: number,
): Promise<{ window: 'hour' | 'day'; retryAfterSeconds: number } | null> {
  const hour = Math.floor(now / HOUR) * HOUR;
  const day = Math.floor(now / DAY) * DAY;
  const refused = await takeWindowUnits(
    db,
    [
      { key: `${key}:day`, limit: limits.perDay, windowStart: day },
      { key: `${key}:hour`, limit: limits.perHour, windowStart: hour },
    ],
    hour,
  );
  if (refused === null) return null;
  const end = refused === 0 ? day + DAY : hour + HOUR;
  return { window: refused === 0 ? 'day' : 'hour', retryAfterSeconds: Math.max(1, Math.ceil((end - now) / 1000)) };
}

/**
 * Deletes the counters under `prefix` (letters, digits, ':' and '-' only: it is a LIKE pattern) whose
 * window started before `before`: they count nothing any more, and buckets named after something
 * unbounded, such as client addresses, must not pile up.
 */
export async function forgetWindowsBefore(db: Database, prefix: string, before: number): Promise<void> {
  if (!/^[A-Za-z0-9:-]+$/.test(prefix)) throw new Error(`not a bucket prefix: ${prefix}`);
  await db.kysely
    .deleteFrom('rate_limit_windows')
    .where('bucket', 'like', `${prefix}%`)
    .where('window_start', '<', before)
    .execute();
}
