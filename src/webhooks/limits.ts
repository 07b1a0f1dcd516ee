// Limits on test sends (POST /api/v1/webhooks/{id}/test). A test send is a signed POST made on
// demand and free of credit, so without a limit an account could aim the service at any receiver as
// fast as it can ask (an outside test made 2,000 in 3.3 s from a 1-credit account). The counters live
// in the database, so every service process shares them, and each is taken by one guarded upsert.
import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery } from 'kysely';
import { MINUTE } from '../clock.js';
import type { Database } from '../db/index.js';

/**
 * Test sends per fixed minute of the service clock. 5 per endpoint is more than anyone checking a
 * receiver by hand needs (send, fix, send again); 20 per account lets four endpoints be checked at
 * once, and bounds what one account can send on demand to 20 requests a minute.
 */
export const TEST_SEND_LIMITS = { perEndpoint: 5, perAccount: 20, windowMs: MINUTE } as const;

export type LimitDecision = { ok: true } | { ok: false; message: string; retryAfterSeconds: number };

interface Bucket {
  key: string;
  limit: number;
  what: string;
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

/** The endpoint's counter (deleted with the endpoint). */
export const endpointTestBucket = (endpointId: string) => `webhook-test:endpoint:${endpointId}`;

class Refused extends Error {
  constructor(readonly bucket: Bucket) {
    super('refused');
  }
}

/**
 * Takes one test send from the endpoint's and the account's budgets of the current window, both or
 * neither (a refusal by one gives the other's unit back). `now` comes from the service clock.
 */
export async function takeTestSend(db: Database, accountId: string, endpointId: string, now: number): Promise<LimitDecision> {
  const { windowMs } = TEST_SEND_LIMITS;
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const buckets: Bucket[] = [
    { key: endpointTestBucket(endpointId), limit: TEST_SEND_LIMITS.perEndpoint, what: 'endpoint' },
    { key: `webhook-test:account:${accountId}`, limit: TEST_SEND_LIMITS.perAccount, what: 'account' },
  ];
  let refused: Bucket | null = null;
  try {
    if (db.kind === 'sqlite') {
      const take = prepared(db.sqlite);
      // Inside the group's BEGIN IMMEDIATE this nested transaction is a savepoint: a throw undoes both takes.
      const unit = db.sqlite.transaction(() => {
        for (const b of buckets) if (take.get(b.key, windowStart, b.limit) === undefined) throw new Refused(b);
      });
      await db.group.run(() => unit());
    } else {
      let n = 0;
      const text = TAKE.replace(/\?/g, () => `$${++n}`);
      await db.kysely.transaction().execute(async (trx) => {
        for (const b of buckets) {
          const { rows } = await trx.executeQuery(CompiledQuery.raw(text, [b.key, windowStart, b.limit]));
          if (rows.length === 0) throw new Refused(b);
        }
      });
    }
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    refused = error.bucket;
  }
  if (!refused) return { ok: true };
  const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
  return {
    ok: false,
    retryAfterSeconds,
    message: `Test sends are limited to ${refused.limit} per minute per ${refused.what}; try again in ${retryAfterSeconds} s`,
  };
}
