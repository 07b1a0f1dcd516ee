// The batches' SQL (migration 0016), the same on both dialects: a batch stored with its lookups and
// rows, read back and listed, canceled, started, finished and pruned. Its lookups' leased work (the
// claim, the answers written) is store-lookups.ts's, which the store holds as `lookups`.
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import { atomically } from '../db/atomic.js';
import type { BatchesTable, Database, DatabaseSchema } from '../db/index.js';
import { LookupStore, OPEN } from './store-lookups.js';
import {
  INSERT_CHUNK,
  type NewBatch,
  type Claimed,
  type OpenRow,
  type LookupWrite,
  type CountRow,
  type ResultRecord,
} from './store-shapes.js';

// The batches with work left, in literals as the partial index batches_active says it (store-lookups.ts, OPEN).
const ACTIVE = sql<boolean>`state IN ('queued', 'running')`;

export type BatchRecord = BatchesTable & { calls_planned: number; calls_made: number; notified: 0 | 1 };
export type { NewBatch, Claimed, OpenRow, LookupWrite, CountRow, ResultRecord };

export class BatchStore {
  private readonly k: Kysely<DatabaseSchema>;
  /** The batch's lookups as leased work: a runner's claim, its answers, a lookup given back, the rest refused. */
  readonly lookups: LookupStore;

  constructor(private readonly db: Database) {
    this.k = db.kysely;
    this.lookups = new LookupStore(db);
  }

  /** The batch, its lookups and its rows, all or nothing. */
  async insert(batch: NewBatch): Promise<void> {
    const k = this.k;
    const empty = batch.lookups.length === 0;
    const queries: CompiledQuery[] = [
      k
        .insertInto('batches')
        // prettier-ignore
        .values({
          id: batch.id,
          account_id: batch.accountId,
          caller_id: batch.callerId,
          caller_name: batch.callerName,
          format: batch.format,
          state: empty ? 'done' : 'queued',
          total_rows: batch.rows.length,
          lookups: batch.lookups.length,
          calls_planned: batch.callsPlanned,
          ignored_columns: JSON.stringify(batch.ignoredColumns),
          stopped_reason: null,
          created_at: batch.createdAt,
          started_at: null,
          finished_at: empty ? batch.createdAt : null,
          expires_at: null,
        })
        .compile(),
    ];
    for (let i = 0; i < batch.lookups.length; i += INSERT_CHUNK) {
      const values = batch.lookups.slice(i, i + INSERT_CHUNK).map((lookup, j) => ({
        batch_id: batch.id,
        seq: i + j + 1,
        query: lookup.query,
        plan: lookup.plan,
        state: 'pending' as const,
        lease_until: null,
        retry_at: null,
        result: null,
      }));
      queries.push(k.insertInto('batch_lookups').values(values).compile());
    }
    for (let i = 0; i < batch.rows.length; i += INSERT_CHUNK) {
      const values = batch.rows.slice(i, i + INSERT_CHUNK).map((r) => ({
        batch_id: batch.id,
        position: r.position,
        reference: r.reference,
        lookup_seq: r.lookupSeq,
        state: r.lookupSeq === null ? ('invalid' as const) : ('pending' as const),
        outcome: null,
        usage_id: null,
        error: r.error,
        finished_at: r.lookupSeq === null ? batch.createdAt : null,
      }));
      queries.push(k.insertInto('batch_rows').values(values).compile());
    }
    await atomically(this.db, queries);
  }

  async find(accountId: string, id: string): Promise<BatchRecord | undefined> {
    const row = await this.k
      .selectFrom('batches')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row as BatchRecord | undefined;
  }

  /** The row counts of batches (one, or a page of the list) in one query, by batch. */
  async counts(batchIds: string[]): Promise<Map<string, CountRow[]>> {
    const byBatch = new Map<string, CountRow[]>();
    const rows = await this.k
      .selectFrom('batch_rows')
      .select([
        'batch_id',
        'state',
        'outcome',
        (eb) => eb.fn.countAll<number>().as('rows'),
        (eb) => eb.fn.count<number>('usage_id').as('credits'),
      ])
      .where('batch_id', 'in', batchIds)
      .groupBy(['batch_id', 'state', 'outcome'])
      .execute();
    for (const r of rows) {
      byBatch.set(r.batch_id, [
        ...(byBatch.get(r.batch_id) ?? []),
        { state: r.state, outcome: r.outcome, rows: Number(r.rows), credits: Number(r.credits) },
      ]);
    }
    return byBatch;
  }

