// Managing webhook endpoints (docs/webhooks.md, "Managing endpoints"): one service layer that the REST routes and the dashboard
// use. Every operation is scoped to one account: another account's endpoint does not exist for it
// (404, never 403, so ids cannot be probed). Test sends are test-send.ts, an endpoint's deliveries
// delivery-log.ts, the checks of its fields fields.ts, what is shown views.ts.
import type { CompiledQuery } from 'kysely';
import type { AirportCatalogue } from '../airports/index.js';
import type { Result } from '../result.js';
import type { Clock } from '../clock.js';
import { atomically } from '../db/atomic.js';
import type { Database, EndpointsTable } from '../db/index.js';
import { newId } from '../ids.js';
import { newSecret, type SecretBox } from './secrets.js';
import type { Sender } from './sender.js';
import { endpointTestBucket, ROTATION_OVERLAP } from './limits.js';
import { insertWithinCap } from './repository.js';
import type { Resolver, TargetPolicy } from './targets.js';
import { checkFields, type EndpointInput } from './fields.js';
import { sendTest } from './test-send.js';
import { disabledByFailures, reportDisabled, type EndpointNotices } from './notices.js';
import { publishAccountEvent, type AccountEvent } from './account-events.js';
import {
  deliveryPage,
  deliveryWithAttempts,
  eventDeliveries,
  flightsOf,
  resend,
  resendSince,
  type DeliveryQuery,
} from './delivery-log.js';
import {
  invalid,
  notFound,
  toView,
  type AttemptView,
  type DeliveryPage,
  type DeliveryView,
  type EndpointPage,
  type RateLimited,
  type ResendableState,
  type TestResult,
  type WebhookView,
  type WebhookWithSecret,
} from './views.js';

export const MAX_ENDPOINTS_PER_ACCOUNT = 100;
export const DELIVERY_PAGE = { default: 50, max: 200 } as const;
/** The endpoint list: the default page holds every endpoint an account may have. */
export const ENDPOINT_PAGE = { default: MAX_ENDPOINTS_PER_ACCOUNT, max: MAX_ENDPOINTS_PER_ACCOUNT } as const;

export interface WebhookServiceOptions {
  db: Database;
  clock: Clock;
  wallClock: Clock;
  catalogue: AirportCatalogue;
  secrets: SecretBox;
  sender: Sender;
  policy: TargetPolicy;
  resolve?: Resolver;
  /** Told (by mail) when an endpoint that failures disabled is enabled again. */
  notices?: EndpointNotices;
}

export class WebhookService {
  private readonly removals: ((accountId: string, endpointId: string, at: number) => CompiledQuery[])[] = [];
  constructor(private readonly o: WebhookServiceOptions) {}

  /** Queues an account event for the account's endpoints that ask for its type; how many deliveries were written. */
  publish(event: AccountEvent): Promise<number> {
    return publishAccountEvent(this.o.db, event);
  }

  private row(accountId: string, id: string): Promise<EndpointsTable | undefined> {
    return this.o.db.kysely
      .selectFrom('endpoints')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
  }

