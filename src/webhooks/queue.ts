// The delivery queue in the database (spec 3.3, 6.5). Deliveries are created by the fan-out
// (fanout.ts) from the events the board pass stores, claimed by workers under a lease, and settled by the
// outcome of each attempt. On SQLite every step is statements prepared once and run in the group
// transaction (one process writes at a time, so a claim cannot be taken twice); on PostgreSQL the
// claim locks its rows with FOR UPDATE SKIP LOCKED, so several worker processes share the queue
// without sending a delivery twice.
import { CompiledQuery, sql, type Kysely, type Transaction } from 'kysely';
import { atomically } from '../db/atomic.js';
import type { BoardEventsTable, Database, DatabaseSchema, EndpointsTable } from '../db/index.js';
import { MINUTE } from '../clock.js';

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
  /** How long the attempt took (wall clock). */
  durationMs: number;
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
  /** Deliveries wanted at most. */
  limit: number;
  /** In flight to one endpoint whose last attempt succeeded (or that has none yet). */
  perEndpoint: number;
  /** The worker's overall bound in flight: the accounts with work share it (see `CLAIM_*`). */
  bound: number;
  /** How many more attempts to failing endpoints (see `suspectBound` in worker.ts) this claim may add. */
  suspectRoom: number;
  /** Deliveries this worker holds already (claimed, not settled), per endpoint and per account. */
  heldByEndpoint: Record<string, number>;
  heldByAccount: Record<string, number>;
}

export interface DeliveryQueue {
  claim(request: ClaimRequest): Promise<Claimed[]>;
  settle(outcome: Outcome): Promise<Settled>;
  /** Gives claimed deliveries back unattempted (a stopping worker). */
  release(deliveries: Claimed[]): Promise<void>;
  events(ids: string[]): Promise<Map<string, BoardEventsTable>>;
  endpoints(ids: string[]): Promise<Map<string, EndpointsTable>>;
}

const retryAt = (attempts: number, at: number): number | null =>
  attempts >= MAX_ATTEMPTS ? null : at + RETRY_DELAYS_MS[attempts - 1]!;

// The claim (docs/webhooks.md, "Fairness between accounts"), one statement on each dialect:
// 1. open: every enabled endpoint with room, that is its bound in flight less what this worker holds
//    of it. The bound is `perEndpoint`, or 1 when the endpoint's last attempt failed ("suspect": it
//    may be one that never answers, and each of its attempts holds a slot for the whole timeout).
// 2. cand: each open endpoint's own first due deliveries, up to its room (an index probe per
//    endpoint on deliveries_endpoint_due), so a long queue elsewhere never hides them. (SQLite's
//    LIMIT cannot name an outer column: it probes `perEndpoint` rows and keeps the room's worth.)
// 3. share: the overall bound divided among the accounts that have work (due, or held here), at
//    least `perEndpoint`; an account gets no more than its share less what it holds.
// 4. Round-robin: each account's candidates are ranked (endpoints interleaved), and the batch takes
//    every account's first, then every account's second, and so on; suspect endpoints together get
//    at most `suspectRoom` more.
const CLAIM_SQLITE = `
WITH held_e AS (SELECT key AS endpoint_id, value AS n FROM json_each(:heldEndpoints)),
held_a AS (SELECT key AS account_id, value AS n FROM json_each(:heldAccounts)),
open AS (
  SELECT e.id, e.account_id, CASE WHEN e.consecutive_failures > 0 THEN 1 ELSE 0 END AS suspect,
    CASE WHEN e.consecutive_failures > 0 THEN 1 ELSE :perEndpoint END - COALESCE((SELECT n FROM held_e WHERE endpoint_id = e.id), 0) AS room
  FROM endpoints e WHERE e.enabled = 1
), probed AS (
  SELECT d.seq, d.next_attempt_at, o.id AS endpoint_id, o.account_id, o.suspect, o.room,
    ROW_NUMBER() OVER (PARTITION BY o.id ORDER BY d.next_attempt_at, d.seq) AS rn_e
  FROM open o JOIN deliveries d ON d.seq IN (
    SELECT x.seq FROM deliveries x
    WHERE x.endpoint_id = o.id AND x.state = 'pending' AND x.next_attempt_at <= :now AND (x.lease_until IS NULL OR x.lease_until <= :now)
    ORDER BY x.next_attempt_at, x.seq LIMIT :perEndpoint)
  WHERE o.room > 0
), cand AS (
  SELECT * FROM probed WHERE rn_e <= room
), share AS (
  SELECT MAX(:perEndpoint, :bound / MAX(1, (SELECT COUNT(*) FROM (SELECT account_id FROM cand UNION SELECT account_id FROM held_a)))) AS n
), ranked AS (
  SELECT c.*, ROW_NUMBER() OVER (PARTITION BY c.account_id ORDER BY c.rn_e, c.next_attempt_at, c.seq) AS rn_a FROM cand c
), fair AS (
  SELECT r.*, ROW_NUMBER() OVER (PARTITION BY r.suspect ORDER BY r.rn_a, r.next_attempt_at, r.seq) AS rn_s FROM ranked r
  WHERE r.rn_a <= (SELECT n FROM share) - COALESCE((SELECT n FROM held_a WHERE account_id = r.account_id), 0)
)
UPDATE deliveries SET lease_until = :leaseUntil
WHERE seq IN (SELECT seq FROM fair WHERE suspect = 0 OR rn_s <= :suspectRoom ORDER BY rn_a, next_attempt_at, seq LIMIT :limit)
RETURNING seq, id, endpoint_id, event_id, event_type, attempts, body`;

