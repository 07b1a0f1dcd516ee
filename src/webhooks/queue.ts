// The delivery queue in the database (spec 3.3, 6.5). Deliveries are created by the board pass in the
// transaction that stores its events (fan-out), claimed by workers under a lease, and settled by the
// outcome of each attempt. On SQLite every step is statements prepared once and run in the group
// transaction (one process writes at a time, so a claim cannot be taken twice); on PostgreSQL the
// claim locks its rows with FOR UPDATE SKIP LOCKED, so several worker processes share the queue
// without sending a delivery twice.
import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, sql, type Kysely, type Transaction } from 'kysely';
import { atomically } from '../db/atomic.js';
import type { BoardEventsTable, Database, DatabaseSchema, EndpointsTable } from '../db/index.js';
import { MINUTE } from '../clock.js';
import { newId } from '../ids.js';

/** Waits before attempts 2, 3, 4 and 5 (spec 6.5). */
export const RETRY_DELAYS_MS = [1 * MINUTE, 5 * MINUTE, 20 * MINUTE, 60 * MINUTE] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** Consecutive failed attempts across an endpoint's deliveries that disable it (spec 3.4). */
export const DISABLE_AFTER_FAILURES = 25;
export const DISABLED_BY_FAILURES = `${DISABLE_AFTER_FAILURES} consecutive failed deliveries`;

export interface Claimed {
  seq: number;
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  /** Attempts already made (the one about to be made is attempts + 1). */
  attempts: number;
  /** The bytes of the first attempt, when there was one. */
  body: string | null;
  /** The claim's token: only the holder of this lease may settle the delivery. */
  leaseUntil: number;
}

export interface Outcome {
  delivery: Claimed;
  ok: boolean;
  status: number | null;
  error: string | null;
  /** When the attempt ended, by the service clock. */
  at: number;
  /** The bytes sent, kept for the retries. */
  body: string;
}

export interface Settled {
  /** The attempt was recorded (false when the lease had been lost to another worker). */
  recorded: boolean;
  state: 'delivered' | 'pending' | 'failed';
  /** This failure disabled the endpoint. */
  disabledEndpoint: boolean;
}

export interface ClaimRequest {
  now: number;
  leaseUntil: number;
  limit: number;
  perEndpoint: number;
  /** Endpoints this worker holds enough of already. */
  exclude: string[];
}

export interface DeliveryQueue {
  claim(request: ClaimRequest): Promise<Claimed[]>;
  settle(outcome: Outcome): Promise<Settled>;
  /** Gives claimed deliveries back unattempted (a stopping worker). */
  release(deliveries: Claimed[]): Promise<void>;
  events(ids: string[]): Promise<Map<string, BoardEventsTable>>;
  endpoints(ids: string[]): Promise<Map<string, EndpointsTable>>;
}

/**
 * How many due deliveries a claim looks at, per delivery it wants, to share its batch fairly among
 * endpoints (at most `perEndpoint` each): a long queue of one endpoint cannot fill a whole batch.
 */
const CLAIM_SCAN_FACTOR = 4;
const claimScan = (limit: number) => Math.max(64, limit * CLAIM_SCAN_FACTOR);

const retryAt = (attempts: number, at: number): number | null =>
  attempts >= MAX_ATTEMPTS ? null : at + RETRY_DELAYS_MS[attempts - 1]!;

const CLAIM_SQLITE = `
WITH due AS (
  SELECT d.seq, d.endpoint_id, d.next_attempt_at FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id AND e.enabled = 1
  WHERE d.state = 'pending' AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until <= ?)
  ORDER BY d.next_attempt_at, d.seq LIMIT ?
), ranked AS (
  SELECT seq, endpoint_id, next_attempt_at, ROW_NUMBER() OVER (PARTITION BY endpoint_id ORDER BY next_attempt_at, seq) AS rn FROM due
)
UPDATE deliveries SET lease_until = ?
WHERE seq IN (
  SELECT seq FROM ranked WHERE rn <= ? AND endpoint_id NOT IN (SELECT value FROM json_each(?)) ORDER BY next_attempt_at, seq LIMIT ?
)
RETURNING seq, id, endpoint_id, event_id, event_type, attempts, body`;

