// Watches as the API and the CLI see them (docs/watches.md): create them (checked, found again when
// already active, paid for), list, read one with what the service knows of its flight and the events
// sent for it (from the delivery log), stop one.
import { createHash } from 'node:crypto';
import type { CompiledQuery } from 'kysely';
import type { Principal } from '../auth/index.js';
import { iso, type Clock } from '../clock.js';
import type { FlightResolver, FlightStatusData } from '../flights/index.js';
import { parseFlightQuery } from '../flights/index.js';
import { newId } from '../ids.js';
import type { CreditPosition, MeteringService, RefusalLog } from '../metering/index.js';
import type { Result } from '../result.js';
import type { WebhookService } from '../webhooks/index.js';
import type { WatchRow } from './input.js';
import { isUniqueViolation, type ListFilter, type WatchRecord, type WatchStore } from './store.js';
import type { WatchSubscriptions } from './subscriptions.js';

/** Active watches an account may have, on any plan: a watch is followed until it ends, and 10,000 is a full batch. */
export const MAX_ACTIVE_WATCHES = 10_000;
export const WATCH_PAGE = { default: 50, max: 200 } as const;
export const WATCH_STATES = ['active', 'stopped', 'ended'] as const;
/** The endpoint of a watch's usage row: a watch costs what a lookup costs, once, when it is created. */
export const WATCH_USAGE_ENDPOINT = 'POST /api/v1/watches';
/** The events a watch lists (GET /api/v1/watches/{id}): the latest, newest first. */
export const WATCH_EVENTS_SHOWN = 100;
/** Rows named in the message of a request refused for its invalid rows. */
const NAMED_PROBLEMS = 5;

export interface WatchView {
  id: string;
  state: WatchRecord['state'];
  flightNumber: string;
  flightDate: string;
  dateBasis: 'utc' | 'local';
  origin: string | null;
  destination: string | null;
  reference: string | null;
  endpoints: string[];
  createdAt: string;
  endedAt: string | null;
  endedReason: string | null;
}

/** An event observed for a watch, and its deliveries to the watch's endpoints (from the delivery log). */
export interface WatchEvent {
  id: string;
  type: string;
  createdAt: string;
  deliveries: {
    endpoint: string;
    id: string;
    state: string;
    attempts: number;
    lastStatusCode: number | null;
    lastAttemptAt: string | null;
    deliveredAt: string | null;
  }[];
}

export interface WatchDetail extends WatchView {
  /** The flight's status (GET /api/v1/flights/status's data) when the service already holds it; null otherwise. */
  flight: FlightStatusData | null;
  /** The events observed for this watch, newest first, the latest WATCH_EVENTS_SHOWN. */
  events: WatchEvent[];
}

/** A watch of a request: which input rows named it, and whether it was active before the request. */
export type ListedWatch = WatchView & { rows: number[]; existing: boolean };

export interface Created {
  watches: ListedWatch[];
  created: number;
  existing: number;
  /** Credits taken: one per watch created. */
  credits: number;
  invalid: { row: number; error: string }[];
  ignoredColumns: string[];
  /** The credit position after the request, for the headers. */
  position: CreditPosition | null;
}

export type CreateResult = Result<Created> | { kind: 'exhausted'; needed: number; position: CreditPosition };

export interface CreateRequest {
  principal: Principal;
  rows: WatchRow[];
  ignoredColumns: string[];
  skipInvalid: boolean;
  /** One watch asked for as a JSON object (not a list). */
  single?: boolean;
}

export class WatchService {
  constructor(
    private readonly o: {
      store: WatchStore;
      subscriptions: Pick<WatchSubscriptions, 'events'>;
      clock: Clock;
      metering: MeteringService;
      /** A creation refused for want of credits is counted, as the guard counts a lookup's 429 (the dashboard's chart). */
      refusals: Pick<RefusalLog, 'note'>;
      webhooks: Pick<WebhookService, 'list' | 'deliveriesOf'>;
      resolver: FlightResolver;
      /** The statements that start following the new watches' flights, in the transaction that makes them. */
      enrolments: (watches: WatchRecord[], at: number) => CompiledQuery[];
    },
  ) {}

