// Batches across real service processes (issue 29): a worker killed mid-batch, with a second worker
// on the same PostgreSQL taking over its lookups once their leases run out, or (SQLite, one process)
// the service started again. Either way every row ends with one answer and one credit: none is lost,
// none is charged twice.
import { expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/index.js';
import { createSimWorld, groundTruth } from '../src/sim/index.js';
import { BATCH_ENDPOINT } from '../src/batches/index.js';
import { createTestDatabase, describeEachDatabase } from './helpers/databases.js';
import { runCli, callService, startService, type ServiceProcess } from './helpers/process.js';

const ADMIN = 'process-test-admin-token-0123456789';
const DATE = '2026-02-20';

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${JSON.stringify(value).slice(0, 300)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describeEachDatabase('batches across processes', (kind) => {
  it(`finishes a batch whose worker was killed, ${kind === 'postgres' ? 'on the second worker' : 'after a restart'}, each row answered and charged once`, async () => {
    const database = await createTestDatabase(kind, { migrated: true });
    const services: ServiceProcess[] = [];
    try {
      const env = {
        DATABASE_URL: database.url,
        FLIGHTSTATUS_CLOCK: 'manual',
        FLIGHTSTATUS_CLOCK_START: '2026-03-01T12:00:00Z',
        FLIGHTSTATUS_ADMIN_TOKEN: ADMIN,
        FLIGHTSTATUS_SIM_LATENCY: 'flight=40-80',
        // Leases short enough that the test does not wait long for the killed worker's to run out.
        FLIGHTSTATUS_BATCH_LEASE_SECONDS: '2',
        FLIGHTSTATUS_BATCH_PER_BATCH: '6',
        LOG_LEVEL: 'warn',
      };
      await runCli(['accounts', 'create', '--slug', 'claims', '--included', '100000'], env);
      const key = JSON.parse((await runCli(['keys', 'create', '--account', 'claims', '--name', 'k'], env)).stdout).data
        .key as string;

      // PostgreSQL: an API process and a worker; SQLite: one service doing both. The first worker's
      // provider answers slowly, so that it holds lookups nearly all the time and the kill lands on some.
      const two = kind === 'postgres';
      const slow = { ...env, FLIGHTSTATUS_SIM_LATENCY: 'flight=500-700' };
      const api = await startService(two ? { ...env, FLIGHTSTATUS_ROLE: 'api' } : slow);
      services.push(api);
      const first = two ? await startService({ ...slow, FLIGHTSTATUS_ROLE: 'worker' }) : api;
      if (two) services.push(first);

      // 360 flights of the day and 40 of them again.
      const day = groundTruth(createSimWorld('flightstatus'), DATE).filter((f) => f.operation === 'passenger');
      const flights = day
        .slice(0, 360)
        .map((f) => ({ flightNumber: f.flightNumber, flightDate: DATE, origin: f.origin }));
      const rows = [...flights, ...flights.slice(0, 40)].map((r, i) => ({ ...r, reference: `r${i + 1}` }));
      const submitted = await callService(api, 'POST', '/api/v1/batches', key, rows);
      expect(submitted.status).toBe(202);
      const id = submitted.body.data.id as string;
      expect(submitted.body.data.lookups).toBe(360);

      const db = await openDatabase(database.target);
      try {
        await until(
          () => callService(api, 'GET', `/api/v1/batches/${id}`, key),
          (r) => r.body.data.progress.finished >= 12,
        );
        // Killed at a moment it holds lookups: the test holds those rows (and on SQLite the write lock)
        // so the worker cannot finish them between being seen and being killed.
        const held = await until(
          () =>
            db.kysely.transaction().execute(async (trx) => {
              const rows = await sql<{
                seq: number;
              }>`UPDATE batch_lookups SET attempts = attempts WHERE batch_id = ${id} AND state = 'running' RETURNING seq`.execute(
                trx,
              );
              if (rows.rows.length > 0) expect(await first.stop('SIGKILL')).toBeNull();
              return rows.rows.map((r) => Number(r.seq));
            }),
          (seqs) => seqs.length > 0,
        );

        // A second worker (SQLite: the service started again) takes over once the leases run out.
        const second = await startService(two ? { ...env, FLIGHTSTATUS_ROLE: 'worker' } : env);
        services.push(second);
        const reader = two ? api : second;
        const done = await until(
          () => callService(reader, 'GET', `/api/v1/batches/${id}`, key),
          (r) => r.body.data.state === 'done',
          90_000,
        );
        expect(done.body.data.counts.byState).toMatchObject({ done: 400, pending: 0, refused: 0 });
        expect(done.body.data.credits).toBe(400);

        const batchRows = await db.kysely
          .selectFrom('batch_rows')
          .select(['position', 'usage_id', 'state'])
          .where('batch_id', '=', id)
          .execute();
        expect(new Set(batchRows.map((r) => r.usage_id)).size).toBe(400);
        const usage = await db.kysely
          .selectFrom('usage_log')
          .select(['id', 'query', 'status'])
          .where('endpoint', '=', BATCH_ENDPOINT)
          .execute();
        // One usage row per row, each settled as answered: a row resumed after the kill found the credit it had taken.
        expect(usage).toHaveLength(400);
        expect(usage.every((u) => u.status === 200)).toBe(true);
        expect(new Set(usage.map((u) => Number(u.id)))).toEqual(new Set(batchRows.map((r) => Number(r.usage_id))));
        const window = await db.kysely.selectFrom('credit_windows').select(['used']).execute();
        expect(window.reduce((sum, w) => sum + Number(w.used), 0)).toBe(400);
        // The lookups the killed worker held were taken again, and answered.
        const retaken = await db.kysely
          .selectFrom('batch_lookups')
          .select(['seq', 'state'])
          .where('batch_id', '=', id)
          .where('attempts', '>', 1)
          .execute();
        expect(retaken.map((r) => r.seq)).toEqual(expect.arrayContaining(held));
        expect(retaken.every((r) => r.state === 'done')).toBe(true);
      } finally {
        await db.close();
      }
    } finally {
      for (const s of services) await s.stop('SIGKILL');
      await database.drop();
    }
  }, 150_000);
});
