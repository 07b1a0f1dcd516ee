// The webhook statements of PostgreSQL (dialect.ts is the interface; the SQLite twin is
// dialect-sqlite.ts): named prepared statements on pooled connections, several processes at once, so
// each guard is in its statement or its transaction's row locks; the claim is leases/' statement,
// with this file's choice of rows.
import { performance } from 'node:perf_hooks';
import { CompiledQuery, sql } from 'kysely';
import { atomically } from '../db/atomic.js';
import { TurnLoop, type DeliveriesTable, type PostgresDatabase } from '../db/index.js';
import { LeasedRows, type ChosenClaim } from '../leases/index.js';
import { newId } from '../ids.js';
import type { FanOutWrite, WebhookDialect } from './dialect.js';
import {
  DISABLE_AFTER_FAILURES,
  DISABLED_BY_FAILURES,
  DELIVERY_LEASES,
  type ClaimRequest,
  type Claimed,
  type DeliveryQueue,
  type Outcome,
  type QueueOptions,
  type Settled,
} from './queue.js';
import {
  ACCOUNT_EVENT_SQL,
  attemptRow,
  countFailure,
  DISABLE,
  FAILED,
  NEXT_WAKE,
  PAUSE_QUEUE,
  readEndpoints,
  readEvents,
  releaseAll,
  settleParameters,
  toClaimed,
} from './queue-statements.js';
import { SEALED_PREFIX, type SecretBox } from './secrets.js';

export function postgresDialect(db: PostgresDatabase): WebhookDialect {
  return {
    deliveryQueue: (options) => new PostgresQueue(db, options),
    fanOutWriter: () => fanOutWriter(db),
    sealPlaintextSecrets: (box) => sealPlaintextSecrets(db, box),
    // Under READ COMMITTED two guarded counts would each miss the other's uncommitted row: locking the
    // account's row first makes them take turns (repository.ts, insertWithinCap).
    lockAccount: (accountId) => [sql`SELECT id FROM accounts WHERE id = ${accountId} FOR UPDATE`.compile(db.kysely)],
  };
}

// The delivery claim's choice (leases/ takes the chosen rows under its lease); its steps are
// described at DeliveryQueue.claim (queue.ts). Each endpoint's probe locks what it reads (SKIP
// LOCKED: rows another worker is claiming at this moment are passed over, not waited for).
const choosePostgres =
  (r: ClaimRequest): ChosenClaim['choose'] =>
  (claimable, lock) => sql`
WITH held_e AS (SELECT * FROM unnest(${Object.keys(r.heldByEndpoint)}::text[], ${Object.values(r.heldByEndpoint)}::int[]) AS h(endpoint_id, n)),
held_a AS (SELECT * FROM unnest(${Object.keys(r.heldByAccount)}::text[], ${Object.values(r.heldByAccount)}::int[]) AS h(account_id, n)),
open AS (
  SELECT e.id, e.account_id, e.consecutive_failures > 0 AS suspect,
    CASE WHEN e.consecutive_failures > 0 THEN 1 ELSE ${r.holdPerEndpoint}::int END - COALESCE(h.n, 0) AS room
  FROM endpoints e LEFT JOIN held_e h ON h.endpoint_id = e.id WHERE e.enabled = 1 AND (e.backoff_until IS NULL OR e.backoff_until <= ${r.now}::bigint)
), cand AS (
  SELECT d.seq, d.next_attempt_at, o.id AS endpoint_id, o.account_id, o.suspect,
    ROW_NUMBER() OVER (PARTITION BY o.id ORDER BY d.next_attempt_at, d.seq) AS rn_e
  FROM open o CROSS JOIN LATERAL (
    SELECT x.seq, x.next_attempt_at FROM deliveries x WHERE x.endpoint_id = o.id AND ${claimable}
    ORDER BY x.next_attempt_at, x.seq LIMIT o.room ${lock}) d
  WHERE o.room > 0
), share AS (
  SELECT GREATEST(${r.perEndpoint}::int, ${r.bound}::int / GREATEST(1, (SELECT count(*) FROM (SELECT account_id FROM cand UNION SELECT account_id FROM held_a) a))::int) AS n
), ranked AS (
  SELECT c.*, ROW_NUMBER() OVER (PARTITION BY c.account_id ORDER BY c.rn_e, c.next_attempt_at, c.seq) AS rn_a FROM cand c
), fair AS (
  SELECT r.*, ROW_NUMBER() OVER (PARTITION BY r.suspect ORDER BY r.rn_a, r.next_attempt_at, r.seq) AS rn_s
  FROM ranked r LEFT JOIN held_a h ON h.account_id = r.account_id
  WHERE r.rn_a <= (SELECT n FROM share) - COALESCE(h.n, 0)
)
SELECT seq FROM fair WHERE NOT suspect OR rn_s <= ${r.suspectRoom}::int ORDER BY rn_a, next_attempt_at, seq LIMIT ${r.limit}::int`;

