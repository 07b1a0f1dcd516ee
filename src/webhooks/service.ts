// Managing webhook endpoints (spec 2.6, 3.4): one service layer that the REST routes use now and the
// dashboard will reuse. Every operation is scoped to one account: another account's endpoint does
// not exist for it (404, never 403, so ids cannot be probed).
import type { AirportCatalogue } from '../airports/index.js';
import type { Result } from '../result.js';
import { iso, type Clock } from '../clock.js';
import { atomically } from '../db/atomic.js';
import type { Database, DeliveriesTable, EndpointsTable } from '../db/index.js';
import { newId } from '../ids.js';
import { nameProblem } from '../names.js';
import { deliveryBody, signedAttempt } from './payload.js';
import { newSecret, type SecretBox } from './secrets.js';
import type { Sender } from './sender.js';
import { sql, type Selectable } from 'kysely';
import { endpointTestBucket, takeTestSend } from './limits.js';
import { insertWithinCap } from './repository.js';
import { checkTarget, systemResolver, type Resolver, type TargetPolicy } from './targets.js';

export const MAX_ENDPOINTS_PER_ACCOUNT = 100;
export const MAX_NAME_LENGTH = 100;
export const DELIVERY_PAGE = { default: 50, max: 200 } as const;
/** The endpoint list: the default page holds every endpoint an account may have. */
export const ENDPOINT_PAGE = { default: MAX_ENDPOINTS_PER_ACCOUNT, max: MAX_ENDPOINTS_PER_ACCOUNT } as const;
export const TEST_EVENT_TYPE = 'webhook.test';

export interface WebhookView {
  id: string;
  name: string;
  url: string;
  airports: string[];
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
/** Deliveries put back in the queue per statement of a bulk resend (a few milliseconds of the writer each). */
const RESEND_BATCH = 1000;

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

export interface EndpointInput {
  name?: string;
  url?: string;
  airports?: string[];
}

export interface WebhookServiceOptions {
  db: Database;
  clock: Clock;
  wallClock: Clock;
  catalogue: AirportCatalogue;
  secrets: SecretBox;
  sender: Sender;
  policy: TargetPolicy;
  resolve?: Resolver;
}

const notFound = (id: string): Result<never> => ({ kind: 'not_found', message: `No webhook endpoint ${JSON.stringify(id.slice(0, 100))} in this account` });
const invalid = (message: string): Result<never> => ({ kind: 'invalid', message });

export function toView(row: EndpointsTable): WebhookView {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    airports: JSON.parse(row.airports) as string[],
    enabled: row.enabled === 1,
    consecutiveFailures: row.consecutive_failures,
    pausedUntil: row.enabled === 1 && row.backoff_until != null ? iso(Number(row.backoff_until)) : null,
    disabledAt: row.disabled_at === null ? null : iso(Number(row.disabled_at)),
    disabledReason: row.disabled_reason,
    createdAt: iso(Number(row.created_at)),
    updatedAt: iso(Number(row.updated_at)),
  };
}

