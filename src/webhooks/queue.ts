// The delivery queue in the database (spec 3.3, 6.5). Deliveries are created by the fan-out
// (fanout.ts) from the events the board pass stores, claimed by workers under a lease, and settled by the
// outcome of each attempt. On SQLite every step is statements prepared once and run in the group
// transaction (one process writes at a time, so a claim cannot be taken twice); on PostgreSQL the
// claim locks its rows with FOR UPDATE SKIP LOCKED, so several worker processes share the queue
// without sending a delivery twice.
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import { atomically } from '../db/atomic.js';
import type { BoardEventsTable, Database, DatabaseSchema, EndpointsTable } from '../db/index.js';
import { MINUTE } from '../clock.js';

/** Waits before attempts 2, 3, 4 and 5 (spec 6.5). */
export const RETRY_DELAYS_MS = [1 * MINUTE, 5 * MINUTE, 20 * MINUTE, 60 * MINUTE] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** Consecutive failed attempts across an endpoint's deliveries that disable it (spec 3.4). */
export const DISABLE_AFTER_FAILURES = 25;
export const DISABLED_BY_FAILURES = `${DISABLE_AFTER_FAILURES} consecutive failed deliveries`;

// When a receiver fails (docs/webhooks.md, "When a receiver fails"). A failed attempt backs off the
// endpoint, not only the delivery: its other queued deliveries wait ENDPOINT_PAUSE_MS · 2^(n-1)
// after the n-th counted failure, at most one delivery cycle, so a receiver that is down gets one
// probe per pause instead of its whole queue, and reaching the 25 failures of spec 3.4 takes about
// 38 minutes with the 2-minute cycle rather than a third of a second. The first 2xx lifts the pause.
/** The first pause after a failure; doubled with each counted failure, capped at the delivery cycle. */
export const ENDPOINT_PAUSE_MS = 1000;
/** The longest wait a receiver's Retry-After can impose, on a delivery or on its endpoint. */
export const MAX_RETRY_AFTER_MS = 60 * MINUTE;
/** The retry schedule's spread: each wait is drawn within ±10 % of its step (spec 6.5's 1, 5, 20, 60 minutes). */
export const RETRY_JITTER = 0.1;
/** Pauses are doubled at most this many times (2^20 s is far past any cycle; it keeps the shift small). */
const MAX_DOUBLINGS = 20;

export interface QueueOptions {
  /** The delivery cycle (spec 8: 2 minutes): the longest pause of a failing endpoint. */
  cycleMs: number;
}

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
  /** The receiver's Retry-After, in milliseconds, unclamped (null when it gave none). */
  retryAfterMs: number | null;
  /**
   * The endpoint's consecutive failures as this worker knew them when the attempt started. A failure
   * counts towards the 25 only when the count is still that: attempts that were already in flight
   * when the receiver failed are one failure of the receiver, not one each.
   */
  seenFailures: number;
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
  /**
   * The earliest time after `now` and at or before `until` when an endpoint's pause ends while it has
   * a delivery due by then; null when there is none (the worker waits for it rather than end its cycle).
   */
  nextWake(now: number, until: number): Promise<number | null>;
}

/**
 * When a failed delivery is tried again: the schedule's step with its jitter, or later when the
 * receiver asked for more with Retry-After (never past MAX_RETRY_AFTER_MS); null after the last attempt.
 */