/**
 * The deliveries whose attempts succeeded, as many as settled during one turn, in one statement: each
 * recorded only while its lease is still the one it was claimed under; their endpoints' failure counts
 * and pauses lifted (locked in id order: two such statements never wait for each other's rows in a
 * cycle); an attempt row each. Returns what was recorded. On SQLite each settle is a statement of the
 * group transaction (dialect-sqlite.ts), which batches by itself.
 */
const DELIVERED_ALL = `
WITH v AS (
  SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::bigint[], $5::int[], $6::float8[])
    AS v(seq, lease_until, attempts, at, status, duration_ms)
), d AS (
  UPDATE deliveries x SET state = 'delivered', attempts = v.attempts, last_attempt_at = v.at, last_status = v.status,
    last_error = NULL, delivered_at = v.at, next_attempt_at = NULL, lease_until = NULL,
    body = CASE WHEN x.event_type IN (${ACCOUNT_EVENT_SQL}) THEN x.body ELSE NULL END
  FROM v WHERE x.seq = v.seq AND x.state = 'pending' AND x.lease_until = v.lease_until
  RETURNING x.seq, x.id, x.endpoint_id, v.lease_until, v.attempts, v.at, v.status, v.duration_ms
), locked AS (
  SELECT id FROM endpoints WHERE id IN (SELECT endpoint_id FROM d) AND (consecutive_failures <> 0 OR backoff_until IS NOT NULL)
  ORDER BY id FOR UPDATE
), r AS (
  UPDATE endpoints SET consecutive_failures = 0, backoff_until = NULL WHERE id IN (SELECT id FROM locked)
), a AS (
  INSERT INTO delivery_attempts (delivery_id, attempt, at, status, error, duration_ms)
  SELECT id, attempts, at, status, NULL, duration_ms FROM d
)
SELECT seq, lease_until FROM d`;

/** In the settle's CTE: only when the delivery's update took (its lease was still held). */
const COUNT_FAILURE_POSTGRES = countFailure('GREATEST', 'LEAST', 'id IN (SELECT endpoint_id FROM d)');

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

/** A delivered settle waiting for its turn's statement. */
interface DeliveredWait {
  outcome: Outcome;
  resolve: (recorded: boolean) => void;
  reject: (error: unknown) => void;
}

class PostgresQueue implements DeliveryQueue {
  private readonly leased: LeasedRows<DeliveriesTable>;
  private delivered: DeliveredWait[] = [];
  /** Two statements at most at once; what settles meanwhile joins the next (db/turn-loop.ts). */
  private readonly deliveredLoop = new TurnLoop(
    { pending: () => this.delivered.length > 0, flush: () => this.recordDelivered() },
    2,
  );

  constructor(
    private readonly db: PostgresDatabase,
    private readonly options: QueueOptions,
  ) {
    this.leased = new LeasedRows(db, DELIVERY_LEASES);
  }

  async claim(r: ClaimRequest): Promise<Claimed[]> {
    return toClaimed(
      await this.leased.claimChosen({ now: r.now, leaseMs: r.leaseUntil - r.now, choose: choosePostgres(r) }),
    );
  }

