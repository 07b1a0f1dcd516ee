// Limits on test sends (POST /api/v1/webhooks/{id}/test). A test send is a signed POST made on
// demand and free of credit, so without a limit an account could aim the service at any receiver as
// fast as it can ask (an outside test made 2,000 in 3.3 s from a 1-credit account). The counters live
// in the database, so every service process shares them, and each is taken by one guarded upsert
// (src/db/rate-limits.ts).
import { MINUTE } from '../clock.js';
import type { Database } from '../db/index.js';
import { takeWindowUnits } from '../db/rate-limits.js';

/**
 * Test sends per fixed minute of the service clock. 5 per endpoint is more than anyone checking a
 * receiver by hand needs (send, fix, send again); 20 per account lets four endpoints be checked at
 * once, and bounds what one account can send on demand to 20 requests a minute.
 */
export const TEST_SEND_LIMITS = { perEndpoint: 5, perAccount: 20, windowMs: MINUTE } as const;

export type LimitDecision = { ok: true } | { ok: false; message: string; retryAfterSeconds: number };

/** The endpoint's counter (deleted with the endpoint). */
export const endpointTestBucket = (endpointId: string) => `webhook-test:endpoint:${endpointId}`;

/**
 * Takes one test send from the endpoint's and the account's budgets of the current window, both or
 * neither (a refusal by one gives the other's unit back). `now` comes from the service clock.
 */
export async function takeTestSend(
  db: Database,
  accountId: string,
  endpointId: string,
  now: number,
): Promise<LimitDecision> {
  const { windowMs } = TEST_SEND_LIMITS;
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const buckets = [
    { key: endpointTestBucket(endpointId), limit: TEST_SEND_LIMITS.perEndpoint, what: 'endpoint' },
    { key: `webhook-test:account:${accountId}`, limit: TEST_SEND_LIMITS.perAccount, what: 'account' },
  ];
  const refusedAt = await takeWindowUnits(db, buckets, windowStart);
  if (refusedAt === null) return { ok: true };
  const refused = buckets[refusedAt]!;
  const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
  return {
    ok: false,
    retryAfterSeconds,
    message: `Test sends are limited to ${refused.limit} per minute per ${refused.what}; try again in ${retryAfterSeconds} s`,
  };
}

/** How long a rotated secret goes on signing beside the new one (docs/webhooks.md, "Rotating the secret"): a day unless asked, at most a week. */
export const ROTATION_OVERLAP = { defaultSeconds: 24 * 3600, maxSeconds: 7 * 24 * 3600 } as const;
