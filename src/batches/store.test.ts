// The statements a runner repeats for every chunk of a batch (claim, the chunk's open rows, the
// completion check, the active batches) must find their rows through an index, not walk the whole
// batch: on SQLite, a partial index is used only where the WHERE holds its condition in literals, and
// an ORDER BY on the primary key can make the planner walk it. Each walk made a 10,000-row batch
// quadratic (docs/performance.md, "Batches"). This reads SQLite's plan of each statement as it ran.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/databases.js';
import { forDialect, openDatabase, type Database } from '../db/index.js';
import { BatchStore } from './store.js';

let database: TestDatabase;
let db: Database;
beforeEach(async () => {
  database = await createTestDatabase('sqlite');
  db = await openDatabase(database.target, { migrate: true });
});
afterEach(async () => {
  await db?.close();
  await database?.drop();
});

it("answers a chunk's statements through indexes, never by walking the batch", async () => {
  const handle = forDialect(db, { sqlite: (d) => d.sqlite, postgres: () => null })!;
  const store = new BatchStore(db);
  const lookups = Array.from({ length: 200 }, (_, i) => ({ query: `flightNumber=XX${i + 1}&flightDate=2026-03-01`, plan: null }));
  await store.insert({
    id: 'bat_1',
    accountId: 'acc_1',
    callerId: 'key_1',
    callerName: 'key',
    format: 'json',
    ignoredColumns: [],
    createdAt: 1_000,
    lookups,
    callsPlanned: 200,
    rows: lookups.map((_, i) => ({ position: i + 1, reference: null, lookupSeq: i + 1, error: null })),
  });

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
  const claimed = await store.claim('bat_1', 16, 2_000, 60_000);
  expect(claimed.map((c) => c.seq)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
  expect((await store.openRows('bat_1', [16, 3, 9])).map((r) => r.position)).toEqual([3, 9, 16]);
  expect(await store.complete('bat_1', 3_000, 4_000)).toBe(false);
  handle.prepare = prepare;

  const plans = ran.filter((r) => /batch_(rows|lookups)|from "batches"/.test(r.sql)).map((r) => ({
    sql: r.sql,
    plan: (handle.prepare(`EXPLAIN QUERY PLAN ${r.sql}`).all(...(r.params as [])) as { detail: string }[]).map((p) => p.detail),
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
