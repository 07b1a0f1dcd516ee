// One way to take work that several processes share (docs/architecture.md "One leased job"): a row
// is a unit of work, due at a time; a claim takes due rows under a lease in one statement (the rows
// another process holds or is claiming are skipped), the holder settles each row while its lease is
// still its own, a row whose holder died is claimed again once the lease runs out, a failed attempt
// is given back due again after its back-off, and finished rows are pruned. The shape of
// graphile-worker's and pg-boss's job tables, over both databases (neither runs on SQLite); each
// capability keeps its own table, and its rules (the delivery schedule, dunning, fairness) are what
// it passes in: the order, the back-off, the rows of one group a claim may take.
import { sql, type RawBuilder } from 'kysely';
import type { Database } from '../db/index.js';
import { atomically } from '../db/atomic.js';
import { prepared } from '../db/prepared.js';
import { claimLock } from './dialect.js';

type Value = string | number | null;

export interface LeaseShape {
  /** The table whose rows are the work. */
  table: string;
  /** Its key columns. */
  key: readonly string[];
  /** When a row is next due (ms since the epoch). */
  due: string;
  /** What a NULL `due` means: due now (a lookup never retried), or never (an invoice with no attempt left). Default never. */
  nullDue?: 'now' | 'never';
  /**
   * Until when a claim holds a row (ms; held before that time, run out at it). null: the table has no lease column, and a claim moves `due`
   * forward by the lease instead (a row whose holder died falls due again when it runs out).
   */
  lease: string | null;
  /** What makes a row wait for work (`state = 'queued'`): the claim takes no other. */
  waiting: RawBuilder<unknown>;
  /** The order due rows are claimed in (columns that are never NULL: the databases sort NULL differently). */
  order: readonly string[];
  /** A column counting claims (attempts), raised by each claim; absent: the capability counts its own. */
  attempts?: string;
  /** Columns a claim sets on what it takes (`state = 'running'`). */
  claimed?: Readonly<Record<string, Value>>;
}

export interface ClaimOptions {
  now: number;
  limit: number;
  leaseMs: number;
  /** Narrows the claim to some rows (one batch's lookups). */
  within?: RawBuilder<unknown>;
  /** Fairness: at most `perGroup` rows of each value of `by` in one claim, each group's first rows first. */
  fair?: { by: string; perGroup: number };
}

export interface ChosenClaim {
  now: number;
  leaseMs: number;
  /** The capability's choice of rows (see LeasedRows.claimChosen). */
  choose: (claimable: RawBuilder<unknown>, lock: RawBuilder<unknown>) => RawBuilder<unknown>;
}

/** A claimed row, with the lease that proves its holder (the value its lease column was set to). */
export interface Lease<Row> {
  row: Row;
  leaseUntil: number;
}

/** A retry's delay after `attempt` failed attempts, from a schedule of delays; null when the schedule is spent. */
export function backoff(schedule: readonly number[], attempt: number): number | null {
  return attempt >= 1 && attempt <= schedule.length ? schedule[attempt - 1]! : null;
}

const set = (values: Readonly<Record<string, Value | RawBuilder<unknown>>>) =>
  sql.join(Object.entries(values).map(([column, value]) => sql`${sql.ref(column)} = ${value}`));

export class LeasedRows<Row> {
  private readonly lock: RawBuilder<unknown>;
  private readonly leaseColumn: string;

  constructor(
    private readonly db: Database,
    private readonly shape: LeaseShape,
  ) {
    this.lock = claimLock(db);
    this.leaseColumn = shape.lease ?? shape.due;
  }

  private keyOf(values: readonly Value[]): RawBuilder<unknown> {
    return sql.join(
      this.shape.key.map((column, i) => sql`${sql.ref(column)} = ${values[i] ?? null}`),
      sql` AND `,
    );
  }

  /** Takes up to `limit` due rows no one holds (or whose holder's lease ran out), each until now + leaseMs. */
  claim(o: ClaimOptions): Promise<Lease<Row>[]> {
    const { shape } = this;
    const where = sql`${this.claimable(o.now)} AND ${o.within ?? sql`TRUE`}`;
    const order = sql.join(shape.order.map((c) => sql.ref(c)));
    const table = sql.table(shape.table);
    const key = sql.join(shape.key.map((c) => sql.ref(c)));
    const columns = sql.join([...new Set([...shape.key, ...shape.order])].map((c) => sql.ref(c)));
    const chosen = o.fair
      ? sql`SELECT ${key} FROM ${table} WHERE (${key}) IN (
          SELECT ${key} FROM (SELECT ${columns}, ROW_NUMBER() OVER (PARTITION BY ${sql.ref(o.fair.by)} ORDER BY ${order}) AS place FROM ${table} WHERE ${where}) ranked
          WHERE place <= ${o.fair.perGroup} ORDER BY place, ${order} LIMIT ${o.limit}) ${this.lock}`
      : sql`SELECT ${key} FROM ${table} WHERE ${where} ORDER BY ${order} LIMIT ${o.limit} ${this.lock}`;
    return this.take(o.now + o.leaseMs, chosen);
  }

  /**
   * A claim whose rows the capability's own policy chooses (webhooks' fairness between endpoints
   * and accounts): `choose` returns a SELECT of key values, reading the table's rows where
   * `claimable` holds and locking them with `lock` where it reads them (nothing on SQLite, SKIP
   * LOCKED on PostgreSQL). The lease, the claimed columns and the attempt count are the primitive's.
   */
  claimChosen(o: ChosenClaim): Promise<Lease<Row>[]> {
    return this.take(o.now + o.leaseMs, o.choose(this.claimable(o.now), this.lock));
  }