const CLAIM_POSTGRES = `
WITH due AS (
  SELECT d.seq, d.endpoint_id, d.next_attempt_at FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id AND e.enabled = 1
  WHERE d.state = 'pending' AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until <= $1)
  ORDER BY d.next_attempt_at, d.seq LIMIT $6
  FOR UPDATE OF d SKIP LOCKED
), ranked AS (
  SELECT seq, endpoint_id, next_attempt_at, ROW_NUMBER() OVER (PARTITION BY endpoint_id ORDER BY next_attempt_at, seq) AS rn FROM due
), chosen AS (
  SELECT seq FROM ranked WHERE rn <= $4 AND endpoint_id <> ALL($2::text[]) ORDER BY next_attempt_at, seq LIMIT $5
)
UPDATE deliveries SET lease_until = $3 FROM chosen WHERE deliveries.seq = chosen.seq
RETURNING deliveries.seq, deliveries.id, deliveries.endpoint_id, deliveries.event_id, deliveries.event_type, deliveries.attempts, deliveries.body`;

interface ClaimRow {
  seq: number;
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempts: number;
  body: string | null;
}

const toClaimed = (rows: ClaimRow[], leaseUntil: number): Claimed[] =>
  rows
    .map((r) => ({
      seq: Number(r.seq),
      id: r.id,
      endpointId: r.endpoint_id,
      eventId: r.event_id,
      eventType: r.event_type,
      attempts: r.attempts,
      body: r.body,
      leaseUntil,
    }))
    .sort((a, b) => a.seq - b.seq);

// Settling, in the same statements on both dialects (`?` placeholders; PostgreSQL's are numbered).
const DELIVERED = `UPDATE deliveries SET state = 'delivered', attempts = ?, last_attempt_at = ?, last_status = ?, last_error = NULL,
  delivered_at = ?, next_attempt_at = NULL, lease_until = NULL, body = NULL WHERE seq = ? AND state = 'pending' AND lease_until = ?`;
const FAILED = `UPDATE deliveries SET state = ?, attempts = ?, last_attempt_at = ?, last_status = ?, last_error = ?,
  next_attempt_at = CASE WHEN (SELECT enabled FROM endpoints WHERE id = ?) = 1 THEN CAST(? AS BIGINT) ELSE NULL END, lease_until = NULL,
  body = ? WHERE seq = ? AND state = 'pending' AND lease_until = ?`;
const RESET_FAILURES = 'UPDATE endpoints SET consecutive_failures = 0 WHERE id = ? AND consecutive_failures <> 0';
const COUNT_FAILURE = 'UPDATE endpoints SET consecutive_failures = consecutive_failures + 1 WHERE id = ? RETURNING consecutive_failures, enabled';
const DISABLE = 'UPDATE endpoints SET enabled = 0, disabled_at = ?, disabled_reason = ?, updated_at = ? WHERE id = ? AND enabled = 1';
const PAUSE_QUEUE = "UPDATE deliveries SET next_attempt_at = NULL WHERE endpoint_id = ? AND state = 'pending'";
const RELEASE = "UPDATE deliveries SET lease_until = NULL WHERE seq = ? AND state = 'pending' AND lease_until = ?";

/** The parameters of a settle, in statement order. */
function settleParameters(o: Outcome) {
  const attempts = o.delivery.attempts + 1;
  if (o.ok) return { delivered: [attempts, o.at, o.status, o.at, o.delivery.seq, o.delivery.leaseUntil] };
  const next = retryAt(attempts, o.at);
  return {
    failed: [next === null ? 'failed' : 'pending', attempts, o.at, o.status, o.error, o.delivery.endpointId, next, next === null ? null : o.body, o.delivery.seq, o.delivery.leaseUntil],
    final: next === null,
  };
}

const numbered = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

class SqliteQueue implements DeliveryQueue {
  private readonly s;

  constructor(private readonly db: Extract<Database, { kind: 'sqlite' }>) {
    const p = (text: string) => db.sqlite.prepare(text);
    this.s = {
      claim: p(CLAIM_SQLITE),
      delivered: p(DELIVERED),
      failed: p(FAILED),
      reset: p(RESET_FAILURES),
      count: p(COUNT_FAILURE),
      disable: p(DISABLE),
      pause: p(PAUSE_QUEUE),
      release: p(RELEASE),
    };
  }

  claim(r: ClaimRequest): Promise<Claimed[]> {
    return this.db.group.run(() =>
      toClaimed(
        this.s.claim.all(r.now, r.now, claimScan(r.limit), r.leaseUntil, r.perEndpoint, JSON.stringify(r.exclude), r.limit) as ClaimRow[],
        r.leaseUntil,
      ),
    );
  }