  async create(r: CreateRequest): Promise<CreateResult> {
    const accountId = r.principal.account.id;
    const { rows } = r;
    if (rows.length === 0) return { kind: 'invalid', message: 'The request holds no watches' };
    const bad = rows.filter((row) => row.query === null);
    // One watch asked for: there is nothing valid to create beside it, so no hint of skipInvalid.
    if (r.single && bad.length === 1)
      return { kind: 'invalid', message: `The watch is invalid and was not created: ${bad[0]!.error}` };
    if (bad.length > 0 && !r.skipInvalid) {
      const named = bad.slice(0, NAMED_PROBLEMS).map((row) => `row ${row.position}: ${row.error}`);
      const more = bad.length > NAMED_PROBLEMS ? `; and ${bad.length - NAMED_PROBLEMS} more` : '';
      return {
        kind: 'invalid',
        message: `${bad.length} of ${rows.length} rows are invalid and no watch was created (send ?skipInvalid=1 to create the valid ones and list the others): ${named.join('; ')}${more}`,
      };
    }
    const good = rows.filter((row) => row.query !== null);
    if (good.length === 0)
      return { kind: 'invalid', message: `All ${rows.length} rows are invalid; no watch was created` };
    const own = await this.o.webhooks.list(accountId);
    if (own.kind !== 'ok') return own;
    const known = new Set(own.value.webhooks.map((w) => w.id));
    const foreign = [...new Set(good.flatMap((row) => row.endpoints.filter((id) => !known.has(id))))];
    if (foreign.length > 0) {
      const shown = foreign.slice(0, NAMED_PROBLEMS).map((id) => JSON.stringify(id.slice(0, 100)));
      return {
        kind: 'invalid',
        message: `${foreign.length === 1 ? 'Endpoint' : 'Endpoints'} ${shown.join(', ')}${foreign.length > NAMED_PROBLEMS ? ` and ${foreign.length - NAMED_PROBLEMS} more` : ''} ${foreign.length === 1 ? 'is not a webhook endpoint' : 'are not webhook endpoints'} of this account; no watch was created`,
      };
    }

    // Rows asking for the same watch (flight, reference, endpoints) share one; an active one is found again.
    const now = this.o.clock.now();
    const byKey = new Map<string, { record: WatchRecord; rows: number[] }>();
    for (const row of good) {
      const record = draft(accountId, row, now);
      const seen = byKey.get(record.watch_key);
      if (seen) seen.rows.push(row.position);
      else byKey.set(record.watch_key, { record, rows: [row.position] });
    }
    const active = await this.o.store.activeByKey(accountId, [...byKey.keys()]);
    const fresh = [...byKey.values()].filter((w) => !active.has(w.record.watch_key)).map((w) => w.record);
    const limit = limitProblem(fresh.length, await this.o.store.activeCount(accountId));
    if (fresh.length > 0 && limit) return { kind: 'conflict', message: limit };

    let position: CreditPosition | null = null;
    if (fresh.length > 0) {
      let charge;
      try {
        charge = await this.o.metering.chargeAll(
          r.principal,
          fresh.map((w) => ({ at: now, endpoint: WATCH_USAGE_ENDPOINT, query: usageQuery(w), status: 201 })),
          {
            check: {
              query: this.o.store.countActive(accountId),
              refuse: (found) => limitProblem(fresh.length, Number(found[0]?.active ?? 0)),
            },
            writes: [...this.o.store.inserts(fresh), ...this.o.enrolments(fresh, now)],
          },
          now,
        );
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        return {
          kind: 'conflict',
          message:
            'A request at the same moment created one of these watches; nothing was created by this one. Send it again: the watches that exist are returned, not charged again',
        };
      }
      if (charge.kind === 'exhausted') {
        this.o.refusals.note(accountId, now, 429);
        return { kind: 'exhausted', needed: fresh.length, position: charge.position };
      }
      if (charge.kind === 'refused') return { kind: 'conflict', message: charge.reason };
      position = charge.position;
    }
    const watches = [...byKey.values()].map(({ record, rows: positions }) => {
      const before = active.get(record.watch_key);
      return { ...view(before ?? record), rows: positions, existing: before !== undefined };
    });
    return {
      kind: 'ok',
      value: {
        watches,
        created: fresh.length,
        existing: watches.length - fresh.length,
        credits: fresh.length,
        invalid: bad.map((row) => ({ row: row.position, error: row.error ?? 'invalid' })),
        ignoredColumns: r.ignoredColumns,
        position,
      },
    };
  }

  async list(
    accountId: string,
    filter: ListFilter,
    page: { limit: number; after?: string },
  ): Promise<Result<{ watches: WatchView[]; hasMore: boolean; nextAfter: string | null }>> {
    let anchor: WatchRecord | undefined;
    if (page.after !== undefined) {
      anchor = await this.o.store.find(accountId, page.after);
      if (!anchor)
        return {
          kind: 'invalid',
          message: `after: no watch ${JSON.stringify(page.after.slice(0, 100))} in this account`,
        };
    }
    const rows = await this.o.store.list(accountId, filter, page.limit, anchor);
    const hasMore = rows.length > page.limit;
    const shown = rows.slice(0, page.limit);
    return {
      kind: 'ok',
      value: { watches: shown.map(view), hasMore, nextAfter: hasMore ? shown[shown.length - 1]!.id : null },
    };
  }