function deliveryView(r: Selectable<DeliveriesTable>): DeliveryView {
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

export class WebhookService {
  constructor(private readonly o: WebhookServiceOptions) {}

  /** Catalogue codes, aliases mapped to their primary code (KIV → RMO), duplicates dropped. */
  normaliseAirports(codes: readonly string[]): Result<string[]> {
    const out: string[] = [];
    const unknown: string[] = [];
    for (const code of codes) {
      const airport = this.o.catalogue.find(code);
      if (!airport) unknown.push(JSON.stringify(code.slice(0, 20)));
      else if (!out.includes(airport.iata)) out.push(airport.iata);
    }
    if (unknown.length > 0) {
      return invalid(`airports: ${unknown.join(', ')} ${unknown.length === 1 ? 'is not a catalogue airport' : 'are not catalogue airports'} (GET /api/v1/airports lists the ${this.o.catalogue.airports.length} that are)`);
    }
    if (out.length === 0) return invalid('airports must list at least one catalogue airport');
    return { kind: 'ok', value: out };
  }

  private async checkFields(input: EndpointInput): Promise<Result<{ name?: string; url?: string; airports?: string[] }>> {
    const out: { name?: string; url?: string; airports?: string[] } = {};
    if (input.name !== undefined) {
      const name = input.name.trim();
      const nameIssue = nameProblem('name', name, { min: 1, max: MAX_NAME_LENGTH });
      if (nameIssue) return invalid(nameIssue);
      out.name = name;
    }
    if (input.url !== undefined) {
      const target = await checkTarget(input.url.trim(), this.o.policy, this.o.resolve ?? systemResolver);
      if (!target.ok) return invalid(target.message);
      out.url = target.url.href;
    }
    if (input.airports !== undefined) {
      const airports = this.normaliseAirports(input.airports);
      if (airports.kind !== 'ok') return airports;
      out.airports = airports.value;
    }
    return { kind: 'ok', value: out };
  }

  private row(accountId: string, id: string): Promise<EndpointsTable | undefined> {
    return this.o.db.kysely.selectFrom('endpoints').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  }

  async create(accountId: string, input: Required<EndpointInput>): Promise<Result<WebhookWithSecret>> {
    const fields = await this.checkFields(input);
    if (fields.kind !== 'ok') return fields;
    const id = newId('wh');
    const secret = newSecret();
    const now = this.o.clock.now();
    const row: EndpointsTable = {
      id,
      account_id: accountId,
      name: fields.value.name!,
      url: fields.value.url!,
      airports: JSON.stringify(fields.value.airports!),
      enabled: 1,
      secret: this.o.secrets.seal(id, secret),
      consecutive_failures: 0,
      created_at: now,
      updated_at: now,
      disabled_at: null,
      disabled_reason: null,
    };
    if (!(await insertWithinCap(this.o.db, row, MAX_ENDPOINTS_PER_ACCOUNT))) {
      return { kind: 'conflict', message: `This account already has ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints, the most allowed; delete one first` };
    }
    return { kind: 'ok', value: { ...toView(row), secret } };
  }

  /** The account's endpoints, oldest first (ties in id order); `after` is an endpoint id from an earlier page. */
  async list(accountId: string, page: { limit: number; after?: string } = { limit: ENDPOINT_PAGE.default }): Promise<Result<EndpointPage>> {
    const k = this.o.db.kysely;
    let query = k.selectFrom('endpoints').selectAll().where('account_id', '=', accountId);
    if (page.after !== undefined) {
      const anchor = await this.row(accountId, page.after);
      if (!anchor) return invalid(`after: no webhook endpoint ${JSON.stringify(page.after.slice(0, 100))} in this account`);
      const at = Number(anchor.created_at);
      query = query.where((eb) => eb.or([eb('created_at', '>', at), eb.and([eb('created_at', '=', at), eb('id', '>', anchor.id)])]));
    }
    const rows = await query.orderBy('created_at').orderBy('id').limit(page.limit + 1).execute();
    const hasMore = rows.length > page.limit;
    const shown = rows.slice(0, page.limit);
    return { kind: 'ok', value: { webhooks: shown.map(toView), hasMore, nextAfter: hasMore ? shown[shown.length - 1]!.id : null } };
  }

  async get(accountId: string, id: string): Promise<Result<WebhookView>> {
    const row = await this.row(accountId, id);
    return row ? { kind: 'ok', value: toView(row) } : notFound(id);
  }

  async update(accountId: string, id: string, input: EndpointInput): Promise<Result<WebhookView>> {
    const fields = await this.checkFields(input);
    if (fields.kind !== 'ok') return fields;
    const { name, url, airports } = fields.value;
    const result = await this.o.db.kysely
      .updateTable('endpoints')
      .set({
        ...(name !== undefined ? { name } : {}),
        ...(url !== undefined ? { url } : {}),
        ...(airports !== undefined ? { airports: JSON.stringify(airports) } : {}),
        updated_at: this.o.clock.now(),
      })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return notFound(id);
    return this.get(accountId, id);
  }

  /** Deletes the endpoint and its deliveries, sent or not: nothing more goes to it. */
  async remove(accountId: string, id: string): Promise<Result<{ id: string; deleted: true }>> {
    if (!(await this.row(accountId, id))) return notFound(id);
    const k = this.o.db.kysely;
    const [, , removed] = await atomically(this.o.db, [
      k.deleteFrom('delivery_attempts').where('delivery_id', 'in', k.selectFrom('deliveries').select('id').where('endpoint_id', '=', id)).compile(),
      k.deleteFrom('deliveries').where('endpoint_id', '=', id).compile(),
      k.deleteFrom('endpoints').where('id', '=', id).where('account_id', '=', accountId).compile(),
      k.deleteFrom('rate_limit_windows').where('bucket', '=', endpointTestBucket(id)).compile(),
    ]);
    return removed ? { kind: 'ok', value: { id, deleted: true } } : notFound(id);
  }

  /** A new secret at once; the old one stops verifying with the next attempt. */
  async rotate(accountId: string, id: string): Promise<Result<WebhookWithSecret>> {
    const secret = newSecret();
    const result = await this.o.db.kysely
      .updateTable('endpoints')
      .set({ secret: this.o.secrets.seal(id, secret), updated_at: this.o.clock.now() })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return notFound(id);
    const view = await this.get(accountId, id);
    return view.kind === 'ok' ? { kind: 'ok', value: { ...view.value, secret } } : view;
  }

  /**
   * Re-enables the endpoint: the failure counter starts again from zero and every delivery that
   * waited (queued, or between retries when the endpoint stopped) is due at once, keeping its
   * attempts. Deliveries already failed for good stay failed.
   */
  async enable(accountId: string, id: string): Promise<Result<WebhookView & { resumedDeliveries: number }>> {
    const row = await this.row(accountId, id);
    if (!row) return notFound(id);
    if (row.enabled === 1) return { kind: 'ok', value: { ...toView(row), resumedDeliveries: 0 } };
    const now = this.o.clock.now();
    const k = this.o.db.kysely;
    const [, resumed] = await atomically(this.o.db, [
      k.updateTable('endpoints')
        .set({ enabled: 1, consecutive_failures: 0, backoff_until: null, disabled_at: null, disabled_reason: null, updated_at: now })
        .where('id', '=', id)
        .compile(),
      k.updateTable('deliveries').set({ next_attempt_at: now }).where('endpoint_id', '=', id).where('state', '=', 'pending').compile(),
    ]);
    const view = await this.get(accountId, id);
    return view.kind === 'ok' ? { kind: 'ok', value: { ...view.value, resumedDeliveries: resumed ?? 0 } } : view;
  }

  /**
   * Pauses the endpoint by hand: nothing is sent until it is enabled; what is observed meanwhile is
   * kept as `skipped` deliveries (resendable) for the retention period.
   */
  async disable(accountId: string, id: string): Promise<Result<WebhookView>> {
    const row = await this.row(accountId, id);
    if (!row) return notFound(id);
    if (row.enabled === 0) return { kind: 'ok', value: toView(row) };
    const now = this.o.clock.now();
    const k = this.o.db.kysely;
    await atomically(this.o.db, [
      k.updateTable('endpoints').set({ enabled: 0, disabled_at: now, disabled_reason: 'disabled by the account', updated_at: now }).where('id', '=', id).compile(),
      k.updateTable('deliveries').set({ next_attempt_at: null }).where('endpoint_id', '=', id).where('state', '=', 'pending').compile(),
    ]);
    return this.get(accountId, id);
  }

  /**
   * Sends a signed `webhook.test` event now, whether the endpoint is enabled or not, and answers with
   * the attempt's outcome. A 2xx resets the failure counter; a failure does not count towards it
   * (it is not a delivery). Nothing is queued or retried.
   */
  async test(accountId: string, id: string): Promise<Result<TestResult> | RateLimited> {
    const row = await this.row(accountId, id);
    if (!row) return notFound(id);
    const now = this.o.clock.now();
    const allowed = await takeTestSend(this.o.db, accountId, id, now);
    if (!allowed.ok) return { kind: 'rate_limited', message: allowed.message, retryAfterSeconds: allowed.retryAfterSeconds };
    const airports = JSON.parse(row.airports) as string[];
    const deliveryId = newId('dlv');
    const event = {
      id: newId('evt'),
      type: TEST_EVENT_TYPE,
      airport: airports[0]!,
      created_at: now,
      data: JSON.stringify({ test: true, message: 'A test event sent from the webhook API; it describes no flight.' }),
    };
    const body = deliveryBody(this.o.catalogue, deliveryId, event, { id: row.id, name: row.name, airports });
    const outcome = await this.o.sender.send(
      signedAttempt(row, this.o.secrets, this.o.wallClock, body, { eventId: event.id, eventType: event.type, deliveryId, attempt: 1 }),
    );
    // Listed among the endpoint's deliveries, final at once (it is never retried), unless the endpoint
    // was deleted meanwhile; a 2xx resets the failure counter in the same transaction.
    const k = this.o.db.kysely;
    const record = sql`INSERT INTO deliveries (id, endpoint_id, event_id, event_type, state, attempts, next_attempt_at, lease_until,
        last_attempt_at, last_status, last_error, body, created_at, delivered_at)
      SELECT ${deliveryId}, ${row.id}, ${event.id}, ${event.type}, ${outcome.ok ? 'delivered' : 'failed'}, 1, NULL, NULL,
        ${now}, ${outcome.status}, ${outcome.error}, NULL, ${now}, ${outcome.ok ? now : null}
      WHERE EXISTS (SELECT 1 FROM endpoints WHERE id = ${row.id})`.compile(k);
    const attempt = sql`INSERT INTO delivery_attempts (delivery_id, attempt, at, status, error, duration_ms)
      SELECT ${deliveryId}, 1, ${now}, ${outcome.status}, ${outcome.ok ? null : outcome.error}, ${Math.round(outcome.durationMs * 1000) / 1000}
      WHERE EXISTS (SELECT 1 FROM deliveries WHERE id = ${deliveryId})`.compile(k);
    const reset = k.updateTable('endpoints').set({ consecutive_failures: 0, backoff_until: null }).where('id', '=', row.id).compile();
    await atomically(this.o.db, outcome.ok ? [record, attempt, reset] : [record, attempt]);
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

  /** The endpoint's signing secret, for its owner to copy (the dashboard's "reveal"). */
  async secret(accountId: string, id: string): Promise<Result<{ secret: string }>> {
    const row = await this.row(accountId, id);
    return row ? { kind: 'ok', value: { secret: this.o.secrets.open(id, row.secret) } } : notFound(id);
  }

  /**
   * One more attempt of a delivery, now: the same delivery id and body (receivers deduplicate on the
   * id), its attempt count kept, so a delivery whose retries were used up fails again after one
   * failed attempt. Not for test events (send a new test) nor while the endpoint is disabled.
   */
  async resend(accountId: string, id: string, deliveryId: string): Promise<Result<{ deliveryId: string; nextAttemptAt: string }>> {
    const endpoint = await this.row(accountId, id);
    if (!endpoint) return notFound(id);
    const k = this.o.db.kysely;
    const delivery = await k.selectFrom('deliveries').select(['id', 'event_type', 'state']).where('id', '=', deliveryId).where('endpoint_id', '=', id).executeTakeFirst();
    if (!delivery) return { kind: 'not_found', message: `No delivery ${JSON.stringify(deliveryId.slice(0, 100))} on this endpoint` };
    if (delivery.event_type === TEST_EVENT_TYPE) return invalid('A test event is not resent: send a new test instead');
    if (endpoint.enabled === 0) return invalid('The endpoint is disabled: enable it first, and its waiting deliveries are sent');
    const now = this.o.clock.now();
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
  async resendSince(
    accountId: string,
    id: string,
    request: { since: number; states?: readonly ResendableState[] },
  ): Promise<Result<{ resent: number; since: string; states: ResendableState[]; nextAttemptAt: string }>> {
    const endpoint = await this.row(accountId, id);
    if (!endpoint) return notFound(id);
    if (endpoint.enabled === 0) return invalid('The endpoint is disabled: enable it first, then resend');
    const states = [...new Set(request.states ?? RESENDABLE_STATES)];
    const now = this.o.clock.now();
    if (request.since > now) return invalid(`since: ${iso(request.since)} is in the future`);
    const k = this.o.db.kysely;
    let resent = 0;
    for (let after = 0; ; ) {
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
  async flightsOf(eventIds: string[]): Promise<Map<string, string>> {
    if (eventIds.length === 0) return new Map();
    const rows = await this.o.db.kysely.selectFrom('board_events').select(['id', 'data']).where('id', 'in', eventIds).execute();
    const out = new Map<string, string>();
    for (const row of rows) {
      const number = (JSON.parse(row.data) as { flight?: { flightNumber?: unknown } }).flight?.flightNumber;
      if (typeof number === 'string') out.set(row.id, number);
    }
    return out;
  }

  /** One delivery of the endpoint, with every attempt made of it, first to last. */
  async delivery(accountId: string, id: string, deliveryId: string): Promise<Result<DeliveryView & { attemptLog: AttemptView[] }>> {
    if (!(await this.row(accountId, id))) return notFound(id);
    const k = this.o.db.kysely;
    const row = await k.selectFrom('deliveries').selectAll().where('id', '=', deliveryId).where('endpoint_id', '=', id).executeTakeFirst();
    if (!row) return { kind: 'not_found', message: `No delivery ${JSON.stringify(deliveryId.slice(0, 100))} on this endpoint` };
    const attempts = await k.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('attempt').orderBy('seq').execute();
    const attemptLog = attempts.map((r) => ({ attempt: r.attempt, at: iso(Number(r.at)), statusCode: r.status, error: r.error, durationMs: Number(r.duration_ms) }));
    return { kind: 'ok', value: { ...deliveryView(row), attemptLog } };
  }

  /** The endpoint's deliveries, newest first; `before` is a delivery id from an earlier page. */
  async deliveries(
    accountId: string,
    id: string,
    page: { limit: number; state?: DeliveryState; before?: string },
  ): Promise<Result<DeliveryPage>> {
    if (!(await this.row(accountId, id))) return notFound(id);
    const k = this.o.db.kysely;
    let query = k.selectFrom('deliveries').selectAll().where('endpoint_id', '=', id);
    if (page.before !== undefined) {
      const anchor = await k.selectFrom('deliveries').select('seq').where('id', '=', page.before).where('endpoint_id', '=', id).executeTakeFirst();
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
    const rows = await query.orderBy('seq', 'desc').limit(page.limit + 1).execute();
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
}