function retryAt(attempts: number, at: number, retryAfterMs: number | null): number | null {
  if (attempts >= MAX_ATTEMPTS) return null;
  const step = RETRY_DELAYS_MS[attempts - 1]!;
  const scheduled = Math.round(step * (1 + RETRY_JITTER * (2 * Math.random() - 1)));
  return at + Math.max(scheduled, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
}

// The claim (docs/webhooks.md, "Fairness between accounts"), one statement on each dialect:
// 1. open: every enabled endpoint not paused after a failure (`backoff_until`) with room, that is its
//    bound in flight less what this worker holds of it. The bound is `perEndpoint`, or 1 when the
//    endpoint's last attempt failed ("suspect": it may be one that never answers, and each of its
//    attempts holds a slot for the whole timeout).
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
  FROM endpoints e WHERE e.enabled = 1 AND (e.backoff_until IS NULL OR e.backoff_until <= :now)
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
  FROM endpoints e LEFT JOIN held_e h ON h.endpoint_id = e.id WHERE e.enabled = 1 AND (e.backoff_until IS NULL OR e.backoff_until <= $6)
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
const RESET_FAILURES = 'UPDATE endpoints SET consecutive_failures = 0, backoff_until = NULL WHERE id = ? AND (consecutive_failures <> 0 OR backoff_until IS NOT NULL)';
/**
 * A failure of the endpoint, counted (and its pause grown) only when no other failure was counted
 * since the attempt started (`consecutive_failures` still what the worker saw). The pause is
 * ENDPOINT_PAUSE_MS · 2^n for the n failures before this one, at most the cycle, and at least what
 * the receiver asked (Retry-After, clamped); an uncounted failure only lengthens the pause to what it
 * asked. Parameters: seen, seen, at, asked, base, seen, doublings cap, cycle, at, asked (then the id
 * on SQLite). `greatest` and `least` are each dialect's two-argument max and min (MAX and MIN on SQLite).
 */
const countFailure = (greatest: string, least: string, where: string) => `UPDATE endpoints SET
  consecutive_failures = consecutive_failures + CASE WHEN consecutive_failures = CAST(? AS INT) THEN 1 ELSE 0 END,
  backoff_until = CASE WHEN consecutive_failures = CAST(? AS INT)
    THEN CAST(? AS BIGINT) + ${greatest}(CAST(? AS BIGINT), ${least}(CAST(? AS BIGINT) * (CAST(1 AS BIGINT) << ${least}(CAST(? AS INT), CAST(? AS INT))), CAST(? AS BIGINT)))
    ELSE ${greatest}(COALESCE(backoff_until, 0), CAST(? AS BIGINT) + CAST(? AS BIGINT)) END
  WHERE ${where} RETURNING consecutive_failures, enabled`;
const COUNT_FAILURE_SQLITE = countFailure('MAX', 'MIN', 'id = ?');
/** In the settle's CTE: only when the delivery's update took (its lease was still held). */
const COUNT_FAILURE_POSTGRES = countFailure('GREATEST', 'LEAST', 'id IN (SELECT endpoint_id FROM d)');
const NEXT_WAKE = `SELECT MIN(e.backoff_until) AS at FROM endpoints e WHERE e.enabled = 1 AND e.backoff_until > ? AND e.backoff_until <= ?
  AND EXISTS (SELECT 1 FROM deliveries d WHERE d.endpoint_id = e.id AND d.state = 'pending' AND d.next_attempt_at <= e.backoff_until)`;
const DISABLE = 'UPDATE endpoints SET enabled = 0, disabled_at = ?, disabled_reason = ?, updated_at = ? WHERE id = ? AND enabled = 1';
const PAUSE_QUEUE = "UPDATE deliveries SET next_attempt_at = NULL WHERE endpoint_id = ? AND state = 'pending'";
const RELEASE = "UPDATE deliveries SET lease_until = NULL WHERE seq = ? AND state = 'pending' AND lease_until = ?";
const ATTEMPT = 'INSERT INTO delivery_attempts (delivery_id, attempt, at, status, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?)';

/** The attempt row's values, in ATTEMPT's order. */
const attemptRow = (o: Outcome) => [o.delivery.id, o.delivery.attempts + 1, o.at, o.status, o.ok ? null : o.error, Math.round(o.durationMs * 1000) / 1000];

/** The parameters of a settle, in statement order. */
function settleParameters(o: Outcome, options: QueueOptions) {
  const attempts = o.delivery.attempts + 1;
  if (o.ok) return { delivered: [attempts, o.at, o.status, o.at, o.delivery.seq, o.delivery.leaseUntil] };
  const next = retryAt(attempts, o.at, o.retryAfterMs);
  const asked = Math.min(o.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS);
  const seen = o.seenFailures;
  return {
    failed: [next === null ? 'failed' : 'pending', attempts, o.at, o.status, o.error, o.delivery.endpointId, next, next === null ? null : o.body, o.delivery.seq, o.delivery.leaseUntil],
    count: [seen, seen, o.at, asked, ENDPOINT_PAUSE_MS, seen, MAX_DOUBLINGS, options.cycleMs, o.at, asked],
    final: next === null,
  };
}

/** ATTEMPT as an INSERT … SELECT for a CTE, its parameters numbered after `before` others. */
const ATTEMPT_AFTER = (before: number) =>
  `INSERT INTO delivery_attempts (delivery_id, attempt, at, status, error, duration_ms) SELECT ${[1, 2, 3, 4, 5, 6].map((i) => `$${before + i}${CASTS[i - 1]}`).join(', ')}`;
const CASTS = ['::text', '::int', '::bigint', '::int', '::text', '::float8'];

const numbered = (text: string) => numberedFrom(text, 0);
/** `?` placeholders numbered $before+1, $before+2, … */
const numberedFrom = (text: string, before: number) => {
  let n = before;
  return text.replace(/\?/g, () => `$${++n}`);
};
/** The endpoint's count in PostgreSQL's failed settle: after FAILED's 10 parameters and the attempt's 6. */
const COUNTED_AFTER_FAILED = numberedFrom(COUNT_FAILURE_POSTGRES, 16);

class SqliteQueue implements DeliveryQueue {
  private readonly s;

  constructor(
    private readonly db: Extract<Database, { kind: 'sqlite' }>,
    private readonly options: QueueOptions,
  ) {
    const p = (text: string) => db.sqlite.prepare(text);
    this.s = {
      claim: p(CLAIM_SQLITE),
      delivered: p(DELIVERED),
      failed: p(FAILED),
      reset: p(RESET_FAILURES),
      count: p(COUNT_FAILURE_SQLITE),
      wake: p(NEXT_WAKE),
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
    const p = settleParameters(o, this.options);
    const unit = this.db.sqlite.transaction((): Settled => {
      if (p.delivered) {
        if (this.s.delivered.run(...p.delivered).changes === 0) return { recorded: false, state: 'pending', disabledEndpoint: false };
        this.s.attempt.run(...attemptRow(o));
        this.s.reset.run(o.delivery.endpointId);
        return { recorded: true, state: 'delivered', disabledEndpoint: false };
      }
      if (this.s.failed.run(...p.failed).changes === 0) return { recorded: false, state: 'pending', disabledEndpoint: false };
      this.s.attempt.run(...attemptRow(o));
      const counted = this.s.count.get(...p.count, o.delivery.endpointId) as { consecutive_failures: number; enabled: number } | undefined;
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

  async nextWake(now: number, until: number): Promise<number | null> {
    const row = this.s.wake.get(now, until) as { at: number | null } | undefined;
    return row?.at == null ? null : Number(row.at);
  }

  events = (ids: string[]) => readEvents(this.db.kysely, ids);
  endpoints = (ids: string[]) => readEndpoints(this.db.kysely, ids);
}

class PostgresQueue implements DeliveryQueue {
  constructor(
    private readonly db: Extract<Database, { kind: 'postgres' }>,
    private readonly options: QueueOptions,
  ) {}

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
    const p = settleParameters(o, this.options);
    if (p.delivered) {
      const { rows } = await this.db.pool.query<{ n: number }>({
        name: 'webhooks_delivered',
        text: `WITH d AS (${numbered(DELIVERED)} RETURNING endpoint_id),
          r AS (UPDATE endpoints SET consecutive_failures = 0, backoff_until = NULL WHERE id IN (SELECT endpoint_id FROM d) AND (consecutive_failures <> 0 OR backoff_until IS NOT NULL)),
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
        ${COUNTED_AFTER_FAILED}`,
      values: [...p.failed, ...attemptRow(o), ...p.count],
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

  async nextWake(now: number, until: number): Promise<number | null> {
    const { rows } = await this.db.pool.query<{ at: string | null }>({ name: 'webhooks_next_wake', text: numbered(NEXT_WAKE), values: [now, until] });
    return rows[0]?.at == null ? null : Number(rows[0].at);
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

export function createDeliveryQueue(db: Database, options: QueueOptions): DeliveryQueue {
  return db.kind === 'sqlite' ? new SqliteQueue(db, options) : new PostgresQueue(db, options);
}

// The endpoints that receive events (the fan-out itself is fanout.ts).

interface Subscriber {
  id: string;
  airports: string;
}

/**
 * The endpoints whose airports the board poll watches: those of enabled accounts that are enabled, or
 * were disabled at or after `disabledSince` (what is observed for them is kept as skipped deliveries,
 * resendable, for the retention period: fanout.ts).
 */
export function subscribedEndpoints(db: Kysely<DatabaseSchema> | Transaction<DatabaseSchema>, disabledSince: number): Promise<Subscriber[]> {
  return db
    .selectFrom('endpoints as e')
    .innerJoin('accounts as a', 'a.id', 'e.account_id')
    .select(['e.id', 'e.airports'])
    .where((eb) => eb.or([eb('e.enabled', '=', 1), eb('e.disabled_at', '>=', disabledSince)]))
    .where('a.disabled', '=', 0)
    .execute();
}
