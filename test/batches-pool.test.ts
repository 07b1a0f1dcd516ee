// Batches on a small PostgreSQL pool (issue 42, item 7): a batch of stored flights is all database
// work, and a worker with more lookups in flight than connections must make them wait their turn
// (back-pressure), not time out waiting for a connection and count that as a failed attempt. Here a
// pool of 2 against 32 lookups in flight, on a database made slow: a lock holds the stored flights
// for 6 seconds, longer than the pool's 5-second connect timeout (db/postgres.ts). Meanwhile the
// process still answers /api/ready and the API, another account's small batch is done before the
// big one, every lookup is tried once, and no connect timeout reaches the log.
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { withDefaultUser } from '../src/db/postgres.js';
import { createLogger } from '../src/logger.js';
import { createSimWorld } from '../src/sim/index.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';
import { flightsByStatus, waitForBatch } from './helpers/batches.js';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from './helpers/databases.js';

const DATE = '2026-02-20';
const BIG = 1_500;
const SMALL = 10;
/** Longer than the pool's connect timeout (5 s). */
const LOCK_MS = 6_000;

describeEachDatabase('batches on a pool of 2 with 32 lookups in flight', (kind) => {
  let database: TestDatabase;
  let rows: { flightNumber: string; flightDate: string }[];

  // The flights are stored first, by another service on the same database (whose process cache the
  // service under test does not share): asked again, each lookup is a read of the stored record.
  beforeAll(async () => {
    database = await createTestDatabase(kind, { migrated: true });
    // Delayed flights of a day well past the three-day window: stored once answered.
    const delayed = flightsByStatus(createSimWorld('test'), DATE).get('delayed')!;
    rows = delayed.slice(0, BIG + SMALL).map((f) => ({ flightNumber: f.flightNumber, flightDate: DATE }));
    const first = await startTestApp(kind, { database });
    try {
      const { key } = await first.account({ plan: { included: 100_000, overage: false } });
      const id = await submit(first, key, rows);
      expect((await waitForBatch(first, key, id, undefined, 120_000)).counts.byState.done).toBe(rows.length);
      const stored = await first.app.db.kysely
        .selectFrom('flight_records')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(stored.n)).toBe(rows.length);
    } finally {
      await first.close();
    }
  }, 180_000);
  afterAll(() => database?.drop());

  it("tries each lookup once, answers readiness and the API, and finishes another account's small batch first", async () => {
    let logged = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logged += String(chunk);
        done();
      },
    });
    const t = await startTestApp(kind, {
      database,
      poolSize: 2,
      batches: { concurrency: 32, perBatch: 32 },
      logger: createLogger('warn', sink),
    });
    // PostgreSQL: a session of the test's own holds the stored flights, so every read of one waits.
    const locker = kind === 'postgres' ? new pg.Client({ connectionString: withDefaultUser(database.url) }) : null;
    let released: Promise<void> = Promise.resolve();
    try {
      const big = await t.account({ plan: { included: 100_000, overage: false } });
      const small = await t.account({ plan: { included: 100, overage: false } });
      if (locker) {
        await locker.connect();
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE flight_records IN ACCESS EXCLUSIVE MODE');
        released = new Promise((resolve) => setTimeout(resolve, LOCK_MS)).then(
          async () => void (await locker.query('COMMIT')),
        );
      }
      const bigId = await submit(t, big.key, rows.slice(0, BIG), 2_000);
      // PostgreSQL: the big batch's first lookups are claimed, and wait for the stored flights. (SQLite
      // sends the small batch at once: 1,500 stored flights take it well under a second.)
      if (locker) await new Promise((resolve) => setTimeout(resolve, 300));
      const smallId = await submit(t, small.key, rows.slice(BIG), 2_000);

      // While the batch holds what it may of the pool, readiness and the API answer, and at once.
      for (const [path, key] of [
        ['/api/ready', null],
        ['/api/v1/account', small.key],
      ] as const) {
        const began = performance.now();
        const response = await t.get(path, key ? bearer(key) : {});
        expect(response.statusCode, `${path}: ${response.body}`).toBe(200);
        expect(performance.now() - began, path).toBeLessThan(2_000);
      }

      const smallDone = await waitForBatch(t, small.key, smallId, undefined, 60_000);
      expect(smallDone.counts.byState.done).toBe(SMALL);
      const bigThen = json(await t.get(`/api/v1/batches/${bigId}`, bearer(big.key))).data;
      expect(bigThen.state, 'the small batch waited for the big one').toBe('running');
      expect((await t.get('/api/ready')).statusCode).toBe(200);
      await released;

      const bigDone = await waitForBatch(t, big.key, bigId, undefined, 120_000);
      expect(bigDone.counts.byState).toMatchObject({ done: BIG, pending: 0 });
      expect(bigDone.credits).toBe(BIG);

      // Each lookup was claimed once: none was given back as failed and tried again.
      const attempts = await t.app.db.kysely
        .selectFrom('batch_lookups')
        .select(['attempts', (eb) => eb.fn.countAll<number>().as('n')])
        .where('batch_id', 'in', [bigId, smallId])
        .groupBy('attempts')
        .execute();
      expect(attempts.map((a) => ({ attempts: Number(a.attempts), n: Number(a.n) }))).toEqual([
        { attempts: 1, n: BIG + SMALL },
      ]);
      expect(logged).not.toContain('timeout exceeded when trying to connect');
      expect(logged).not.toContain('could not be resolved');
      expect(logged).not.toContain('batch lookups failed');
    } finally {
      await released.catch(() => {});
      await locker?.end().catch(() => {});
      await t.close();
    }
  }, 240_000);

  // Other work of the process may still hold every connection longer than the connect timeout (the
  // API under a burst, in one process): a lookup that then cannot get one in time is given back, and
  // that attempt does not count. Here the test holds the pool's two connections for 7 seconds while
  // 32 lookups of flights not stored wait 1 second each on the provider: their answers cannot be
  // settled (the usage rows' statement finds no connection within 5 seconds), so they are given back
  // and answered on their next try, each with one attempt counted.
  it.runIf(kind === 'postgres')(
    'gives back a lookup that found no connection in time, without counting the attempt',
    async () => {
      let logged = '';
      const sink = new Writable({
        write(chunk, _encoding, done) {
          logged += String(chunk);
          done();
        },
      });
      const t = await startTestApp(kind, {
        database,
        poolSize: 2,
        sim: { latency: { flight: { min: 1_000, max: 1_000 } } },
        batches: { concurrency: 32, perBatch: 32, leaseMs: 60_000 },
        logger: createLogger('warn', sink),
      });
      const held: pg.PoolClient[] = [];
      try {
        const { key } = await t.account({ plan: { included: 1_000, overage: false } });
        const onTime = flightsByStatus(createSimWorld('test'), DATE).get('on_time')!.slice(0, 32);
        const id = await submit(
          t,
          key,
          onTime.map((f) => ({ flightNumber: f.flightNumber, flightDate: DATE })),
        );
        // Every lookup claimed, charged and waiting on the provider (which holds no connection)...
        await waitForBatch(t, key, id, (b) => b.state === 'running', 10_000);
        await new Promise((resolve) => setTimeout(resolve, 400));
        // ...when the pool's connections are all taken, for longer than the connect timeout.
        const pool = t.app.db.kind === 'postgres' ? t.app.db.pool : null;
        for (let i = 0; i < 2; i++) held.push(await pool!.connect());
        // Readiness has a connection of its own.
        expect((await t.get('/api/ready')).statusCode).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 7_000));
        for (const client of held.splice(0)) client.release();

        const done = await waitForBatch(t, key, id, undefined, 60_000);
        expect(done.counts.byState).toMatchObject({ done: 32, pending: 0 });
        expect(done.credits).toBe(32);
        const lookups = await t.app.db.kysely
          .selectFrom('batch_lookups')
          .select(['seq', 'attempts'])
          .where('batch_id', '=', id)
          .execute();
        expect(lookups.map((l) => Number(l.attempts))).toEqual(Array(32).fill(1));
        // One credit per row, each settled as answered: the retried lookups found the charges they took.
        const usage = await t.app.db.kysely
          .selectFrom('usage_log')
          .select(['status'])
          .where('endpoint', '=', 'POST /api/v1/batches')
          .where(
            'account_id',
            '=',
            (
              await t.app.db.kysely
                .selectFrom('batches')
                .select('account_id')
                .where('id', '=', id)
                .executeTakeFirstOrThrow()
            ).account_id,
          )
          .execute();
        expect(usage.map((u) => u.status)).toEqual(Array(32).fill(200));
        expect(logged).toContain('given back, not counted as an attempt');
        expect(logged).not.toContain('batch lookups failed');
      } finally {
        for (const client of held) client.release();
        await t.close();
      }
    },
    120_000,
  );
});

/** Submits a batch through the API; its id. */
async function submit(t: TestApp, key: string, rows: unknown[], withinMs = Infinity): Promise<string> {
  const began = performance.now();
  const response = await t.app.http.inject({
    method: 'POST',
    url: '/api/v1/batches',
    headers: { ...bearer(key), 'content-type': 'application/json' },
    payload: JSON.stringify(rows),
  });
  expect(response.statusCode, response.body).toBe(202);
  expect(performance.now() - began, 'submitting a batch').toBeLessThan(withinMs);
  return json(response).data.id;
}
