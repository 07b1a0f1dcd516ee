// The delivery queue's statements that are the same on both dialects (`?` placeholders; PostgreSQL's
// are numbered by dialect-postgres.ts), the parameters of a settle, and the reads a worker makes.
import { KEPT_BODY_EVENT_TYPES } from './account-events.js';
import type { Kysely } from 'kysely';
import type { BoardEventsTable, DatabaseSchema, DeliveriesTable, EndpointsTable } from '../db/index.js';
import type { Lease, LeasedRows } from '../leases/index.js';
import {
  ENDPOINT_PAUSE_MS,
  MAX_DOUBLINGS,
  MAX_RETRY_AFTER_MS,
  retryAt,
  type Claimed,
  type Outcome,
  type QueueOptions,
} from './queue.js';

export const toClaimed = (leases: Lease<DeliveriesTable>[]): Claimed[] =>
  leases
    .map(({ row, leaseUntil }) => ({
      seq: Number(row.seq),
      id: row.id,
      endpointId: row.endpoint_id,
      eventId: row.event_id,
      eventType: row.event_type,
      attempts: Number(row.attempts),
      body: row.body,
      leaseUntil,
    }))
    .sort((a, b) => a.seq - b.seq);

/** Gives claimed deliveries back unattempted, their due time unchanged, in one transaction (each only while its lease is still ours). */
export async function releaseAll(leased: LeasedRows<DeliveriesTable>, deliveries: Claimed[]): Promise<void> {
  await leased.giveBack(deliveries.map((d) => ({ key: [d.seq], leaseUntil: d.leaseUntil })));
}

// Settling. A board event's body is built again from the event for a resend; an account event's
// (account-events.ts) has nothing to be built from, so it is kept.
export const ACCOUNT_EVENT_SQL = KEPT_BODY_EVENT_TYPES.map((t) => `'${t}'`).join(', ');
export const DELIVERED = `UPDATE deliveries SET state = 'delivered', attempts = ?, last_attempt_at = ?, last_status = ?, last_error = NULL,
  delivered_at = ?, next_attempt_at = NULL, lease_until = NULL, body = CASE WHEN event_type IN (${ACCOUNT_EVENT_SQL}) THEN body ELSE NULL END
  WHERE seq = ? AND state = 'pending' AND lease_until = ?`;
export const FAILED = `UPDATE deliveries SET state = ?, attempts = ?, last_attempt_at = ?, last_status = ?, last_error = ?,
  next_attempt_at = CASE WHEN (SELECT enabled FROM endpoints WHERE id = ?) = 1 THEN CAST(? AS BIGINT) ELSE NULL END, lease_until = NULL,
  body = ? WHERE seq = ? AND state = 'pending' AND lease_until = ?`;
export const RESET_FAILURES =
  'UPDATE endpoints SET consecutive_failures = 0, backoff_until = NULL WHERE id = ? AND (consecutive_failures <> 0 OR backoff_until IS NOT NULL)';
/**
 * A failure of the endpoint, counted (and its pause grown) only when no other failure was counted
 * since the attempt started (`consecutive_failures` still what the worker saw). The pause is
 * ENDPOINT_PAUSE_MS · 2^n for the n failures before this one, at most the cycle, and at least what
 * the receiver asked (Retry-After, clamped); an uncounted failure only lengthens the pause to what it
 * asked. Parameters: seen, seen, at, asked, base, seen, doublings cap, cycle, at, asked (then the id
 * on SQLite). `greatest` and `least` are each dialect's two-argument max and min (MAX and MIN on SQLite).
 */
export const countFailure = (greatest: string, least: string, where: string) => `UPDATE endpoints SET
  consecutive_failures = consecutive_failures + CASE WHEN consecutive_failures = CAST(? AS INT) THEN 1 ELSE 0 END,
  backoff_until = CASE WHEN consecutive_failures = CAST(? AS INT)
    THEN CAST(? AS BIGINT) + ${greatest}(CAST(? AS BIGINT), ${least}(CAST(? AS BIGINT) * (CAST(1 AS BIGINT) << ${least}(CAST(? AS INT), CAST(? AS INT))), CAST(? AS BIGINT)))
    ELSE ${greatest}(COALESCE(backoff_until, 0), CAST(? AS BIGINT) + CAST(? AS BIGINT)) END
  WHERE ${where} RETURNING consecutive_failures, enabled`;
export const NEXT_WAKE = `SELECT MIN(e.backoff_until) AS at FROM endpoints e WHERE e.enabled = 1 AND e.backoff_until > ? AND e.backoff_until <= ?
  AND EXISTS (SELECT 1 FROM deliveries d WHERE d.endpoint_id = e.id AND d.state = 'pending' AND d.next_attempt_at <= e.backoff_until)`;
export const DISABLE =
  'UPDATE endpoints SET enabled = 0, disabled_at = ?, disabled_reason = ?, updated_at = ? WHERE id = ? AND enabled = 1';
export const PAUSE_QUEUE = "UPDATE deliveries SET next_attempt_at = NULL WHERE endpoint_id = ? AND state = 'pending'";
export const ATTEMPT =
  'INSERT INTO delivery_attempts (delivery_id, attempt, at, status, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?)';

/** The attempt row's values, in ATTEMPT's order. */
export const attemptRow = (o: Outcome) => [
  o.delivery.id,
  o.delivery.attempts + 1,
  o.at,
  o.status,
  o.ok ? null : o.error,
  Math.round(o.durationMs * 1000) / 1000,
];

/** The parameters of a settle, in statement order. */
export function settleParameters(o: Outcome, options: QueueOptions) {
  const attempts = o.delivery.attempts + 1;
  if (o.ok) return { delivered: [attempts, o.at, o.status, o.at, o.delivery.seq, o.delivery.leaseUntil] };
  const next = retryAt(attempts, o.at, o.retryAfterMs);
  const asked = Math.min(o.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS);
  const seen = o.seenFailures;
  return {
    failed: [
      next === null ? 'failed' : 'pending',
      attempts,
      o.at,
      o.status,
      o.error,
      o.delivery.endpointId,
      next,
      next === null ? null : o.body,
      o.delivery.seq,
      o.delivery.leaseUntil,
    ],
    count: [seen, seen, o.at, asked, ENDPOINT_PAUSE_MS, seen, MAX_DOUBLINGS, options.cycleMs, o.at, asked],
    final: next === null,
  };
}

export async function readEvents(
  kysely: Kysely<DatabaseSchema>,
  ids: string[],
): Promise<Map<string, BoardEventsTable>> {
  const out = new Map<string, BoardEventsTable>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await kysely
      .selectFrom('board_events')
      .selectAll()
      .where('id', 'in', ids.slice(i, i + 500))
      .execute();
    for (const row of rows) out.set(row.id, { ...row, created_at: Number(row.created_at) });
  }
  return out;
}

export async function readEndpoints(
  kysely: Kysely<DatabaseSchema>,
  ids: string[],
): Promise<Map<string, EndpointsTable>> {
  const out = new Map<string, EndpointsTable>();
  if (ids.length === 0) return out;
  const rows = await kysely
    .selectFrom('endpoints')
    .selectAll()
    .where('id', 'in', [...new Set(ids)])
    .execute();
  for (const row of rows) out.set(row.id, row);
  return out;
}