  async create(
    accountId: string,
    input: Required<Omit<EndpointInput, 'events'>> & Pick<EndpointInput, 'events'>,
  ): Promise<Result<WebhookWithSecret>> {
    const fields = await checkFields(this.o, input);
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
      account_events: JSON.stringify(fields.value.events ?? []),
      enabled: 1,
      secret: this.o.secrets.seal(id, secret),
      consecutive_failures: 0,
      created_at: now,
      updated_at: now,
      disabled_at: null,
      disabled_reason: null,
    };
    if (!(await insertWithinCap(this.o.db, row, MAX_ENDPOINTS_PER_ACCOUNT))) {
      return {
        kind: 'conflict',
        message: `This account already has ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints, the most allowed; delete one first`,
      };
    }
    return { kind: 'ok', value: { ...toView(row), secret } };
  }

  /** The account's endpoints, oldest first (ties in id order); `after` is an endpoint id from an earlier page. */
  async list(
    accountId: string,
    page: { limit: number; after?: string } = { limit: ENDPOINT_PAGE.default },
  ): Promise<Result<EndpointPage>> {
    const k = this.o.db.kysely;
    let query = k.selectFrom('endpoints').selectAll().where('account_id', '=', accountId);
    if (page.after !== undefined) {
      const anchor = await this.row(accountId, page.after);
      if (!anchor)
        return invalid(`after: no webhook endpoint ${JSON.stringify(page.after.slice(0, 100))} in this account`);
      const at = Number(anchor.created_at);
      query = query.where((eb) =>
        eb.or([eb('created_at', '>', at), eb.and([eb('created_at', '=', at), eb('id', '>', anchor.id)])]),
      );
    }
    const rows = await query
      .orderBy('created_at')
      .orderBy('id')
      .limit(page.limit + 1)
      .execute();
    const hasMore = rows.length > page.limit;
    const shown = rows.slice(0, page.limit);
    return {
      kind: 'ok',
      value: { webhooks: shown.map(toView), hasMore, nextAfter: hasMore ? shown[shown.length - 1]!.id : null },
    };
  }

  async get(accountId: string, id: string): Promise<Result<WebhookView>> {
    const row = await this.row(accountId, id);
    return row ? { kind: 'ok', value: toView(row) } : notFound(id);
  }

  async update(accountId: string, id: string, input: EndpointInput): Promise<Result<WebhookView>> {
    const fields = await checkFields(this.o, input);
    if (fields.kind !== 'ok') return fields;
    const { name, url, airports, events } = fields.value;
    const result = await this.o.db.kysely
      .updateTable('endpoints')
      .set({
        ...(name !== undefined ? { name } : {}),
        ...(url !== undefined ? { url } : {}),
        ...(airports !== undefined ? { airports: JSON.stringify(airports) } : {}),
        ...(events !== undefined ? { account_events: JSON.stringify(events) } : {}),
        updated_at: this.o.clock.now(),
      })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return notFound(id);
    return this.get(accountId, id);
  }

  /** Statements run first in every endpoint's removal, in its transaction (watches left with none stop). */
  alsoOnRemove(statements: (accountId: string, endpointId: string, at: number) => CompiledQuery[]): void {
    this.removals.push(statements);
  }

  /** Deletes the endpoint and its deliveries, sent or not: nothing more goes to it. */
  async remove(accountId: string, id: string): Promise<Result<{ id: string; deleted: true }>> {
    if (!(await this.row(accountId, id))) return notFound(id);
    const k = this.o.db.kysely;
    const steps = [
      ...this.removals.flatMap((statements) => statements(accountId, id, this.o.clock.now())),
      k
        .deleteFrom('delivery_attempts')
        .where('delivery_id', 'in', k.selectFrom('deliveries').select('id').where('endpoint_id', '=', id))
        .compile(),
      k.deleteFrom('deliveries').where('endpoint_id', '=', id).compile(),
      k.deleteFrom('endpoints').where('id', '=', id).where('account_id', '=', accountId).compile(),
      k.deleteFrom('rate_limit_windows').where('bucket', '=', endpointTestBucket(id)).compile(),
    ];
    const removed = (await atomically(this.o.db, steps)).at(-2); // the endpoint's own row
    return removed ? { kind: 'ok', value: { id, deleted: true } } : notFound(id);
  }

  /**
   * A new secret, signing every attempt from now on. The old one goes on signing beside it for
   * `overlapSeconds` (default a day, at most a week; 0 ends it at once), so receivers can move to the
   * new secret without rejecting a delivery (docs/webhooks.md, "Rotating the secret").
   */
  async rotate(
    accountId: string,
    id: string,
    overlapSeconds = ROTATION_OVERLAP.defaultSeconds,
  ): Promise<Result<WebhookWithSecret>> {
    if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > ROTATION_OVERLAP.maxSeconds)
      return invalid(`overlapSeconds must be a whole number from 0 to ${ROTATION_OVERLAP.maxSeconds} (7 days)`);
    const secret = newSecret();
    const now = this.o.clock.now();
    const result = await this.o.db.kysely
      .updateTable('endpoints')
      .set((eb) => ({
        secret: this.o.secrets.seal(id, secret),
        previous_secret: overlapSeconds > 0 ? eb.ref('secret') : null,
        previous_secret_until: overlapSeconds > 0 ? now + overlapSeconds * 1000 : null,
        updated_at: now,
      }))
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
      k
        .updateTable('endpoints')
        .set({
          enabled: 1,
          consecutive_failures: 0,
          backoff_until: null,
          disabled_at: null,
          disabled_reason: null,
          updated_at: now,
        })
        .where('id', '=', id)
        .compile(),
      k
        .updateTable('deliveries')
        .set({ next_attempt_at: now })
        .where('endpoint_id', '=', id)
        .where('state', '=', 'pending')
        .compile(),
    ]);
    if (this.o.notices && disabledByFailures(row.disabled_reason)) {
      await this.o.notices.endpointEnabled({ accountId, endpointId: id, name: row.name, url: row.url, at: now });
    }
    const view = await this.get(accountId, id);
    return view.kind === 'ok' ? { kind: 'ok', value: { ...view.value, resumedDeliveries: resumed ?? 0 } } : view;
  }

  /** Tells the account (by mail) that the delivery worker disabled the endpoint, with its last errors. */
  async reportDisabled(endpointId: string, at: number): Promise<void> {
    if (this.o.notices) await reportDisabled(this.o.db, this.o.notices, endpointId, at);
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
      k
        .updateTable('endpoints')
        .set({ enabled: 0, disabled_at: now, disabled_reason: 'disabled by the account', updated_at: now })
        .where('id', '=', id)
        .compile(),
      k
        .updateTable('deliveries')
        .set({ next_attempt_at: null })
        .where('endpoint_id', '=', id)
        .where('state', '=', 'pending')
        .compile(),
    ]);
    return this.get(accountId, id);
  }

  /**
   * Sends a signed `webhook.test` event now, whether the endpoint is enabled or not, and answers with
   * the attempt's outcome (test-send.ts). Nothing is queued or retried.
   */
  async test(accountId: string, id: string): Promise<Result<TestResult> | RateLimited> {
    const row = await this.row(accountId, id);
    return row ? sendTest(this.o, accountId, row) : notFound(id);
  }

  /** The endpoint's signing secret, for its owner to copy (the dashboard's "reveal"). */
  async secret(accountId: string, id: string): Promise<Result<{ secret: string }>> {
    const row = await this.row(accountId, id);
    return row ? { kind: 'ok', value: { secret: this.o.secrets.open(id, row.secret) } } : notFound(id);
  }

  // The endpoint's deliveries (delivery-log.ts), once it is known to be the account's.

  /** One more attempt of a delivery, now, with its id, body and attempt count. */
  async resend(
    accountId: string,
    id: string,
    deliveryId: string,
  ): Promise<Result<{ deliveryId: string; nextAttemptAt: string }>> {
    const endpoint = await this.row(accountId, id);
    return endpoint ? resend(this.o, endpoint, deliveryId) : notFound(id);
  }

  /** Puts back in the queue every `skipped` and `failed` delivery created at or after `since` (or of the states given). */
  async resendSince(
    accountId: string,
    id: string,
    request: { since: number; states?: readonly ResendableState[] },
  ): Promise<Result<{ resent: number; since: string; states: ResendableState[]; nextAttemptAt: string }>> {
    const endpoint = await this.row(accountId, id);
    return endpoint ? resendSince(this.o, endpoint, request) : notFound(id);
  }

  /** The flight number each board event is about, for events that are about one. */
  flightsOf(eventIds: string[]): Promise<Map<string, string>> {
    return flightsOf(this.o.db, eventIds);
  }

  /** One delivery of the endpoint, with every attempt made of it, first to last. */
  async delivery(
    accountId: string,
    id: string,
    deliveryId: string,
  ): Promise<Result<DeliveryView & { attemptLog: AttemptView[] }>> {
    return (await this.row(accountId, id)) ? deliveryWithAttempts(this.o.db, id, deliveryId) : notFound(id);
  }

  /** The deliveries of these events to the account's endpoints among `endpointIds`, with their endpoint (a watch's events). */
  deliveriesOf(accountId: string, endpointIds: readonly string[], eventIds: readonly string[]) {
    return eventDeliveries(this.o.db, accountId, endpointIds, eventIds);
  }

  /** The endpoint's deliveries, newest first; `before` is a delivery id from an earlier page. */
  async deliveries(accountId: string, id: string, page: DeliveryQuery): Promise<Result<DeliveryPage>> {
    return (await this.row(accountId, id)) ? deliveryPage(this.o.db, id, page) : notFound(id);
  }
}
