// The batch lookups as leased work (leases/): a runner's claim, the rows of what it claimed, its
// answers written, a lookup given back and the pending ones refused; the same on both dialects but for
// how answers are written (dialect.ts). Leases and retry times are wall-clock milliseconds: they are
// about processes being alive, not about the flights' time.
import { sql, type Kysely } from 'kysely';
import { atomically } from '../db/atomic.js';
import type { BatchLookupsTable, Database, DatabaseSchema } from '../db/index.js';
import { LeasedRows, type LeaseShape } from '../leases/index.js';
import { batchesDialect, type BatchesDialect } from './dialect.js';
import type { Claimed, OpenRow, LookupWrite } from './store-shapes.js';

// A lookup still to answer, in literals as the partial index batch_lookups_open says it: SQLite uses that
// index only where the WHERE holds this term (a bound parameter never matches); else each claim walks the batch.
export const OPEN = sql<boolean>`state IN ('pending', 'running')`;
/**
 * Lookups as leased work (leases/): pending ones, or running ones whose holder's lease ran out, due
 * when their retry time has come (NULL: never retried), in order; each claim counts an attempt.
 */
const LOOKUPS: LeaseShape = {
  table: 'batch_lookups',
  key: ['batch_id', 'seq'],
  due: 'retry_at',
  nullDue: 'now',
  lease: 'lease_until',
  waiting: OPEN,
  order: ['seq'],
  attempts: 'attempts',
  claimed: { state: 'running' },
};

export class LookupStore {
  private readonly k: Kysely<DatabaseSchema>;
  private readonly dialect: BatchesDialect;

  private readonly lookups: LeasedRows<BatchLookupsTable>;

  constructor(private readonly db: Database) {
    this.k = db.kysely;
    this.dialect = batchesDialect(db);
    this.lookups = new LeasedRows(db, LOOKUPS);
  }

  /**
   * Takes up to `limit` lookups of the batch that are pending (and due), or whose holder's lease ran
   * out, in order; each taken for `leaseMs`.
   */
  async claim(batchId: string, limit: number, now: number, leaseMs: number): Promise<Claimed[]> {
    const taken = await this.lookups.claim({ now, limit, leaseMs, within: sql`batch_id = ${batchId}` });
    return taken
      .map(({ row, leaseUntil }) => ({
        seq: Number(row.seq),
        query: row.query,
        plan: row.plan,
        attempts: Number(row.attempts),
        leaseUntil,
      }))
      .sort((a, b) => a.seq - b.seq);
  }

  /** Lookups of every batch due now that no worker holds, and those held. */
  lookupCounts(now: number): Promise<{ due: number; held: number }> {
    return this.lookups.counts(now);
  }

  /** The rows of these lookups still waiting for an answer. */
  async openRows(batchId: string, seqs: number[]): Promise<OpenRow[]> {
    if (seqs.length === 0) return [];
    const rows = await this.k
      .selectFrom('batch_rows')
      .select(['position', 'lookup_seq', 'usage_id'])
      .where('batch_id', '=', batchId)
      .where('lookup_seq', 'in', seqs)
      .where('state', '=', 'pending')
      .execute();
    // Sorted here: ORDER BY position makes SQLite walk the whole batch by its primary key.
    return rows
      .map((r) => ({
        position: Number(r.position),
        lookupSeq: Number(r.lookup_seq),
        usageId: r.usage_id === null ? null : Number(r.usage_id),
      }))
      .sort((a, b) => a.position - b.position);
  }

  /**
   * Writes lookups' answers and their rows in one transaction, each only while its lease is still
   * this worker's (else nothing of it: another worker took it over and writes its own).
   */
  async writeMany(batchId: string, writes: LookupWrite[]): Promise<void> {
    if (writes.length === 0) return;
    const k = this.k;
    const queries = this.dialect.lookupWrites(k, batchId, writes);
    const calls = writes.reduce((sum, w) => sum + w.calls, 0);
    if (calls > 0)
      queries.push(
        k
          .updateTable('batches')
          .set((eb) => ({ calls_made: eb('calls_made', '+', calls) }))
          .where('id', '=', batchId)
          .compile(),
      );
    await atomically(this.db, queries);
  }

  /**
   * Gives a lookup back to be tried again after `retryAt`, keeping the charges its rows took.
   * `counted: false` undoes the claim's count of the attempt: the lookup was given back for want of a
   * database connection, not because it failed. Safe for the credits because its rows' charges are
   * written here, in the same transaction: a next attempt finds them on the rows and needs no search
   * of the usage log (which only a lookup claimed more than once makes, work.ts).
   */
  async release(
    batchId: string,
    lookup: Claimed,
    charges: { position: number; usageId: number }[],
    calls: number,
    retryAt: number,
    { counted }: { counted: boolean } = { counted: true },
  ): Promise<void> {
    const k = this.k;
    await atomically(this.db, [
      ...charges.map((c) =>
        k
          .updateTable('batch_rows')
          .set({ usage_id: c.usageId })
          .where('batch_id', '=', batchId)
          .where('position', '=', c.position)
          .where('state', '=', 'pending')
          .compile(),
      ),
      k
        .updateTable('batch_lookups')
        .set((eb) => ({
          state: 'pending',
          lease_until: null,
          retry_at: retryAt,
          ...(counted ? {} : { attempts: eb('attempts', '-', 1) }),
        }))
        .where('batch_id', '=', batchId)
        .where('seq', '=', lookup.seq)
        .where('state', '=', 'running')
        .where('lease_until', '=', lookup.leaseUntil)
        .compile(),
      // The requests the failed attempt made were made.
      k
        .updateTable('batches')
        .set((eb) => ({ calls_made: eb('calls_made', '+', calls) }))
        .where('id', '=', batchId)
        .compile(),
    ]);
  }

  /**
   * Refuses everything not yet answered (the allowance ran out, the account was disabled): the
   * pending lookups and their rows, with the reason. Lookups in progress finish as they are.
   */
  async stop(batchId: string, reason: string, at: number): Promise<void> {
    const k = this.k;
    await atomically(this.db, [
      k
        .updateTable('batches')
        .set({ stopped_reason: reason })
        .where('id', '=', batchId)
        .where('stopped_reason', 'is', null)
        .compile(),
      k
        .updateTable('batch_lookups')
        .set({ state: 'refused' })
        .where('batch_id', '=', batchId)
        .where('state', '=', 'pending')
        .compile(),
      k
        .updateTable('batch_rows')
        .set({ state: 'refused', error: reason, finished_at: at })
        .where('batch_id', '=', batchId)
        .where('state', '=', 'pending')
        .where('lookup_seq', 'in', (eb) =>
          eb.selectFrom('batch_lookups').select('seq').where('batch_id', '=', batchId).where('state', '=', 'refused'),
        )
        .compile(),
    ]);
  }
}
