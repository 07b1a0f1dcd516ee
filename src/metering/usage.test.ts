// A batch row's charge found again by its query (chargeOf: a lookup taken again looks up the credits
// its rows may hold) is one index entry, not a walk of the account's usage log: the statement as it
// runs, planned by each database over a usage log where the account's rows are most of the table.
import { CompiledQuery, sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../../test/helpers/databases.js';
import { openDatabase, type Database } from '../db/index.js';
import { chargeOf, chargeQuery } from './usage.js';

const BATCH = 'POST /api/v1/batches';
const SINCE = 1_772_000_000_000;
const marker = (row: number) => `flightNumber=W6${row}&flightDate=2026-02-20&batch=bat_1&row=${row}`;

describeEachDatabase("a batch row's charge", (kind) => {
  let database: TestDatabase;
  let db: Database;
  beforeEach(async () => {
    database = await createTestDatabase(kind);
    db = await openDatabase(database.target, { migrate: true });
    // The account's single lookups before and during the batch, another account's, and the batch's rows.
    const usage = (account: string, endpoint: string, at: number, query: string) => ({
      at,
      account_id: account,
      key_id: 'key',
      endpoint,
      status: 200,
      duration_ms: 1,
      query,
    });
    const rows = [
      ...Array.from({ length: 3_000 }, (_, i) =>
        usage('acc_a', 'GET /api/v1/flights/status', SINCE - 1_000 + i, `flightNumber=W6${i}&flightDate=2026-02-20`),
      ),
      ...Array.from({ length: 1_000 }, (_, i) =>
        usage('acc_b', 'GET /api/v1/flights/status', SINCE + i, `flightNumber=W6${i}&flightDate=2026-02-20`),
      ),
      ...Array.from({ length: 1_000 }, (_, i) => usage('acc_a', BATCH, SINCE + 10 + i, marker(i + 1))),
    ].sort((a, b) => a.at - b.at);
    for (let i = 0; i < rows.length; i += 500)
      await db.kysely
        .insertInto('usage_log')
        .values(rows.slice(i, i + 500))
        .execute();
    // What autovacuum does on PostgreSQL; the service never analyzes SQLite, so neither does the test there.
    if (db.kind === 'postgres') await sql`ANALYZE usage_log`.execute(db.kysely);
  });
  afterEach(async () => {
    await db?.close();
    await database?.drop();
  });

  it('is found by its marker through the batch rows index', async () => {
    const ids = await db.kysely.selectFrom('usage_log').select(['id', 'query']).where('endpoint', '=', BATCH).execute();
    const id = Number(ids.find((r) => r.query === marker(500))!.id);
    expect(await chargeOf(db, 'acc_a', BATCH, marker(500), SINCE)).toBe(id);
    expect(await chargeOf(db, 'acc_b', BATCH, marker(500), SINCE)).toBeNull();
    expect(await chargeOf(db, 'acc_a', BATCH, marker(1_001), SINCE)).toBeNull();
    expect(await chargeOf(db, 'acc_a', BATCH, marker(500), SINCE + 100_000)).toBeNull();

    const { sql: text, parameters } = chargeQuery(db, 'acc_a', BATCH, marker(500), SINCE).compile();
    const plan =
      db.kind === 'sqlite'
        ? (
            db.sqlite.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...(parameters as unknown[])) as { detail: string }[]
          ).map((r) => r.detail)
        : (await db.kysely.executeQuery(CompiledQuery.raw(`EXPLAIN ${text}`, [...parameters]))).rows.map(
            (r) => (r as { 'QUERY PLAN': string })['QUERY PLAN'],
          );
    const said = plan.join('\n');
    expect(said).toMatch(
      db.kind === 'sqlite'
        ? /SEARCH usage_log USING (COVERING )?INDEX usage_log_batch_row \(account_id=\? AND query=\? AND at>\?\)/
        : /Index (Only )?Scan using usage_log_batch_row on usage_log/,
    );
    expect(said).not.toMatch(/SCAN usage_log$|Seq Scan/m);
  });
});
