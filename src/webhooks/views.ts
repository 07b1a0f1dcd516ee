// What the webhook API and the dashboard show of endpoints, deliveries and attempts, how a row
// becomes each view, and the failures they answer with.
import type { Selectable } from 'kysely';
import { iso } from '../clock.js';
import type { DeliveriesTable, EndpointsTable } from '../db/index.js';
import type { Result } from '../result.js';
import { accountEventsOf } from './account-events.js';

export const notFound = (id: string): Result<never> => ({
  kind: 'not_found',
  message: `No webhook endpoint ${JSON.stringify(id.slice(0, 100))} in this account`,
});
export const noDelivery = (deliveryId: string): Result<never> => ({
  kind: 'not_found',
  message: `No delivery ${JSON.stringify(deliveryId.slice(0, 100))} on this endpoint`,
});
export const invalid = (message: string): Result<never> => ({ kind: 'invalid', message });

export interface WebhookView {
  id: string;
  name: string;
  url: string;
  airports: string[];
  /** Account events it also receives (batch.completed). */
  events: string[];
  enabled: boolean;
  /** Failed attempts in a row across the endpoint's deliveries; 25 disable it. */
  consecutiveFailures: number;
  /**
   * After a failed attempt, no other delivery is sent to it before this time (a pause that grows with
   * each failure, at most one delivery cycle, or the receiver's Retry-After); null when not paused.
   */
  pausedUntil: string | null;
  disabledAt: string | null;
  disabledReason: string | null;
  /** Until when the secret before the last rotation also signs (docs/webhooks.md, "Rotating the secret"); null when it does not. */
  previousSecretUntil: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookWithSecret extends WebhookView {
  /** The signing secret; returned when created or rotated, never listed. */
  secret: string;
}

export type DeliveryState = 'queued' | 'retrying' | 'delivered' | 'failed' | 'skipped';
export const DELIVERY_STATES: readonly DeliveryState[] = ['queued', 'retrying', 'delivered', 'failed', 'skipped'];
/** What a bulk resend takes: deliveries that will not be sent otherwise. */
export type ResendableState = 'skipped' | 'failed';
export const RESENDABLE_STATES: readonly ResendableState[] = ['skipped', 'failed'];

export interface DeliveryView {
  id: string;
  event: string;
  type: string;
  state: DeliveryState;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  /** When the next attempt is due; null once final, and while the endpoint is disabled. */
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
}

/** One attempt of a delivery: when, what the receiver answered (or why there was no answer), how long it took. */
export interface AttemptView {
  attempt: number;
  at: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface TestResult {
  deliveryId: string;
  event: string;
  delivered: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  attemptedAt: string;
}

export interface EndpointPage {
  webhooks: WebhookView[];
  /** More endpoints follow this page. */
  hasMore: boolean;
  /** The `after` of the next page; null on the last. */
  nextAfter: string | null;
}

export interface DeliveryPage {
  deliveries: DeliveryView[];
  /** More (older) deliveries follow this page. */
  hasMore: boolean;
  /** The `before` of the next page; null on the last. */
  nextBefore: string | null;
}

/** A test send refused by its limits (429 with Retry-After). */
export interface RateLimited {
  kind: 'rate_limited';
  message: string;
  retryAfterSeconds: number;
}

export function toView(row: EndpointsTable): WebhookView {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    airports: JSON.parse(row.airports) as string[],
    events: accountEventsOf(row.account_events),
    enabled: row.enabled === 1,
    consecutiveFailures: row.consecutive_failures,
    pausedUntil: row.enabled === 1 && row.backoff_until != null ? iso(Number(row.backoff_until)) : null,
    disabledAt: row.disabled_at === null ? null : iso(Number(row.disabled_at)),
    disabledReason: row.disabled_reason,
    previousSecretUntil:
      row.previous_secret && row.previous_secret_until != null ? iso(Number(row.previous_secret_until)) : null,
    createdAt: iso(Number(row.created_at)),
    updatedAt: iso(Number(row.updated_at)),
  };
}

export function deliveryView(r: Selectable<DeliveriesTable>): DeliveryView {
  return {
    id: r.id,
    event: r.event_id,
    type: r.event_type,
    state: r.state === 'pending' ? (r.attempts === 0 ? 'queued' : 'retrying') : r.state,
    attempts: r.attempts,
    lastStatusCode: r.last_status,
    lastError: r.last_error,
    lastAttemptAt: r.last_attempt_at === null ? null : iso(Number(r.last_attempt_at)),
    nextAttemptAt: r.next_attempt_at === null ? null : iso(Number(r.next_attempt_at)),
    deliveredAt: r.delivered_at === null ? null : iso(Number(r.delivered_at)),
    createdAt: iso(Number(r.created_at)),
  };
}
