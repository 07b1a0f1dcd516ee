// The webhook statements of SQLite (dialect.ts is the interface; the PostgreSQL twin is
// dialect-postgres.ts): the settle and the fan-out join the database's group transaction
// (db/sqlite-group.ts), one process writing at a time, with statements prepared once; the claim is
// leases/' statement, with this file's choice of rows, read off the event loop.
import type BetterSqlite3 from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import { sql, type RawBuilder } from 'kysely';
import type { DeliveriesTable, SqliteDatabase } from '../db/index.js';
import { LeasedRows, type ChosenClaim } from '../leases/index.js';
import { newId } from '../ids.js';
import type { FanOutEvent, FanOutRow, FanOutWrite, WebhookDialect } from './dialect.js';
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
  ATTEMPT,
  attemptRow,
  countFailure,
  DELIVERED,
  DISABLE,
  FAILED,
  NEXT_WAKE,
  PAUSE_QUEUE,
  readEndpoints,
  readEvents,
  releaseAll,
  RESET_FAILURES,
  settleParameters,
  toClaimed,
} from './queue-statements.js';
import { SEALED_PREFIX, type SecretBox } from './secrets.js';

export function sqliteDialect(db: SqliteDatabase): WebhookDialect {
  return {
    deliveryQueue: (options) => new SqliteQueue(db, options),
    fanOutWriter: () => fanOutWriter(db),
    sealPlaintextSecrets: (box) => sealPlaintextSecrets(db, box),
    // The group's BEGIN IMMEDIATE transaction already admits no other writer (process).
    lockAccount: () => [],
  };
}

// The delivery claim's choice (leases/ takes the chosen rows under its lease); its steps are
// described at DeliveryQueue.claim (queue.ts).
const chooseSqlite =
  (r: ClaimRequest): ChosenClaim['choose'] =>
  (claimable) => sql`
WITH held_e AS (SELECT key AS endpoint_id, value AS n FROM json_each(${JSON.stringify(r.heldByEndpoint)})),
held_a AS (SELECT key AS account_id, value AS n FROM json_each(${JSON.stringify(r.heldByAccount)})),
open AS (
  SELECT e.id, e.account_id, CASE WHEN e.consecutive_failures > 0 THEN 1 ELSE 0 END AS suspect,
    CASE WHEN e.consecutive_failures > 0 THEN 1 ELSE ${r.holdPerEndpoint} END - COALESCE((SELECT n FROM held_e WHERE endpoint_id = e.id), 0) AS room
  FROM endpoints e WHERE e.enabled = 1 AND (e.backoff_until IS NULL OR e.backoff_until <= ${r.now})
), first AS (
  SELECT d.seq, d.next_attempt_at, o.id AS endpoint_id, o.account_id, o.suspect, o.room
  FROM open o JOIN deliveries d ON d.seq = (
    SELECT x.seq FROM deliveries x WHERE x.endpoint_id = o.id AND ${claimable}
    ORDER BY x.next_attempt_at, x.seq LIMIT 1)
  WHERE o.room > 0
), thin AS (
  SELECT account_id FROM first GROUP BY account_id HAVING COUNT(*) < ${r.bound}
), deeper AS (
  SELECT d.seq, d.next_attempt_at, f.endpoint_id, f.account_id, f.suspect, f.room
  FROM first f JOIN deliveries d ON d.seq IN (
    SELECT x.seq FROM deliveries x WHERE x.endpoint_id = f.endpoint_id AND ${claimable}
    ORDER BY x.next_attempt_at, x.seq LIMIT ${r.holdPerEndpoint - 1} OFFSET 1)
  WHERE f.room > 1 AND f.account_id IN (SELECT account_id FROM thin)
), probed AS (
  SELECT u.*, ROW_NUMBER() OVER (PARTITION BY u.endpoint_id ORDER BY u.next_attempt_at, u.seq) AS rn_e
  FROM (SELECT * FROM first UNION ALL SELECT * FROM deeper) u
), cand AS (
  SELECT * FROM probed WHERE rn_e <= room
), share AS (
  SELECT MAX(${r.perEndpoint}, ${r.bound} / MAX(1, (SELECT COUNT(*) FROM (SELECT account_id FROM cand UNION SELECT account_id FROM held_a)))) AS n
), ranked AS (
  SELECT c.*, ROW_NUMBER() OVER (PARTITION BY c.account_id ORDER BY c.rn_e, c.next_attempt_at, c.seq) AS rn_a FROM cand c
), fair AS (
  SELECT r.*, ROW_NUMBER() OVER (PARTITION BY r.suspect ORDER BY r.rn_a, r.next_attempt_at, r.seq) AS rn_s FROM ranked r
  WHERE r.rn_a <= (SELECT n FROM share) - COALESCE((SELECT n FROM held_a WHERE account_id = r.account_id), 0)
)
SELECT seq FROM fair WHERE suspect = 0 OR rn_s <= ${r.suspectRoom} ORDER BY rn_a, next_attempt_at, seq LIMIT ${r.limit}`;

