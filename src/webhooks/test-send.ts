// Test sends (docs/webhooks.md, "Test sends"): a signed `webhook.test` event sent at once, outside the
// queue, under its own limits (limits.ts), and listed among the endpoint's deliveries.
import { sql } from 'kysely';
import { iso } from '../clock.js';
import { atomically } from '../db/atomic.js';
import type { EndpointsTable } from '../db/index.js';
import { newId } from '../ids.js';
import type { Result } from '../result.js';
import { takeTestSend } from './limits.js';
import { deliveryBody, signedAttempt } from './payload.js';
import type { WebhookServiceOptions } from './service.js';
import type { RateLimited, TestResult } from './views.js';

export const TEST_EVENT_TYPE = 'webhook.test';

/**
 * Sends a signed `webhook.test` event now, whether the endpoint is enabled or not, and answers with
 * the attempt's outcome. A 2xx resets the failure counter; a failure does not count towards it
 * (it is not a delivery). Nothing is queued or retried.
 */
export async function sendTest(
  o: WebhookServiceOptions,
  accountId: string,
  row: EndpointsTable,
): Promise<Result<TestResult> | RateLimited> {
  const now = o.clock.now();
  const allowed = await takeTestSend(o.db, accountId, row.id, now);
  if (!allowed.ok)
    return { kind: 'rate_limited', message: allowed.message, retryAfterSeconds: allowed.retryAfterSeconds };
  const airports = JSON.parse(row.airports) as string[];
  const deliveryId = newId('dlv');
  const event = {
    id: newId('evt'),
    type: TEST_EVENT_TYPE,
    airport: airports[0]!,
    created_at: now,
    data: JSON.stringify({ test: true, message: 'A test event sent from the webhook API; it describes no flight.' }),
  };
  const body = deliveryBody(o.catalogue, deliveryId, event, { id: row.id, name: row.name, airports });
  const outcome = await o.sender.send(
    signedAttempt(
      row,
      o.secrets,
      o.wallClock,
      body,
      {
        eventId: event.id,
        eventType: event.type,
        deliveryId,
        attempt: 1,
      },
      now,
    ),
  );
  // Listed among the endpoint's deliveries, final at once (it is never retried), unless the endpoint
  // was deleted meanwhile; a 2xx resets the failure counter in the same transaction.
  const k = o.db.kysely;
  const record =
    sql`INSERT INTO deliveries (id, endpoint_id, event_id, event_type, state, attempts, next_attempt_at, lease_until,
      last_attempt_at, last_status, last_error, body, created_at, delivered_at)
    SELECT ${deliveryId}, ${row.id}, ${event.id}, ${event.type}, ${outcome.ok ? 'delivered' : 'failed'}, 1, NULL, NULL,
      ${now}, ${outcome.status}, ${outcome.error}, NULL, ${now}, ${outcome.ok ? now : null}
    WHERE EXISTS (SELECT 1 FROM endpoints WHERE id = ${row.id})`.compile(k);
  const attempt = sql`INSERT INTO delivery_attempts (delivery_id, attempt, at, status, error, duration_ms)
    SELECT ${deliveryId}, 1, ${now}, ${outcome.status}, ${outcome.ok ? null : outcome.error}, ${Math.round(outcome.durationMs * 1000) / 1000}
    WHERE EXISTS (SELECT 1 FROM deliveries WHERE id = ${deliveryId})`.compile(k);
  const reset = k
    .updateTable('endpoints')
    .set({ consecutive_failures: 0, backoff_until: null })
    .where('id', '=', row.id)
    .compile();
  await atomically(o.db, outcome.ok ? [record, attempt, reset] : [record, attempt]);
  return {
    kind: 'ok',
    value: {
      deliveryId,
      event: event.id,
      delivered: outcome.ok,
      statusCode: outcome.status,
      error: outcome.error,
      durationMs: outcome.durationMs,
      attemptedAt: iso(now),
    },
  };
}