  /** What makes a row claimable at `now`: waiting, due, and held by no live lease (its columns unqualified). */
  claimable(now: number): RawBuilder<unknown> {
    const { shape } = this;
    const free =
      shape.lease === null ? sql`TRUE` : sql`(${sql.ref(shape.lease)} IS NULL OR ${sql.ref(shape.lease)} <= ${now})`;
    const due =
      shape.nullDue === 'now'
        ? sql`(${sql.ref(shape.due)} IS NULL OR ${sql.ref(shape.due)} <= ${now})`
        : sql`${sql.ref(shape.due)} <= ${now}`;
    return sql`${shape.waiting} AND ${due} AND ${free}`;
  }

  private async take(leaseUntil: number, chosen: RawBuilder<unknown>): Promise<Lease<Row>[]> {
    const { shape } = this;
    const key = sql.join(shape.key.map((c) => sql.ref(c)));
    const changes: Record<string, Value | RawBuilder<unknown>> = { ...shape.claimed, [this.leaseColumn]: leaseUntil };
    if (shape.attempts) changes[shape.attempts] = sql`${sql.ref(shape.attempts)} + 1`;
    // Planned for each claim's values and the table's size now (prepared.ts): a queue is empty one
    // minute and holds thousands of rows the next.
    const { rows } = await prepared<Row>(
      this.db,
      sql`UPDATE ${sql.table(shape.table)} SET ${set(changes)} WHERE (${key}) IN (${chosen}) RETURNING *`.compile(
        this.db.kysely,
      ),
      { plan: 'each' },
    );
    return rows.map((row) => ({ row, leaseUntil }));
  }

  /**
   * Ends a claim while its lease is still the holder's: sets `values` and lets the row go. False
   * when the lease ran out and another process took the row (nothing written: it settles it).
   */
  async settle(key: readonly Value[], leaseUntil: number, values: Readonly<Record<string, Value>>): Promise<boolean> {
    const changes = this.shape.lease === null ? values : { [this.shape.lease]: null, ...values };
    const { changed } = await prepared(
      this.db,
      sql`UPDATE ${sql.table(this.shape.table)} SET ${set(changes)} WHERE ${this.keyOf(key)} AND ${sql.ref(this.leaseColumn)} = ${leaseUntil}`.compile(
        this.db.kysely,
      ),
    );
    return changed === 1;
  }

  /**
   * Gives claimed rows back unattempted (a stopping holder, a paused group), their due time
   * unchanged, all in one transaction: each only while its lease is still the holder's. How many
   * went back. For tables with a lease column (the others give a row back with `release`).
   */
  async giveBack(held: readonly { key: readonly Value[]; leaseUntil: number }[]): Promise<number> {
    const { lease, table } = this.shape;
    if (lease === null) throw new Error(`${table} has no lease column: give its rows back with release()`);
    if (held.length === 0) return 0;
    const changed = await atomically(
      this.db,
      held.map((h) =>
        sql`UPDATE ${sql.table(table)} SET ${sql.ref(lease)} = NULL WHERE ${this.keyOf(h.key)} AND ${sql.ref(lease)} = ${h.leaseUntil}`.compile(
          this.db.kysely,
        ),
      ),
    );
    return changed.reduce((sum, n) => sum + n, 0);
  }

  /** Gives a claimed row back, due again at `dueAt` (a retry's back-off), with `values` (its error, its attempts). */
  release(
    key: readonly Value[],
    leaseUntil: number,
    dueAt: number,
    values: Readonly<Record<string, Value>> = {},
  ): Promise<boolean> {
    return this.settle(key, leaseUntil, { ...values, [this.shape.due]: dueAt });
  }

  /**
   * How many rows wait and are due at `now` and no one holds, how many are held under a live lease,
   * and the earliest due time among the first (null when none has one).
   */
  async counts(now: number): Promise<{ due: number; held: number; oldestDueAt: number | null }> {
    const { shape } = this;
    const held = shape.lease === null ? sql`FALSE` : sql`${sql.ref(shape.lease)} > ${now}`;
    const { rows } = await sql<{
      due: number | string | null;
      held: number | string | null;
      oldest: number | string | null;
    }>`
      SELECT SUM(CASE WHEN ${held} THEN 0 ELSE 1 END) AS due, SUM(CASE WHEN ${held} THEN 1 ELSE 0 END) AS held,
        MIN(CASE WHEN ${held} THEN NULL ELSE ${sql.ref(shape.due)} END) AS oldest
      FROM ${sql.table(shape.table)} WHERE ${shape.waiting} AND (${shape.nullDue === 'now' ? sql`${sql.ref(shape.due)} IS NULL OR ` : sql``}${sql.ref(shape.due)} <= ${now} OR ${held})`.execute(
      this.db.kysely,
    );
    const row = rows[0];
    return {
      due: Number(row?.due ?? 0),
      held: Number(row?.held ?? 0),
      oldestDueAt: row?.oldest == null ? null : Number(row.oldest),
    };
  }

  /** Deletes finished rows (`finished`: a condition the capability gives, its own retention), up to `limit` a statement; how many. */
  async prune(finished: RawBuilder<unknown>, limit = 1000): Promise<number> {
    const { shape } = this;
    const key = sql.join(shape.key.map((c) => sql.ref(c)));
    const table = sql.table(shape.table);
    let pruned = 0;
    for (;;) {
      const result =
        await sql`DELETE FROM ${table} WHERE (${key}) IN (SELECT ${key} FROM ${table} WHERE ${finished} LIMIT ${limit})`.execute(
          this.db.kysely,
        );
      const removed = Number(result.numAffectedRows ?? 0);
      pruned += removed;
      if (removed < limit) return pruned;
    }
  }
}