  settle(o: Outcome): Promise<Settled> {
    const p = settleParameters(o);
    const unit = this.db.sqlite.transaction((): Settled => {
      if (p.delivered) {
        if (this.s.delivered.run(...p.delivered).changes === 0) return { recorded: false, state: 'pending', disabledEndpoint: false };
        this.s.reset.run(o.delivery.endpointId);
        return { recorded: true, state: 'delivered', disabledEndpoint: false };
      }
      if (this.s.failed.run(...p.failed).changes === 0) return { recorded: false, state: 'pending', disabledEndpoint: false };
      const counted = this.s.count.get(o.delivery.endpointId) as { consecutive_failures: number; enabled: number } | undefined;
      let disabledEndpoint = false;
      if (counted && counted.enabled === 1 && counted.consecutive_failures >= DISABLE_AFTER_FAILURES) {
        this.s.disable.run(o.at, DISABLED_BY_FAILURES, o.at, o.delivery.endpointId);
        this.s.pause.run(o.delivery.endpointId);
        disabledEndpoint = true;
      }
      return { recorded: true, state: p.final ? 'failed' : 'pending', disabledEndpoint };
    });
    return this.db.group.run(() => unit());
  }

  async release(deliveries: Claimed[]): Promise<void> {
    if (deliveries.length === 0) return;
    await this.db.group.run(() => {
      for (const d of deliveries) this.s.release.run(d.seq, d.leaseUntil);
    });
  }

  events = (ids: string[]) => readEvents(this.db.kysely, ids);
  endpoints = (ids: string[]) => readEndpoints(this.db.kysely, ids);
}

class PostgresQueue implements DeliveryQueue {
  constructor(private readonly db: Extract<Database, { kind: 'postgres' }>) {}

  async claim(r: ClaimRequest): Promise<Claimed[]> {
    const result = await this.db.pool.query<ClaimRow>({
      name: 'webhooks_claim',
      text: CLAIM_POSTGRES,
      values: [r.now, r.exclude, r.leaseUntil, r.perEndpoint, r.limit, claimScan(r.limit)],
    });
    return toClaimed(result.rows, r.leaseUntil);
  }

  /**
   * One round trip in the common case: the delivery's update and the endpoint's counter in one
   * statement (data-modifying CTEs); disabling the endpoint, rare, takes a second transaction.
   */
  async settle(o: Outcome): Promise<Settled> {
    const p = settleParameters(o);
    if (p.delivered) {
      const { rows } = await this.db.pool.query<{ n: number }>({
        name: 'webhooks_delivered',
        text: `WITH d AS (${numbered(DELIVERED)} RETURNING endpoint_id),
          r AS (UPDATE endpoints SET consecutive_failures = 0 WHERE id IN (SELECT endpoint_id FROM d) AND consecutive_failures <> 0)
          SELECT count(*)::int AS n FROM d`,
        values: p.delivered,
      });
      const recorded = rows[0]!.n === 1;
      return { recorded, state: recorded ? 'delivered' : 'pending', disabledEndpoint: false };
    }
    const { rows } = await this.db.pool.query<{ consecutive_failures: number; enabled: number }>({
      name: 'webhooks_failed',
      text: `WITH d AS (${numbered(FAILED)} RETURNING endpoint_id)
        UPDATE endpoints SET consecutive_failures = consecutive_failures + 1 WHERE id IN (SELECT endpoint_id FROM d)
        RETURNING consecutive_failures, enabled`,
      values: p.failed,
    });
    const counted = rows[0];
    if (!counted) return { recorded: false, state: 'pending', disabledEndpoint: false };
    let disabledEndpoint = false;
    if (counted.enabled === 1 && counted.consecutive_failures >= DISABLE_AFTER_FAILURES) {
      const [disabled] = await atomically(this.db, [
        CompiledQuery.raw(numbered(DISABLE), [o.at, DISABLED_BY_FAILURES, o.at, o.delivery.endpointId]),
        CompiledQuery.raw(numbered(PAUSE_QUEUE), [o.delivery.endpointId]),
      ]);
      disabledEndpoint = disabled === 1;
    }
    return { recorded: true, state: p.final ? 'failed' : 'pending', disabledEndpoint };
  }

  async release(deliveries: Claimed[]): Promise<void> {
    for (const d of deliveries) {
      await this.db.pool.query({ name: 'webhooks_release', text: numbered(RELEASE), values: [d.seq, d.leaseUntil] });
    }
  }

  events = (ids: string[]) => readEvents(this.db.kysely, ids);
  endpoints = (ids: string[]) => readEndpoints(this.db.kysely, ids);
}