  /**
   * A success joins the other successes settled in the same turn: one statement for all of them
   * (DELIVERED_ALL). The 14,554 deliveries of bench/watches-load.mjs's first pass after its upload
   * went out at 450–600 a second with PostgreSQL at 80 % of a core when each was a statement of its
   * own, at 670–800 a second with it at 65 % so (3.8 a statement). A failure is one round trip: the
   * delivery's update and the endpoint's counter in one statement (data-modifying CTEs); disabling
   * the endpoint, rare, takes a second transaction.
   */
  async settle(o: Outcome): Promise<Settled> {
    const p = settleParameters(o, this.options);
    if (p.delivered) {
      const recorded = await new Promise<boolean>((resolve, reject) => {
        this.delivered.push({ outcome: o, resolve, reject });
        this.deliveredLoop.wake();
      });
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

  private async recordDelivered(): Promise<void> {
    const batch = this.delivered;
    this.delivered = [];
    const column = (f: (o: Outcome) => unknown) => batch.map((w) => f(w.outcome));
    try {
      const { rows } = await this.db.pool.query<{ seq: string; lease_until: string }>({
        name: 'webhooks_delivered_all',
        text: DELIVERED_ALL,
        values: [
          column((o) => o.delivery.seq),
          column((o) => o.delivery.leaseUntil),
          column((o) => o.delivery.attempts + 1),
          column((o) => o.at),
          column((o) => o.status),
          column((o) => attemptRow(o)[5]), // the attempt's duration, as a failure's attempt row has it
        ],
      });
      const recorded = new Set(rows.map((r) => `${r.seq} ${r.lease_until}`));
      for (const w of batch) w.resolve(recorded.has(`${w.outcome.delivery.seq} ${w.outcome.delivery.leaseUntil}`));
    } catch (error) {
      for (const w of batch) w.reject(error);
    }
  }

  release = (deliveries: Claimed[]) => releaseAll(this.leased, deliveries);

  async nextWake(now: number, until: number): Promise<number | null> {
    const { rows } = await this.db.pool.query<{ at: string | null }>({
      name: 'webhooks_next_wake',
      text: numbered(NEXT_WAKE),
      values: [now, until],
    });
    return rows[0]?.at == null ? null : Number(rows[0].at);
  }

  events = (ids: string[]) => readEvents(this.db.kysely, ids);
  endpoints = (ids: string[]) => readEndpoints(this.db.kysely, ids);
}

/**
 * One INSERT … SELECT over arrays (five parameters however many rows) and one DELETE, in a
 * transaction. ORDER BY the arrays' ordinality: the semi-join may reorder rows, and `seq` (each
 * endpoint's queue order) is drawn in the order rows are inserted.
 */
function fanOutWriter(db: PostgresDatabase): FanOutWrite {
  return async (rows, completed) => {
    const started = performance.now();
    await db.kysely.transaction().execute(async (trx) => {
      if (rows.length > 0) {
        await sql`INSERT INTO deliveries (id, endpoint_id, event_id, event_type, state, attempts, next_attempt_at, created_at)
          SELECT t.id, t.endpoint_id, t.event_id, t.event_type, t.state, 0, CASE WHEN t.state = 'pending' THEN t.at END, t.at
          FROM unnest(${rows.map(() => newId('dlv'))}::text[], ${rows.map((r) => r.endpointId)}::text[], ${rows.map((r) => r.eventId)}::text[],
            ${rows.map((r) => r.eventType)}::text[], ${rows.map((r) => r.at)}::bigint[], ${rows.map((r) => r.state)}::text[])
            WITH ORDINALITY AS t(id, endpoint_id, event_id, event_type, at, state, n)
          WHERE EXISTS (SELECT 1 FROM endpoints e WHERE e.id = t.endpoint_id)
          ORDER BY t.n
          ON CONFLICT (event_id, endpoint_id) DO NOTHING`.execute(trx);
      }
      if (completed.length > 0) {
        await sql`DELETE FROM fan_out_queue
          WHERE (created_at, event_id) IN (SELECT * FROM unnest(${completed.map((e) => e.created_at)}::bigint[], ${completed.map((e) => e.id)}::text[]))`.execute(
          trx,
        );
      }
    });
    return performance.now() - started;
  };
}

/** Seals every secret still stored in clear, in one transaction that locks their rows (keyfile.ts). */
function sealPlaintextSecrets(db: PostgresDatabase, box: SecretBox): Promise<number> {
  return db.kysely.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('endpoints')
      .select(['id', 'secret'])
      .where('secret', 'not like', `${SEALED_PREFIX}%`)
      .forUpdate()
      .execute();
    let sealed = 0;
    for (const row of rows) {
      const result = await trx
        .updateTable('endpoints')
        .set({ secret: box.seal(row.id, row.secret) })
        .where('id', '=', row.id)
        .where('secret', '=', row.secret)
        .executeTakeFirst();
      sealed += Number(result.numUpdatedRows);
    }
    return sealed;
  });
}
