// An endpoint's deliveries as its owner sees and steers them: the pages of deliveries, one delivery
// with its attempt log, and resends (one, or all since a time). The caller (service.ts) has checked
// that the endpoint is the account's.
import { sql } from 'kysely';
import { dayProblem, iso, readDay } from '../clock.js';
import { isDesignator } from '../flights/index.js';
import type { Database, EndpointsTable } from '../db/index.js';
import type { Result } from '../result.js';
import type { WebhookServiceOptions } from './service.js';
import { TEST_EVENT_TYPE } from './test-send.js';
import {
  deliveryView,
  invalid,
  noDelivery,
  RESENDABLE_STATES,
  type AttemptView,
  type DeliveryPage,
  type DeliveryState,
  type DeliveryView,
  type ResendableState,
} from './views.js';

/** Deliveries put back in the queue per statement of a bulk resend (a few milliseconds of the writer each). */
const RESEND_BATCH = 1000;

/**
 * One more attempt of a delivery, now: the same delivery id and body (receivers deduplicate on the
 * id), its attempt count kept, so a delivery whose retries were used up fails again after one
 * failed attempt. Not for test events (send a new test) nor while the endpoint is disabled.
 */
export async function resend(
  o: WebhookServiceOptions,
  endpoint: EndpointsTable,
  deliveryId: string,
): Promise<Result<{ deliveryId: string; nextAttemptAt: string }>> {
  const id = endpoint.id;
  const k = o.db.kysely;
  const delivery = await k
    .selectFrom('deliveries')
    .select(['id', 'event_type', 'state'])
    .where('id', '=', deliveryId)
    .where('endpoint_id', '=', id)
    .executeTakeFirst();
  if (!delivery) return noDelivery(deliveryId);
  if (delivery.event_type === TEST_EVENT_TYPE) return invalid('A test event is not resent: send a new test instead');
  if (endpoint.enabled === 0)
    return invalid('The endpoint is disabled: enable it first, and its waiting deliveries are sent');
  const now = o.clock.now();
  await k
    .updateTable('deliveries')
    .set({ state: 'pending', next_attempt_at: now, lease_until: null })
    .where('id', '=', deliveryId)
    .where('endpoint_id', '=', id)
    .execute();
  return { kind: 'ok', value: { deliveryId, nextAttemptAt: iso(now) } };
}

/**
 * Puts back in the queue, due now, every delivery of the endpoint created at or after `since` that
 * would not be sent otherwise: `skipped` (observed while the endpoint was disabled) and `failed`
 * (retries used up), or only the states given. Like a single resend, each keeps its id, body and
 * attempt count (a failed one gets one more attempt). Test events are never resent. The endpoint
 * must be enabled. Oldest first, in batches, so the queue keeps the events' order.
 */
export async function resendSince(
  o: WebhookServiceOptions,
  endpoint: EndpointsTable,
  request: { since: number; states?: readonly ResendableState[] },
): Promise<Result<{ resent: number; since: string; states: ResendableState[]; nextAttemptAt: string }>> {
  const id = endpoint.id;
  if (endpoint.enabled === 0) return invalid('The endpoint is disabled: enable it first, then resend');
  const states = [...new Set(request.states ?? RESENDABLE_STATES)];
  const now = o.clock.now();
  if (request.since > now) return invalid(`since: ${iso(request.since)} is in the future`);
  const k = o.db.kysely;
  let resent = 0;
  for (let after = 0; ;) {
    const batch = await k
      .selectFrom('deliveries')
      .select('seq')
      .where('endpoint_id', '=', id)
      .where('seq', '>', after)
      .where('created_at', '>=', request.since)
      .where('state', 'in', states)
      .where('event_type', '<>', TEST_EVENT_TYPE)
      .orderBy('seq')
      .limit(RESEND_BATCH)
      .execute();
    if (batch.length === 0) break;
    const seqs = batch.map((r) => Number(r.seq));
    const updated = await k
      .updateTable('deliveries')
      .set({ state: 'pending', next_attempt_at: now, lease_until: null })
      .where('seq', 'in', seqs)
      .where('state', 'in', states)
      .executeTakeFirst();
    resent += Number(updated.numUpdatedRows);
    after = seqs[seqs.length - 1]!;
    if (batch.length < RESEND_BATCH) break;
  }
  return { kind: 'ok', value: { resent, since: iso(request.since), states, nextAttemptAt: iso(now) } };
}

/** The flight number each board event is about, for events that are about one. */
export async function flightsOf(db: Database, eventIds: string[]): Promise<Map<string, string>> {
  if (eventIds.length === 0) return new Map();
  const rows = await db.kysely.selectFrom('board_events').select(['id', 'data']).where('id', 'in', eventIds).execute();
  const out = new Map<string, string>();
  for (const row of rows) {
    const number = (JSON.parse(row.data) as { flight?: { flightNumber?: unknown } }).flight?.flightNumber;
    if (typeof number === 'string') out.set(row.id, number);
  }
  return out;
}

/** The deliveries of these events to those of these endpoints that are the account's (a watch's events: src/watches). */
export async function eventDeliveries(
  db: Database,
  accountId: string,
  endpointIds: readonly string[],
  eventIds: readonly string[],
): Promise<(DeliveryView & { endpoint: string })[]> {
  if (endpointIds.length === 0 || eventIds.length === 0) return [];
  const rows = await db.kysely
    .selectFrom('deliveries as d')
    .innerJoin('endpoints as e', 'e.id', 'd.endpoint_id')
    .selectAll('d')
    .where('e.account_id', '=', accountId)
    .where('d.endpoint_id', 'in', [...endpointIds])
    .where('d.event_id', 'in', [...eventIds])
    .execute();
  return rows.map((row) => ({ endpoint: row.endpoint_id, ...deliveryView(row) }));
}