async function readEvents(kysely: Kysely<DatabaseSchema>, ids: string[]): Promise<Map<string, BoardEventsTable>> {
  const out = new Map<string, BoardEventsTable>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await kysely.selectFrom('board_events').selectAll().where('id', 'in', ids.slice(i, i + 500)).execute();
    for (const row of rows) out.set(row.id, { ...row, created_at: Number(row.created_at) });
  }
  return out;
}

async function readEndpoints(kysely: Kysely<DatabaseSchema>, ids: string[]): Promise<Map<string, EndpointsTable>> {
  const out = new Map<string, EndpointsTable>();
  if (ids.length === 0) return out;
  const rows = await kysely.selectFrom('endpoints').selectAll().where('id', 'in', [...new Set(ids)]).execute();
  for (const row of rows) out.set(row.id, row);
  return out;
}

export function createDeliveryQueue(db: Database): DeliveryQueue {
  return db.kind === 'sqlite' ? new SqliteQueue(db) : new PostgresQueue(db);
}

// Fan-out: one delivery per (event, enabled endpoint of an enabled account selecting the event's
// airport), written by the board store in the transaction that stores the events.

interface Subscriber {
  id: string;
  airports: string;
}

/**
 * The endpoints that receive events now: enabled, of an enabled account. The board poll reads their
 * airports to know what to watch; the fan-out, which endpoints get a delivery.
 */
export function subscribedEndpoints(db: Kysely<DatabaseSchema> | Transaction<DatabaseSchema>): Promise<Subscriber[]> {
  return db
    .selectFrom('endpoints as e')
    .innerJoin('accounts as a', 'a.id', 'e.account_id')
    .select(['e.id', 'e.airports'])
    .where('e.enabled', '=', 1)
    .where('a.disabled', '=', 0)
    .execute();
}

/** The same, for SQLite's synchronous fan-out (a statement prepared once). */
const SUBSCRIBED_SQLITE =
  'SELECT e.id, e.airports FROM endpoints e JOIN accounts a ON a.id = e.account_id WHERE e.enabled = 1 AND a.disabled = 0';

const subscribersOf = (rows: Subscriber[], airport: string): string[] =>
  rows.filter((r) => (JSON.parse(r.airports) as string[]).includes(airport)).map((r) => r.id);

/** For SQLite: a synchronous fan-out to run inside the board store's group item. */
export function sqliteFanOut(sqlite: BetterSqlite3.Database): (airport: string, events: BoardEventsTable[]) => number {
  const select = sqlite.prepare(SUBSCRIBED_SQLITE);
  const insert = sqlite.prepare(
    `INSERT INTO deliveries (id, endpoint_id, event_id, event_type, state, attempts, next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, 'pending', 0, ?, ?)`,
  );
  return (airport, events) => {
    if (events.length === 0) return 0;
    const endpoints = subscribersOf(select.all() as Subscriber[], airport);
    for (const event of events) {
      for (const endpoint of endpoints) insert.run(newId('dlv'), endpoint, event.id, event.type, event.created_at, event.created_at);
    }
    return events.length * endpoints.length;
  };
}

/**
 * For PostgreSQL: the fan-out inside the board store's transaction, as one INSERT … SELECT over
 * arrays (four parameters however many rows; a VALUES list of 8 parameters a row cost 3 times as much).
 */
export async function postgresFanOut(trx: Transaction<DatabaseSchema>, airport: string, events: BoardEventsTable[]): Promise<number> {
  if (events.length === 0) return 0;
  const endpoints = subscribersOf(await subscribedEndpoints(trx), airport);
  if (endpoints.length === 0) return 0;
  const ids: string[] = [];
  const endpointIds: string[] = [];
  const eventIds: string[] = [];
  const types: string[] = [];
  const times: number[] = [];
  for (const event of events) {
    for (const endpoint of endpoints) {
      ids.push(newId('dlv'));
      endpointIds.push(endpoint);
      eventIds.push(event.id);
      types.push(event.type);
      times.push(Number(event.created_at));
    }
  }
  await sql`INSERT INTO deliveries (id, endpoint_id, event_id, event_type, state, attempts, next_attempt_at, created_at)
    SELECT id, endpoint_id, event_id, event_type, 'pending', 0, at, at
    FROM unnest(${ids}::text[], ${endpointIds}::text[], ${eventIds}::text[], ${types}::text[], ${times}::bigint[]) AS t(id, endpoint_id, event_id, event_type, at)`.execute(trx);
  return ids.length;
}
