// The leased claim on both databases, on a table of its own: due rows only, in order, each to one
// holder even when two processes claim at once; a lease that runs out lets another take the row and
// keeps the first holder from settling it; back-off; fairness between groups; counts and pruning.
import { sql, type RawBuilder } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../../test/helpers/databases.js';
import { openDatabase, type Database } from '../db/index.js';
import { backoff, LeasedRows, type LeaseShape } from './leased.js';

interface Work {
  id: number;
  grp: string;
  state: string;
  due_at: number | null;
  lease_until: number | null;
  attempts: number;
  note: string | null;
}

const SHAPE: LeaseShape = {
  table: 'lease_work',
  key: ['id'],
  due: 'due_at',
  lease: 'lease_until',
  waiting: sql`state = 'waiting'`,
  order: ['id'],
  attempts: 'attempts',
  claimed: { state: 'waiting' },
  nullDue: 'now',
};

describeEachDatabase('leased rows', (kind) => {
  let database: TestDatabase;
  let db: Database;
  let other: Database;
  beforeEach(async () => {
    database = await createTestDatabase(kind);
    db = await openDatabase(database.target, { migrate: true });
    other = await openDatabase(database.target);
    await sql`CREATE TABLE lease_work (id INTEGER PRIMARY KEY, grp TEXT NOT NULL, state TEXT NOT NULL, due_at BIGINT, lease_until BIGINT, attempts INTEGER NOT NULL DEFAULT 0, note TEXT)`.execute(
      db.kysely,
    );
  });
  afterEach(async () => {
    await other?.close();
    await db?.close();
    await database?.drop();
  });
  const add = (rows: { id: number; grp?: string; due?: number | null; state?: string }[]) =>
    sql`INSERT INTO lease_work (id, grp, state, due_at) VALUES ${sql.join(rows.map((r) => sql`(${r.id}, ${r.grp ?? 'a'}, ${r.state ?? 'waiting'}, ${r.due === undefined ? 0 : r.due})`))}`.execute(
      db.kysely,
    );
  const ids = (leases: { row: Work }[]) => leases.map((l) => Number(l.row.id)).sort((a, b) => a - b);

  it('takes due, waiting, unheld rows in order, up to the limit, and counts each claim', async () => {
    await add([
      { id: 1 },
      { id: 2, due: null },
      { id: 3, due: 5_000 },
      { id: 4, state: 'done' },
      { id: 5, due: 900 },
      { id: 6 },
    ]);
    const rows = new LeasedRows<Work>(db, SHAPE);
    const first = await rows.claim({ now: 1_000, limit: 2, leaseMs: 500 });
    expect(ids(first)).toEqual([1, 2]);
    expect(
      first.every((l) => l.leaseUntil === 1_500 && Number(l.row.lease_until) === 1_500 && Number(l.row.attempts) === 1),
    ).toBe(true);
    expect(ids(await rows.claim({ now: 1_000, limit: 10, leaseMs: 500 }))).toEqual([5, 6]);
    expect(await rows.claim({ now: 1_000, limit: 10, leaseMs: 500 })).toEqual([]);
    expect(await rows.counts(1_000)).toEqual({ due: 0, held: 4, oldestDueAt: null });
  });

  it('takes no row due NULL where that means never', async () => {
    await add([{ id: 1, due: null }, { id: 2 }]);
    const rows = new LeasedRows<Work>(db, { ...SHAPE, nullDue: 'never' });
    expect(ids(await rows.claim({ now: 1_000, limit: 5, leaseMs: 500 }))).toEqual([2]);
    expect(await rows.counts(1_000)).toEqual({ due: 0, held: 1, oldestDueAt: null });
  });

  it('gives each row to one of two processes claiming at once', async () => {
    await add(Array.from({ length: 60 }, (_, i) => ({ id: i + 1 })));
    const [a, b] = [new LeasedRows<Work>(db, SHAPE), new LeasedRows<Work>(other, SHAPE)];
    const taken: number[] = [];
    for (let round = 0; round < 6; round++) {
      const [x, y] = await Promise.all([
        a.claim({ now: 1_000, limit: 7, leaseMs: 500 }),
        b.claim({ now: 1_000, limit: 7, leaseMs: 500 }),
      ]);
      taken.push(...ids(x), ...ids(y));
    }
    expect(taken.length).toBe(new Set(taken).size);
    expect(taken.length).toBeGreaterThanOrEqual(42);
  });

  it('lets another take a row whose lease ran out, and keeps the first holder from settling it', async () => {
    await add([{ id: 1 }]);
    const rows = new LeasedRows<Work>(db, SHAPE);
    const [first] = await rows.claim({ now: 1_000, limit: 1, leaseMs: 500 });
    expect(await rows.claim({ now: 1_499, limit: 1, leaseMs: 500 })).toEqual([]);
    // A lease until 1,500 holds the row before 1,500: at 1,500 it has run out.
    const [second] = await rows.claim({ now: 1_500, limit: 1, leaseMs: 500 });
    expect(Number(second!.row.attempts)).toBe(2);
    expect(await rows.settle([1], first!.leaseUntil, { state: 'done', note: 'first' })).toBe(false);
    expect(await rows.settle([1], second!.leaseUntil, { state: 'done', note: 'second' })).toBe(true);
    const {
      rows: [row],
    } = await sql<Work>`SELECT * FROM lease_work`.execute(db.kysely);
    expect({ state: row!.state, note: row!.note, lease: row!.lease_until }).toEqual({
      state: 'done',
      note: 'second',
      lease: null,
    });
  });

  it('gives a failed row back due after its back-off, and follows a schedule until it is spent', async () => {
    await add([{ id: 1 }]);
    const rows = new LeasedRows<Work>(db, SHAPE);
    const [lease] = await rows.claim({ now: 1_000, limit: 1, leaseMs: 500 });
    expect(
      await rows.release([1], lease!.leaseUntil, 1_000 + backoff([60_000, 300_000], 1)!, { note: 'refused' }),
    ).toBe(true);
    expect(await rows.claim({ now: 60_999, limit: 1, leaseMs: 500 })).toEqual([]);
    expect(ids(await rows.claim({ now: 61_000, limit: 1, leaseMs: 500 }))).toEqual([1]);
    expect([1, 2, 3].map((attempt) => backoff([60_000, 300_000], attempt))).toEqual([60_000, 300_000, null]);
  });

  it("gives unattempted rows back in one go, due as they were, only those whose lease is still the holder's", async () => {
    await add([
      { id: 1, due: 300 },
      { id: 2, due: 400 },
      { id: 3, due: 500 },
    ]);
    const rows = new LeasedRows<Work>(db, SHAPE);
    const held = (await rows.claim({ now: 1_000, limit: 3, leaseMs: 500 })).map((l) => ({
      key: [Number(l.row.id)],
      leaseUntil: l.leaseUntil,
    }));
    const [stale] = await rows.claim({ now: 1_500, limit: 1, leaseMs: 500 }); // row 1's lease ran out: another took it
    expect(Number(stale!.row.id)).toBe(1);
    expect(await rows.giveBack(held)).toBe(2);
    expect(await rows.counts(1_600)).toEqual({ due: 2, held: 1, oldestDueAt: 400 });
    await expect(new LeasedRows<Work>(db, { ...SHAPE, lease: null }).giveBack(held)).rejects.toThrow(/no lease column/);
  });

  it('moves the due time as the lease where a table has no lease column', async () => {
    await add([{ id: 1 }, { id: 2, due: 9_000 }]);
    const rows = new LeasedRows<Work>(db, { ...SHAPE, lease: null, attempts: undefined });
    const [lease] = await rows.claim({ now: 1_000, limit: 5, leaseMs: 500 });
    expect([Number(lease!.row.id), Number(lease!.row.due_at), Number(lease!.row.attempts)]).toEqual([1, 1_500, 0]);
    expect(await rows.claim({ now: 1_499, limit: 5, leaseMs: 500 })).toEqual([]);
    expect(await rows.settle([1], 1_000, { note: 'stale' })).toBe(false);
    expect(await rows.settle([1], lease!.leaseUntil, { state: 'done' })).toBe(true);
  });

  it('takes at most so many rows of each group in one claim, every group first', async () => {
    await add([
      ...Array.from({ length: 10 }, (_, i) => ({ id: i + 1, grp: 'busy' })),
      { id: 11, grp: 'quiet' },
      { id: 12, grp: 'other' },
    ]);
    const rows = new LeasedRows<Work>(db, SHAPE);
    const taken = await rows.claim({ now: 1_000, limit: 5, leaseMs: 500, fair: { by: 'grp', perGroup: 2 } });
    expect(ids(taken)).toEqual([1, 2, 11, 12]);
    expect(ids(await rows.claim({ now: 1_000, limit: 3, leaseMs: 500, within: sql`grp = 'busy'` }))).toEqual([3, 4, 5]);
  });

  it('counts the due rows no one holds with the earliest due time, and the held ones', async () => {
    await add([
      { id: 1, due: 400 },
      { id: 2, due: 700 },
      { id: 3, due: 5_000 },
      { id: 4, due: 100, state: 'done' },
    ]);
    const rows = new LeasedRows<Work>(db, SHAPE);
    expect(await rows.counts(1_000)).toEqual({ due: 2, held: 0, oldestDueAt: 400 });
    expect(ids(await rows.claim({ now: 1_000, limit: 1, leaseMs: 500 }))).toEqual([1]);
    expect(await rows.counts(1_000)).toEqual({ due: 1, held: 1, oldestDueAt: 700 });
  });

  it("takes the rows a capability's own choice names, only those still claimable, under the primitive's lease", async () => {
    await add([
      { id: 1, grp: 'a' },
      { id: 2, grp: 'b' },
      { id: 3, grp: 'b', due: 9_000 },
      { id: 4, grp: 'c' },
    ]);
    const rows = new LeasedRows<Work>(db, SHAPE);
    // The capability's policy: group b's claimable rows first, then one more of any group, in reverse order.
    const choose = (claimable: RawBuilder<unknown>, lock: RawBuilder<unknown>) =>
      sql`SELECT id FROM (SELECT id, CASE WHEN grp = 'b' THEN 0 ELSE 1 END AS rank FROM lease_work WHERE ${claimable} ORDER BY rank, id DESC LIMIT 2 ${lock}) chosen`;
    const taken = await rows.claimChosen({ now: 1_000, leaseMs: 500, choose });
    expect(ids(taken)).toEqual([2, 4]);
    expect(taken.every((l) => l.leaseUntil === 1_500 && Number(l.row.attempts) === 1)).toBe(true);
    // Held rows and rows not yet due are not claimable: the next choice finds only row 1.
    expect(ids(await rows.claimChosen({ now: 1_000, leaseMs: 500, choose }))).toEqual([1]);
    expect(await rows.claimChosen({ now: 1_000, leaseMs: 500, choose })).toEqual([]);
  });

  it.runIf(kind === 'postgres')(
    'plans each claim for the table as it is at that moment, never keeping a plan made for an empty queue',
    async () => {
      // One connection, so the session's prepared statements are the ones this test's claims made.
      const single = await openDatabase({ ...database.target, poolSize: 1 } as typeof database.target);
      try {
        const rows = new LeasedRows<Work>(single, SHAPE);
        const choose = (claimable: RawBuilder<unknown>, lock: RawBuilder<unknown>) =>
          sql`SELECT id FROM lease_work WHERE ${claimable} ORDER BY id LIMIT 1 ${lock}`;
        // More runs than PostgreSQL plans a named statement for its values before it may keep a generic plan.
        for (let i = 0; i < 8; i++) {
          expect(await rows.claim({ now: 1_000, limit: 10, leaseMs: 500 })).toEqual([]);
          expect(await rows.claimChosen({ now: 1_000, leaseMs: 500, choose })).toEqual([]);
        }
        await add(Array.from({ length: 2_000 }, (_, i) => ({ id: i + 1 })));
        const [taken] = await rows.claim({ now: 1_000, limit: 1, leaseMs: 500 });
        expect(await rows.settle([taken!.row.id], taken!.leaseUntil, { state: 'done' })).toBe(true);
        const { rows: kept } = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(
          single.kysely,
        );
        const statements = kept.map((r) => r.statement.toLowerCase());
        // The settle, by key, keeps its plan; no claim does.
        expect(statements.some((text) => text.startsWith('update "lease_work"') && !text.includes(' in ('))).toBe(true);
        expect(statements.filter((text) => text.includes(' in ('))).toEqual([]);
      } finally {
        await single.close();
      }
    },
  );

  it('prunes what the capability calls finished, in statements of a bounded size', async () => {
    await add([...Array.from({ length: 25 }, (_, i) => ({ id: i + 1, state: 'done' })), { id: 26 }]);
    const rows = new LeasedRows<Work>(db, SHAPE);
    expect(await rows.prune(sql`state = 'done'`, 10)).toBe(25);
    const { rows: left } = await sql<{ id: number }>`SELECT id FROM lease_work`.execute(db.kysely);
    expect(left.map((r) => Number(r.id))).toEqual([26]);
  });
});