  /** The account's batches, newest first, after the one given (a page of `limit`, plus one to tell if more follow). */
  async list(accountId: string, limit: number, before?: BatchRecord): Promise<BatchRecord[]> {
    let query = this.k.selectFrom('batches').selectAll().where('account_id', '=', accountId);
    if (before) {
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '<', before.created_at),
          eb.and([eb('created_at', '=', before.created_at), eb('id', '<', before.id)]),
        ]),
      );
    }
    return (await query
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute()) as BatchRecord[];
  }

  /** Rows from `after` (exclusive), in input order, with their lookups' answers. */
  async results(batchId: string, after: number, limit: number): Promise<ResultRecord[]> {
    return this.k
      .selectFrom('batch_rows as r')
      .leftJoin('batch_lookups as l', (j) =>
        j.onRef('l.batch_id', '=', 'r.batch_id').onRef('l.seq', '=', 'r.lookup_seq'),
      )
      .select(['r.position', 'r.reference', 'r.state', 'r.outcome', 'r.usage_id', 'r.error', 'l.query', 'l.result'])
      .where('r.batch_id', '=', batchId)
      .where('r.position', '>', after)
      .orderBy('r.position')
      .limit(limit)
      .execute() as Promise<ResultRecord[]>;
  }

  /** Cancels what has not started: the batch, its pending lookups and their rows. False when it had already ended. */
  async cancel(batchId: string, at: number, expiresAt: number): Promise<boolean> {
    const k = this.k;
    const [changed] = await atomically(this.db, [
      k
        .updateTable('batches')
        .set({ state: 'canceled', finished_at: at, expires_at: expiresAt })
        .where('id', '=', batchId)
        .where('state', 'in', ['queued', 'running'])
        .compile(),
      k
        .updateTable('batch_lookups')
        .set({ state: 'canceled' })
        .where('batch_id', '=', batchId)
        .where('state', '=', 'pending')
        .compile(),
      k
        .updateTable('batch_rows')
        .set({ state: 'canceled', finished_at: at })
        .where('batch_id', '=', batchId)
        .where('state', '=', 'pending')
        .where('lookup_seq', 'in', (eb) =>
          eb.selectFrom('batch_lookups').select('seq').where('batch_id', '=', batchId).where('state', '=', 'canceled'),
        )
        .compile(),
    ]);
    return changed === 1;
  }

  /** Batches with work left, oldest first. */
  active(): Promise<Pick<BatchRecord, 'id' | 'account_id' | 'state' | 'caller_id' | 'caller_name' | 'created_at'>[]> {
    return this.k
      .selectFrom('batches')
      .select(['id', 'account_id', 'state', 'caller_id', 'caller_name', 'created_at'])
      .where(ACTIVE)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  async markStarted(batchId: string, at: number): Promise<void> {
    await this.k
      .updateTable('batches')
      .set({ state: 'running', started_at: at })
      .where('id', '=', batchId)
      .where('state', '=', 'queued')
      .execute();
  }

  /** Marks the batch done once no lookup is left; true for the call that did. */
  async complete(batchId: string, at: number, expiresAt: number): Promise<boolean> {
    const result = await this.k
      .updateTable('batches')
      .set({ state: 'done', finished_at: at, expires_at: expiresAt })
      .where('id', '=', batchId)
      .where('state', 'in', ['queued', 'running'])
      .where((eb) =>
        eb.not(eb.exists(eb.selectFrom('batch_lookups').select('seq').where('batch_id', '=', batchId).where(OPEN))),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Finished batches whose batch.completed event was not handed over yet. */
  unnotified(limit: number): Promise<BatchRecord[]> {
    return this.k
      .selectFrom('batches')
      .selectAll()
      .where('state', '=', 'done')
      .where('notified', '=', 0)
      .orderBy('finished_at')
      .limit(limit)
      .execute() as Promise<BatchRecord[]>;
  }

  async markNotified(batchId: string): Promise<void> {
    await this.k.updateTable('batches').set({ notified: 1 }).where('id', '=', batchId).execute();
  }

  /** Deletes up to `limit` batches that expired before `at`, with their lookups and rows; how many. */
  async prune(at: number, limit: number): Promise<number> {
    const expired = await this.k
      .selectFrom('batches')
      .select('id')
      .where('expires_at', '<', at)
      .orderBy('expires_at')
      .limit(limit)
      .execute();
    if (expired.length === 0) return 0;
    const ids = expired.map((e) => e.id);
    const k = this.k;
    await atomically(this.db, [
      k.deleteFrom('batch_rows').where('batch_id', 'in', ids).compile(),
      k.deleteFrom('batch_lookups').where('batch_id', 'in', ids).compile(),
      k.deleteFrom('batches').where('id', 'in', ids).compile(),
    ]);
    return ids.length;
  }
}
