import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DAY } from '../clock.js';
import { openDatabase, type Database } from '../db/index.js';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../../test/helpers/databases.js';
import { RefusalLog, refusalsByDay } from './refusals.js';

const T0 = Date.UTC(2026, 2, 1, 12);

describeEachDatabase('refused-request counts', (kind) => {
  let database: TestDatabase;
  let db: Database;
  beforeEach(async () => {
    database = await createTestDatabase(kind);
    db = await openDatabase(database.target, { migrate: true });
  });
  afterEach(async () => {
    await db?.close().catch(() => {});
    await database?.drop();
  });

  it('adds each flush to the same rows (two logs: two processes), per day, and keeps counts a failed write could not store', async () => {
    const one = new RefusalLog(db);
    const two = new RefusalLog(db);
    for (let i = 0; i < 3; i++) one.note('acct_a', T0, 429);
    one.note('acct_a', T0 + DAY, 402);
    two.note('acct_a', T0, 403);
    two.note('acct_b', T0, 429);
    await Promise.all([one.flush(), two.flush()]);
    one.note('acct_a', T0, 429);
    await one.flush();
    const counts = await refusalsByDay(db, 'acct_a', T0 - DAY, T0 + 2 * DAY);
    expect(Object.fromEntries(counts)).toEqual({ '2026-03-01': 5, '2026-03-02': 1 });

    // The table unreachable for a moment: the flush fails and its counts wait for the next one.
    await sql`ALTER TABLE refusals RENAME TO refusals_away`.execute(db.kysely);
    one.note('acct_c', T0, 429);
    await expect(one.flush()).rejects.toThrow();
    await sql`ALTER TABLE refusals_away RENAME TO refusals`.execute(db.kysely);
    await one.flush();
    expect(Object.fromEntries(await refusalsByDay(db, 'acct_c', T0 - DAY, T0 + DAY))).toEqual({ '2026-03-01': 1 });
  });
});