/** One delivery of the endpoint, with every attempt made of it, first to last. */
export async function deliveryWithAttempts(
  db: Database,
  id: string,
  deliveryId: string,
): Promise<Result<DeliveryView & { attemptLog: AttemptView[] }>> {
  const k = db.kysely;
  const row = await k
    .selectFrom('deliveries')
    .selectAll()
    .where('id', '=', deliveryId)
    .where('endpoint_id', '=', id)
    .executeTakeFirst();
  if (!row) return noDelivery(deliveryId);
  const attempts = await k
    .selectFrom('delivery_attempts')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .orderBy('attempt')
    .orderBy('seq')
    .execute();
  const attemptLog = attempts.map((r) => ({
    attempt: r.attempt,
    at: iso(Number(r.at)),
    statusCode: r.status,
    error: r.error,
    durationMs: Number(r.duration_ms),
  }));
  return { kind: 'ok', value: { ...deliveryView(row), attemptLog } };
}

/** Which deliveries a page shows: newest first, `before` a delivery id from an earlier page; the rest filter. */
export interface DeliveryQuery {
  limit: number;
  state?: DeliveryState;
  before?: string;
  /** The event type, e.g. `flight.delayed`. */
  type?: string;
  /** A flight designator (letters and digits, upper case): deliveries of its board events. */
  flight?: string;
  /** Created at or after, and before (ms). */
  from?: number;
  to?: number;
}

/**
 * The filters of a delivery page as a person or a client gives them (blank means none): an event
 * type, a flight number, and UTC days from and to (both included). The API and the dashboard read
 * them alike; a value that does not fit is named.
 */
export function deliveryFilter(raw: {
  type?: string;
  flight?: string;
  from?: string;
  to?: string;
}): Pick<DeliveryQuery, 'type' | 'flight' | 'from' | 'to'> | { problem: string } {
  const out: Pick<DeliveryQuery, 'type' | 'flight' | 'from' | 'to'> = {};
  const type = raw.type?.trim() ?? '';
  if (type !== '') {
    if (type.length > 40 || !/^[a-z_]+\.[a-z_]+$/.test(type))
      return { problem: 'type must be an event type like flight.delayed' };
    out.type = type;
  }
  const flight = raw.flight?.trim().toUpperCase() ?? '';
  if (flight !== '') {
    if (!isDesignator(flight)) return { problem: 'flight must be a flight number like W63101 or W6 3101' };
    out.flight = flight;
  }
  for (const name of ['from', 'to'] as const) {
    const text = raw[name]?.trim() ?? '';
    if (text === '') continue;
    const day = readDay(text);
    if (!day.ok) return { problem: dayProblem(name, text, day.problem) };
    out[name] = name === 'to' ? day.at + 86_400_000 : day.at;
  }
  if (out.from !== undefined && out.to !== undefined && out.from >= out.to)
    return { problem: 'from must not be after to' };
  return out;
}

/** The endpoint's deliveries, newest first; `before` is a delivery id from an earlier page. */
export async function deliveryPage(db: Database, id: string, page: DeliveryQuery): Promise<Result<DeliveryPage>> {
  const k = db.kysely;
  let query = k.selectFrom('deliveries').selectAll().where('endpoint_id', '=', id);
  if (page.type !== undefined) query = query.where('event_type', '=', page.type);
  if (page.from !== undefined) query = query.where('created_at', '>=', page.from);
  if (page.to !== undefined) query = query.where('created_at', '<', page.to);
  if (page.flight !== undefined) {
    // The flight number is in the event's data as the board printed it ("W6 3101" or "W63101"): compared without spaces.
    const needle = `%"flightNumber":"${page.flight.replace(/ /g, '')}"%`;
    query = query.where(
      'event_id',
      'in',
      k
        .selectFrom('board_events')
        .select('id')
        .where(sql<string>`replace(data, ' ', '')`, 'like', needle),
    );
  }
  if (page.before !== undefined) {
    const anchor = await k
      .selectFrom('deliveries')
      .select('seq')
      .where('id', '=', page.before)
      .where('endpoint_id', '=', id)
      .executeTakeFirst();
    if (!anchor) return invalid(`before: no delivery ${JSON.stringify(page.before.slice(0, 100))} on this endpoint`);
    query = query.where('seq', '<', anchor.seq);
  }
  switch (page.state) {
    case 'queued':
      query = query.where('state', '=', 'pending').where('attempts', '=', 0);
      break;
    case 'retrying':
      query = query.where('state', '=', 'pending').where('attempts', '>', 0);
      break;
    case 'delivered':
    case 'failed':
    case 'skipped':
      query = query.where('state', '=', page.state);
  }
  const rows = await query
    .orderBy('seq', 'desc')
    .limit(page.limit + 1)
    .execute();
  const more = rows.length > page.limit;
  const shown = rows.slice(0, page.limit);
  return {
    kind: 'ok',
    value: {
      deliveries: shown.map(deliveryView),
      hasMore: more,
      nextBefore: more ? shown[shown.length - 1]!.id : null,
    },
  };
}