const COUNT_FAILURE_SQLITE = countFailure('MAX', 'MIN', 'id = ?');

class SqliteQueue implements DeliveryQueue {
  private readonly s;

  private readonly leased: LeasedRows<DeliveriesTable>;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly options: QueueOptions,
  ) {
    this.leased = new LeasedRows(db, DELIVERY_LEASES);
    const p = (text: string) => db.sqlite.prepare(text);
    this.s = {
      delivered: p(DELIVERED),
      failed: p(FAILED),
      reset: p(RESET_FAILURES),
      count: p(COUNT_FAILURE_SQLITE),
      wake: p(NEXT_WAKE),
      disable: p(DISABLE),
      pause: p(PAUSE_QUEUE),
      attempt: p(ATTEMPT),
    };
  }

  /**
   * The choice visits every open endpoint's queue, so it is read off the event loop (db/reader.ts);
   * the take then leases, on the service's connection, only those chosen rows that are still claimable
   * and whose endpoint is still open: what settled or paused while the choice was read stays put.
   * Only when that leaves nothing does the choice run again here, in the loop (below).
   */
  async claim(r: ClaimRequest): Promise<Claimed[]> {
    const choice = chooseSqlite(r)(this.leased.claimable(r.now), sql``).compile(this.db.kysely);
    const chosen = await this.db.reader.read<{ seq: number }>(choice.sql, choice.parameters);
    if (chosen.length === 0) return [];
    const seqs = JSON.stringify(chosen.map((row) => row.seq));
    const still = (claimable: RawBuilder<unknown>) => sql`
SELECT seq FROM deliveries WHERE seq IN (SELECT value FROM json_each(${seqs})) AND ${claimable}
AND endpoint_id IN (SELECT id FROM endpoints WHERE enabled = 1 AND (backoff_until IS NULL OR backoff_until <= ${r.now}))`;
    const leaseMs = r.leaseUntil - r.now;
    const taken = await this.leased.claimChosen({ now: r.now, leaseMs, choose: still });
    if (taken.length > 0) return toClaimed(taken);
    // Another claimer (a second worker on the same file) took every chosen row between the read and
    // the take. An empty answer would tell the cycle the queue is drained, so choose again on this
    // connection, which sees that claimer's leases: the choice as it was made before the reader.
    return toClaimed(await this.leased.claimChosen({ now: r.now, leaseMs, choose: chooseSqlite(r) }));
  }

  settle(o: Outcome): Promise<Settled> {
    const p = settleParameters(o, this.options);
    const unit = this.db.sqlite.transaction((): Settled => {
      if (p.delivered) {
        if (this.s.delivered.run(...p.delivered).changes === 0)
          return { recorded: false, state: 'pending', disabledEndpoint: false };
        this.s.attempt.run(...attemptRow(o));
        this.s.reset.run(o.delivery.endpointId);
        return { recorded: true, state: 'delivered', disabledEndpoint: false };
      }
      if (this.s.failed.run(...p.failed).changes === 0)
        return { recorded: false, state: 'pending', disabledEndpoint: false };
      this.s.attempt.run(...attemptRow(o));
      const counted = this.s.count.get(...p.count, o.delivery.endpointId) as
        { consecutive_failures: number; enabled: number } | undefined;
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

  release = (deliveries: Claimed[]) => releaseAll(this.leased, deliveries);

  async nextWake(now: number, until: number): Promise<number | null> {
    const row = this.s.wake.get(now, until) as { at: number | null } | undefined;
    return row?.at == null ? null : Number(row.at);
  }

  events = (ids: string[]) => readEvents(this.db.kysely, ids);
  endpoints = (ids: string[]) => readEndpoints(this.db.kysely, ids);
}

/**
 * The fan-out's pause after each chunk: room for the requests that waited and for the WAL checkpointer
 * (src/db/checkpointer.ts). A pause as long as a chunk (10 ms) measured worse, not better (p99 947 ms
 * against 322 ms with 2 ms, on a 600,000-row fan-out): the remaining SQLite tail is not the pause.
 * PostgreSQL gets none: its chunks hold no lock a request needs and the event loop is free while
 * they run, and the first board pass over 52 airports spent 0.4 s and more waiting out those timers.
 */
const PAUSE_MS = 2;
const pause = () => new Promise<void>((resolve) => setTimeout(resolve, PAUSE_MS));

// Each chunk skips pairs that exist already (a resumed run) and endpoints deleted since they were read.
function fanOutWriter(db: SqliteDatabase): FanOutWrite {
  const insert: BetterSqlite3.Statement = db.sqlite.prepare(
    `INSERT INTO deliveries (id, endpoint_id, event_id, event_type, state, attempts, next_attempt_at, created_at)
     SELECT ?, ?, ?, ?, ?, 0, ?, ? WHERE EXISTS (SELECT 1 FROM endpoints WHERE id = ?)
     ON CONFLICT (event_id, endpoint_id) DO NOTHING`,
  );
  const done = db.sqlite.prepare('DELETE FROM fan_out_queue WHERE created_at = ? AND event_id = ?');
  // A savepoint inside the group transaction: a chunk's rows and its events' removal from the queue land together or not at all.
  const chunk = db.sqlite.transaction((rows: FanOutRow[], completed: FanOutEvent[]) => {
    for (const r of rows)
      insert.run(
        newId('dlv'),
        r.endpointId,
        r.eventId,
        r.eventType,
        r.state,
        r.state === 'pending' ? r.at : null,
        r.at,
        r.endpointId,
      );
    for (const e of completed) done.run(e.created_at, e.id);
  });
  // Timed until the group's commit is done and the loop is free again: that is how long requests waited.
  return async (rows, completed) => {
    // Past a WAL size, first the checkpointer's catch-up (Checkpointer.beforeLongWrite).
    await db.checkpointer?.beforeLongWrite();
    const started = await db.group.run(() => {
      const at = performance.now();
      chunk(rows, completed);
      return at;
    });
    const held = performance.now() - started;
    await pause();
    return held;
  };
}

/** Seals every secret still stored in clear in one savepoint of the group (keyfile.ts). */
function sealPlaintextSecrets(db: SqliteDatabase, box: SecretBox): Promise<number> {
  const select = db.sqlite.prepare(`SELECT id, secret FROM endpoints WHERE secret NOT LIKE '${SEALED_PREFIX}%'`);
  const update = db.sqlite.prepare('UPDATE endpoints SET secret = ? WHERE id = ? AND secret = ?');
  const unit = db.sqlite.transaction(() => {
    let sealed = 0;
    for (const row of select.all() as { id: string; secret: string }[])
      sealed += update.run(box.seal(row.id, row.secret), row.id, row.secret).changes;
    return sealed;
  });
  return db.group.run(() => unit());
}
