// Fixed-window counters in rate_limit_windows (migration 0006), shared by every service process on
// the database: one row per limited thing (`bucket`), holding the start of its current window and
// how much of that window's allowance is used. A take is one guarded upsert per bucket, never a read
// then a write, so concurrent takes from any number of processes never pass a limit. Any
// capability's buckets: webhook test sends (webhooks/limits.ts), dashboard sign-ups (users).
import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery } from 'kysely';
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

const statements = new WeakMap<BetterSqlite3.Database, BetterSqlite3.Statement>();
function prepared(sqlite: BetterSqlite3.Database): BetterSqlite3.Statement {
  let statement = statements.get(sqlite);
  if (!statement) statements.set(sqlite, (statement = sqlite.prepare(TAKE)));
  return statement;
}

class Refused extends Error {
  constructor(readonly index: number) {
    super('refused');
  }
}

/**
 * Takes one unit from each bucket's window starting at `windowStart`, all or none: a refusal by one
 * gives the others' units back. Returns null when taken, else the index of the bucket that refused.
 * Buckets are taken in the order given; callers list them in one fixed order (no lock cycles).
 */
export async function takeWindowUnits(db: Database, buckets: readonly WindowBucket[], windowStart: number): Promise<number | null> {
  try {
    if (db.kind === 'sqlite') {
      const take = prepared(db.sqlite);
      // Inside the group's BEGIN IMMEDIATE this nested transaction is a savepoint: a throw undoes every take.
      const unit = db.sqlite.transaction(() => {
        buckets.forEach((b, i) => {
          if (take.get(b.key, windowStart, b.limit) === undefined) throw new Refused(i);
        });
      });
      await db.group.run(() => unit());
    } else {
      let n = 0;
      const text = TAKE.replace(/\?/g, () => `$${++n}`);
      await db.kysely.transaction().execute(async (trx) => {
        for (const [i, b] of buckets.entries()) {
          const { rows } = await trx.executeQuery(CompiledQuery.raw(text, [b.key, windowStart, b.limit]));
          if (rows.length === 0) throw new Refused(i);
        }
      });
    }
    return null;
  } catch (error) {
    if (error instanceof Refused) return error.index;
    throw error;
  }
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
