// The statements a runner repeats for every chunk of a batch (claim, the chunk's open rows, the
// completion check, the active batches) must find their rows through an index, not walk the whole
// batch: on SQLite, a partial index is used only where the WHERE holds its condition in literals, and
// an ORDER BY on the primary key can make the planner walk it. Each walk made a 10,000-row batch
// quadratic (docs/performance.md, "Batches"). This reads SQLite's plan of each statement as it ran.
// And on both databases: a chunk's answers are written only where the lease is still the writer's.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../../test/helpers/databases.js';
import { forDialect, openDatabase, type Database } from '../db/index.js';
import { BatchStore, type NewBatch } from './store.js';

let database: TestDatabase;
let db: Database;
const open = (kind: TestDatabase['target']['kind']) => {
  beforeEach(async () => {
    database = await createTestDatabase(kind);
    db = await openDatabase(database.target, { migrate: true });
  });
  afterEach(async () => {
    await db?.close();
    await database?.drop();
  });
};

/** A batch of `count` lookups, a row each, and one more row asking the first lookup again. */
function batch(count: number): NewBatch {
  const lookups = Array.from({ length: count }, (_, i) => ({
    query: `flightNumber=XX${i + 1}&flightDate=2026-03-01`,
    plan: null,
  }));
  const rows = lookups.map((_, i) => ({ position: i + 1, reference: null, lookupSeq: i + 1, error: null }));
  return {
    id: 'bat_1',
    accountId: 'acc_1',
    callerId: 'key_1',
    callerName: 'key',
    format: 'json',
    ignoredColumns: [],
    createdAt: 1_000,
    lookups,
    callsPlanned: count,
    rows: [...rows, { position: count + 1, reference: null, lookupSeq: 1, error: null }],
  };
}

describe('batch store plans (SQLite)', () => {
  open('sqlite');

  it("answers a chunk's statements through indexes, never by walking the batch", async () => {
    const handle = forDialect(db, { sqlite: (d) => d.sqlite, postgres: () => null })!;
    const store = new BatchStore(db);
    await store.insert(batch(200));

    // Every statement the store runs from here on, with its parameters.
    const ran: { sql: string; params: unknown[] }[] = [];
    const prepare = handle.prepare.bind(handle);
    handle.prepare = ((source: string) => {
      const statement = prepare(source);
      for (const method of ['all', 'get', 'run'] as const) {
        const original = statement[method].bind(statement) as (...params: unknown[]) => unknown;
        (statement as unknown as Record<string, unknown>)[method] = (...params: unknown[]) => {
          ran.push({ sql: source, params });
          return original(...params);
        };
      }
      return statement;
    }) as typeof handle.prepare;

    expect(await store.active()).toHaveLength(1);
    const claimed = await store.lookups.claim('bat_1', 16, 2_000, 58_000);
    expect(claimed.map((c) => c.seq)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    expect((await store.lookups.openRows('bat_1', [16, 3, 1])).map((r) => r.position)).toEqual([1, 3, 16, 201]);
    expect(await store.complete('bat_1', 3_000, 4_000)).toBe(false);
    handle.prepare = prepare;

    const plans = ran
      .filter((r) => /batch_(rows|lookups)|from "batches"/.test(r.sql))
      .map((r) => ({
        sql: r.sql,
        plan: (handle.prepare(`EXPLAIN QUERY PLAN ${r.sql}`).all(...(r.params as [])) as { detail: string }[]).map(
          (p) => p.detail,
        ),
      }));
    expect(plans).toHaveLength(4);
    for (const { sql, plan } of plans) {
      for (const line of plan) {
        // A scan of a whole table, or a search of a batch's rows or lookups by the batch alone on the primary key, walks the batch.
        expect(line, sql).not.toMatch(/^SCAN (batch_rows|batch_lookups|batches)$/);
        expect(line, sql).not.toMatch(/^SCAN .*sqlite_autoindex/);
        expect(line, sql).not.toMatch(/sqlite_autoindex_batch_(rows|lookups)_1 \(batch_id=\?\)$/);
      }
    }
    const used = plans.flatMap((p) => p.plan).join('\n');
    expect(used).toContain('batch_lookups_open');
    expect(used).toContain('batch_rows_lookup (batch_id=? AND lookup_seq=?)');
    expect(used).toContain('batches_active');
  });
});

describeEachDatabase('batch store writes', (kind) => {
  open(kind);

  it("writes a chunk's answers and rows only while the lease is the writer's; a lookup taken over keeps the new holder's", async () => {
    const store = new BatchStore(db);
    await store.insert(batch(3));
    const first = await store.lookups.claim('bat_1', 3, 2_000, 8_000);
    // The first holder's leases run out; another worker takes the lookups over.
    const second = await store.lookups.claim('bat_1', 3, 20_000, 60_000);
    expect(second.map((c) => [c.seq, c.attempts])).toEqual([
      [1, 2],
      [2, 2],
      [3, 2],
    ]);
    const write = (claimed: typeof first, outcome: string, usage: number) =>
      claimed.map((lookup) => ({
        lookup,
        result: JSON.stringify({ outcome }),
        outcome,
        calls: 1,
        rows: [
          { position: lookup.seq, usageId: usage + lookup.seq, state: 'done' as const, error: null },
          ...(lookup.seq === 1 ? [{ position: 4, usageId: usage + 4, state: 'done' as const, error: null }] : []),
        ],
        at: 30_000,
      }));
    const rows = () =>
      db.kysely
        .selectFrom('batch_rows')
        .select(['position', 'state', 'outcome', 'usage_id'])
        .orderBy('position')
        .execute();
    const lookups = () =>
      db.kysely.selectFrom('batch_lookups').select(['seq', 'state', 'result']).orderBy('seq').execute();

    // The first holder writes late: nothing of it lands.
    await store.lookups.writeMany('bat_1', write(first, 'delayed', 100));
    expect((await rows()).map((r) => r.state)).toEqual(['pending', 'pending', 'pending', 'pending']);
    expect((await lookups()).map((l) => l.state)).toEqual(['running', 'running', 'running']);

    // The holder of the lease writes: every row and lookup, once.
    await store.lookups.writeMany('bat_1', write(second, 'on_time', 200));
    expect((await rows()).map((r) => [r.position, r.state, r.outcome, Number(r.usage_id)])).toEqual([
      [1, 'done', 'on_time', 201],
      [2, 'done', 'on_time', 202],
      [3, 'done', 'on_time', 203],
      [4, 'done', 'on_time', 204],
    ]);
    expect((await lookups()).map((l) => [l.seq, l.state, JSON.parse(l.result!).outcome])).toEqual([
      [1, 'done', 'on_time'],
      [2, 'done', 'on_time'],
      [3, 'done', 'on_time'],
    ]);
    // Written again (a retry of the same chunk): nothing changes.
    await store.lookups.writeMany('bat_1', write(second, 'cancelled', 300));
    expect((await rows()).every((r) => r.outcome === 'on_time')).toBe(true);
    expect(await store.complete('bat_1', 40_000, 50_000)).toBe(true);
  });
});