  async get(accountId: string, id: string): Promise<Result<WatchDetail>> {
    const record = await this.o.store.find(accountId, id);
    if (!record) return notFound(id);
    const [flight, events] = [await this.known(record), await this.events(accountId, record)];
    return { kind: 'ok', value: { ...view(record), flight, events } };
  }

  /** The events observed for the watch, newest first, with their deliveries to its endpoints. */
  private async events(accountId: string, record: WatchRecord): Promise<WatchEvent[]> {
    const events = await this.o.subscriptions.events(record.id, WATCH_EVENTS_SHOWN);
    const deliveries = await this.o.webhooks.deliveriesOf(
      accountId,
      record.endpoints,
      events.map((e) => e.id),
    );
    return events.map((e) => ({
      id: e.id,
      type: e.type,
      createdAt: iso(e.createdAt),
      deliveries: deliveries
        .filter((d) => d.event === e.id)
        .sort((a, b) => (a.endpoint < b.endpoint ? -1 : 1))
        .map((d) => ({
          endpoint: d.endpoint,
          id: d.id,
          state: d.state,
          attempts: d.attempts,
          lastStatusCode: d.lastStatusCode,
          lastAttemptAt: d.lastAttemptAt,
          deliveredAt: d.deliveredAt,
        })),
    }));
  }

  /** Stops an active watch; one already stopped or ended is answered as it is. */
  async stop(accountId: string, id: string): Promise<Result<WatchView>> {
    if (!(await this.o.store.find(accountId, id))) return notFound(id);
    await this.o.store.stop(accountId, id, this.o.clock.now());
    const record = await this.o.store.find(accountId, id);
    return record ? { kind: 'ok', value: view(record) } : notFound(id);
  }

  /** The flight as the service holds it: the answer the watch ended on, else a lookup's stored record (no credit). */
  private async known(record: WatchRecord): Promise<FlightStatusData | null> {
    if (record.record) return JSON.parse(record.record) as FlightStatusData;
    const parsed = parseFlightQuery(queryFields(record));
    if (!parsed.ok || !this.o.resolver.replay) return null;
    const replay = await this.o.resolver.replay(parsed.query, {
      signal: AbortSignal.timeout(10_000),
      requestId: `watch:${record.id}`,
    });
    return replay === null ? null : (JSON.parse(replay) as FlightStatusData);
  }
}

function limitProblem(adding: number, active: number): string | null {
  if (active + adding <= MAX_ACTIVE_WATCHES) return null;
  return `An account may have at most ${MAX_ACTIVE_WATCHES.toLocaleString('en')} active watches; this one has ${active.toLocaleString('en')} and the request would add ${adding.toLocaleString('en')}. Stop watches that are no longer needed (DELETE /api/v1/watches/{id}); nothing was created`;
}

function draft(accountId: string, row: WatchRow, now: number): WatchRecord {
  const q = row.query!;
  const endpoints = [...row.endpoints].sort();
  const canonical = new URLSearchParams({
    flightNumber: q.designator,
    flightDate: q.flightDate,
    dateBasis: q.dateBasis,
    origin: q.origin ?? '',
    destination: q.destination ?? '',
    reference: row.reference ?? '',
    endpoints: endpoints.join(','),
  }).toString();
  return {
    id: newId('wch'),
    account_id: accountId,
    flight_number: q.designator,
    flight_date: q.flightDate,
    date_basis: q.dateBasis,
    origin: q.origin,
    destination: q.destination,
    reference: row.reference,
    watch_key: createHash('sha256').update(canonical).digest('hex'),
    state: 'active',
    ended_reason: null,
    created_at: now,
    ended_at: null,
    endpoints,
  };
}

/** The lookup's parameters of the watched flight. */
export function queryFields(w: WatchRecord): Record<string, string> {
  return {
    flightNumber: w.flight_number,
    flightDate: w.flight_date,
    ...(w.date_basis === 'local' ? { dateBasis: 'local' } : {}),
    ...(w.origin ? { origin: w.origin } : {}),
    ...(w.destination ? { destination: w.destination } : {}),
  };
}

/** A watch's usage row: its id, and the flight as a lookup would be asked for it. */
const usageQuery = (w: WatchRecord): string => new URLSearchParams({ watch: w.id, ...queryFields(w) }).toString();

export function view(w: WatchRecord): WatchView {
  return {
    id: w.id,
    state: w.state,
    flightNumber: w.flight_number,
    flightDate: w.flight_date,
    dateBasis: w.date_basis,
    origin: w.origin,
    destination: w.destination,
    reference: w.reference,
    endpoints: w.endpoints,
    createdAt: iso(Number(w.created_at)),
    endedAt: w.ended_at === null ? null : iso(Number(w.ended_at)),
    endedReason: w.ended_reason,
  };
}

const notFound = (id: string): Result<never> => ({
  kind: 'not_found',
  message: `No watch ${JSON.stringify(id.slice(0, 100))} in this account`,
});
