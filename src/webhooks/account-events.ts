// Account events (docs/webhooks.md, docs/batches.md "batch.completed"): what happens to an account's own work rather than on an airport's
// boards. An endpoint receives the types listed in its `events`, signed and retried like board
// events. The delivery's body is written once, here (there is no board event to build it from), and
// kept after it is delivered so that it can be resent.
import { iso } from '../clock.js';
import type { Kysely } from 'kysely';
import type { Database, DatabaseSchema } from '../db/index.js';
import { newId } from '../ids.js';

export const ACCOUNT_EVENT_TYPES = ['batch.completed'] as const;
export type AccountEventType = (typeof ACCOUNT_EVENT_TYPES)[number];
/**
 * Events whose body is written once when queued and kept for a resend, as an account event's: there
 * is no board event to build them from. `flight.settled` (src/watches/settle.ts) goes to a watch's
 * endpoints, whatever `events` they select.
 */
export const KEPT_BODY_EVENT_TYPES = [...ACCOUNT_EVENT_TYPES, 'flight.settled'] as const;

export interface AccountEvent {
  /** Stable for one occurrence: publishing it again adds no second delivery to an endpoint. */
  id: string;
  type: AccountEventType;
  accountId: string;
  createdAt: number;
  data: unknown;
}

/** The endpoint's account events, as stored (a JSON array; older rows have none). */
export const accountEventsOf = (stored: string | null | undefined): AccountEventType[] =>
  stored ? (JSON.parse(stored) as AccountEventType[]) : [];

/**
 * One delivery of the event to each endpoint of the account that asks for its type: queued for the
 * next delivery cycle, or `skipped` on a disabled endpoint (resendable once it is enabled). How many
 * were written.
 */
export async function publishAccountEvent(db: Database, event: AccountEvent): Promise<number> {
  const endpoints = await db.kysely
    .selectFrom('endpoints')
    .select(['id', 'name', 'airports', 'account_events', 'enabled'])
    .where('account_id', '=', event.accountId)
    .execute();
  const chosen = endpoints.filter((e) => accountEventsOf(e.account_events).includes(event.type));
  if (chosen.length === 0) return 0;
  const rows = chosen.map((endpoint) => keptBodyDelivery(event, endpoint));
  const inserted = await db.kysely
    .insertInto('deliveries')
    .values(rows)
    .onConflict((oc) => oc.columns(['event_id', 'endpoint_id']).doNothing())
    .returning('id')
    .execute();
  return inserted.length;
}

/** An event that names watches (`flight.settled`): written in the caller's transaction, to the endpoints given. */
export interface WatchEvent {
  /** Stable for one occurrence: writing it again adds no second delivery to an endpoint. */
  id: string;
  type: (typeof KEPT_BODY_EVENT_TYPES)[number];
  createdAt: number;
  data: unknown;
  /** The endpoints it goes to, each with the watches it names there (`watches` beside `webhook`). */
  to: { endpointId: string; watches: { id: string; reference: string | null }[] }[];
}

/** One delivery of a watch event per endpoint (`skipped` on a disabled one); how many were written. */
export async function queueWatchEvent(db: Kysely<DatabaseSchema>, event: WatchEvent): Promise<number> {
  if (event.to.length === 0) return 0;
  const endpoints = await db
    .selectFrom('endpoints')
    .select(['id', 'name', 'airports', 'enabled'])
    .where(
      'id',
      'in',
      event.to.map((t) => t.endpointId),
    )
    .execute();
  const watches = new Map(event.to.map((t) => [t.endpointId, t.watches]));
  const rows = endpoints.map((endpoint) => keptBodyDelivery(event, endpoint, watches.get(endpoint.id)));
  if (rows.length === 0) return 0;
  const inserted = await db
    .insertInto('deliveries')
    .values(rows)
    .onConflict((oc) => oc.columns(['event_id', 'endpoint_id']).doNothing())
    .returning('id')
    .execute();
  return inserted.length;
}

/** A delivery whose body is written now and kept: queued for the next cycle, or `skipped` on a disabled endpoint. */
function keptBodyDelivery(
  event: { id: string; type: string; createdAt: number; data: unknown },
  endpoint: { id: string; name: string; airports: string; enabled: number },
  watches?: { id: string; reference: string | null }[],
) {
  const id = newId('dlv');
  const body =
    `{"id":${JSON.stringify(id)},"event":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},` +
    `"createdAt":${JSON.stringify(iso(event.createdAt))},` +
    `"webhook":${JSON.stringify({ id: endpoint.id, name: endpoint.name, airports: JSON.parse(endpoint.airports) as string[] })},` +
    (watches ? `"watches":${JSON.stringify(watches)},` : '') +
    `"airport":null,"data":${JSON.stringify(event.data)}}`;
  const enabled = Number(endpoint.enabled) === 1;
  return {
    id,
    endpoint_id: endpoint.id,
    event_id: event.id,
    event_type: event.type,
    state: enabled ? ('pending' as const) : ('skipped' as const),
    attempts: 0,
    next_attempt_at: enabled ? event.createdAt : null,
    lease_until: null,
    last_attempt_at: null,
    last_status: null,
    last_error: null,
    body,
    created_at: event.createdAt,
    delivered_at: null,
  };
}