const CLAIM_POSTGRES = `
WITH held_e AS (SELECT * FROM unnest($1::text[], $2::int[]) AS h(endpoint_id, n)),
held_a AS (SELECT * FROM unnest($3::text[], $4::int[]) AS h(account_id, n)),
open AS (
  SELECT e.id, e.account_id, e.consecutive_failures > 0 AS suspect,
    CASE WHEN e.consecutive_failures > 0 THEN 1 ELSE $5::int END - COALESCE(h.n, 0) AS room
  FROM endpoints e LEFT JOIN held_e h ON h.endpoint_id = e.id WHERE e.enabled = 1
), cand AS (
  SELECT d.seq, d.next_attempt_at, o.id AS endpoint_id, o.account_id, o.suspect,
    ROW_NUMBER() OVER (PARTITION BY o.id ORDER BY d.next_attempt_at, d.seq) AS rn_e
  FROM open o CROSS JOIN LATERAL (
    SELECT x.seq, x.next_attempt_at FROM deliveries x
    WHERE x.endpoint_id = o.id AND x.state = 'pending' AND x.next_attempt_at <= $6 AND (x.lease_until IS NULL OR x.lease_until <= $6)
    ORDER BY x.next_attempt_at, x.seq LIMIT o.room
    FOR UPDATE SKIP LOCKED) d
  WHERE o.room > 0
), share AS (
  SELECT GREATEST($5::int, $7::int / GREATEST(1, (SELECT count(*) FROM (SELECT account_id FROM cand UNION SELECT account_id FROM held_a) a))::int) AS n
), ranked AS (
  SELECT c.*, ROW_NUMBER() OVER (PARTITION BY c.account_id ORDER BY c.rn_e, c.next_attempt_at, c.seq) AS rn_a FROM cand c
), fair AS (
  SELECT r.*, ROW_NUMBER() OVER (PARTITION BY r.suspect ORDER BY r.rn_a, r.next_attempt_at, r.seq) AS rn_s
  FROM ranked r LEFT JOIN held_a h ON h.account_id = r.account_id
  WHERE r.rn_a <= (SELECT n FROM share) - COALESCE(h.n, 0)
), chosen AS (
  SELECT seq FROM fair WHERE NOT suspect OR rn_s <= $8 ORDER BY rn_a, next_attempt_at, seq LIMIT $9
)
UPDATE deliveries SET lease_until = $10 FROM chosen WHERE deliveries.seq = chosen.seq
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
const ATTEMPT = 'INSERT INTO delivery_attempts (delivery_id, attempt, at, status, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?)';

/** The attempt row's values, in ATTEMPT's order. */
const attemptRow = (o: Outcome) => [o.delivery.id, o.delivery.attempts + 1, o.at, o.status, o.ok ? null : o.error, Math.round(o.durationMs * 1000) / 1000];

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

/** ATTEMPT as an INSERT … SELECT for a CTE, its parameters numbered after `before` others. */
const ATTEMPT_AFTER = (before: number) =>
  `INSERT INTO delivery_attempts (delivery_id, attempt, at, status, error, duration_ms) SELECT ${[1, 2, 3, 4, 5, 6].map((i) => `$${before + i}${CASTS[i - 1]}`).join(', ')}`;
const CASTS = ['::text', '::int', '::bigint', '::int', '::text', '::float8'];

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
      attempt: p(ATTEMPT),
    };
  }

  claim(r: ClaimRequest): Promise<Claimed[]> {
    return this.db.group.run(() =>
      toClaimed(
        this.s.claim.all({
          now: r.now,
          leaseUntil: r.leaseUntil,
          limit: r.limit,
          perEndpoint: r.perEndpoint,
          bound: r.bound,
          suspectRoom: r.suspectRoom,
          heldEndpoints: JSON.stringify(r.heldByEndpoint),
          heldAccounts: JSON.stringify(r.heldByAccount),
        }) as ClaimRow[],
        r.leaseUntil,
      ),
    );
  }

  settle(o: Outcome): Promise<Settled> {
    const p = settleParameters(o);
    const unit = this.db.sqlite.transaction((): Settled => {
      if (p.delivered) {
        if (this.s.delivered.run(...p.delivered).changes === 0) return { recorded: false, state: 'pending', disabledEndpoint: false };
        this.s.attempt.run(...attemptRow(o));
        this.s.reset.run(o.delivery.endpointId);
        return { recorded: true, state: 'delivered', disabledEndpoint: false };
      }
      if (this.s.failed.run(...p.failed).changes === 0) return { recorded: false, state: 'pending', disabledEndpoint: false };
      this.s.attempt.run(...attemptRow(o));
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
      values: [
        Object.keys(r.heldByEndpoint),
        Object.values(r.heldByEndpoint),
        Object.keys(r.heldByAccount),
        Object.values(r.heldByAccount),
        r.perEndpoint,
        r.now,
        r.bound,
        r.suspectRoom,
        r.limit,
        r.leaseUntil,
      ],
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
          r AS (UPDATE endpoints SET consecutive_failures = 0 WHERE id IN (SELECT endpoint_id FROM d) AND consecutive_failures <> 0),
          a AS (${ATTEMPT_AFTER(p.delivered.length)} WHERE EXISTS (SELECT 1 FROM d))
          SELECT count(*)::int AS n FROM d`,
        values: [...p.delivered, ...attemptRow(o)],
      });
      const recorded = rows[0]!.n === 1;
      return { recorded, state: recorded ? 'delivered' : 'pending', disabledEndpoint: false };
    }
    const { rows } = await this.db.pool.query<{ consecutive_failures: number; enabled: number }>({
      name: 'webhooks_failed',
      text: `WITH d AS (${numbered(FAILED)} RETURNING endpoint_id),
        a AS (${ATTEMPT_AFTER(p.failed.length)} WHERE EXISTS (SELECT 1 FROM d))
        UPDATE endpoints SET consecutive_failures = consecutive_failures + 1 WHERE id IN (SELECT endpoint_id FROM d)
        RETURNING consecutive_failures, enabled`,
      values: [...p.failed, ...attemptRow(o)],
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

// The endpoints that receive events (the fan-out itself is fanout.ts).

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
