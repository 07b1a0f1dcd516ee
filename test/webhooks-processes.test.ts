// Delivery across real service processes: a worker killed in the middle of sending loses nothing,
// and two workers on one database share the queue without sending any delivery twice (on
// PostgreSQL through FOR UPDATE SKIP LOCKED, on SQLite through its single writer).
import { expect, it, vi } from 'vitest';
import { createBoardStore } from '../src/boards/index.js';
import { FanOut } from '../src/webhooks/index.js';
import { openDatabase, type BoardEventsTable } from '../src/db/index.js';
import { newId } from '../src/ids.js';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from './helpers/databases.js';
import { runCli, callService, startService, type ServiceProcess } from './helpers/process.js';
import { startReceiver } from './helpers/receiver.js';

const ADMIN = 'process-test-admin-token-0123456789';

async function accountKey(env: Record<string, string>): Promise<string> {
  await runCli(['accounts', 'create', '--slug', 'hooks', '--included', '1000'], env);
  return JSON.parse((await runCli(['keys', 'create', '--account', 'hooks', '--name', 'k'], env)).stdout).data.key;
}

/** The deliveries stored so far (read beside the running service). */
async function countDeliveries(database: TestDatabase): Promise<number> {
  const db = await openDatabase(database.target);
  try {
    return (await db.kysely.selectFrom('deliveries').select('id').execute()).length;
  } finally {
    await db.close();
  }
}

describeEachDatabase('webhook delivery across processes', (kind) => {
  it('loses nothing when the worker is killed in the middle of sending', async () => {
    const database = await createTestDatabase(kind, { migrated: true });
    let answer: 'hang' | 204 = 'hang';
    const receiver = await startReceiver(() => answer);
    const services: ServiceProcess[] = [];
    try {
      const env = {
        DATABASE_URL: database.url,
        FLIGHTSTATUS_CLOCK: 'manual',
        FLIGHTSTATUS_CLOCK_START: '2026-03-01T00:10:00Z',
        FLIGHTSTATUS_ADMIN_TOKEN: ADMIN,
        FLIGHTSTATUS_WEBHOOK_ALLOW_HTTP: '1',
        FLIGHTSTATUS_WEBHOOK_ALLOW_PRIVATE: '1',
        LOG_LEVEL: 'debug', // everything the service says, to check no secret is among it
      };
      const key = await accountKey(env);
      const first = await startService(env);
      services.push(first);
      const created = await callService(first, 'POST', '/api/v1/webhooks', key, {
        name: 'crash',
        url: `${receiver.url}/hook`,
        airports: ['RMO'],
      });
      expect(created.status).toBe(201);

      // 00:30: the poll observes RMO, the delivery cycle of the same minute starts sending and hangs.
      void callService(first, 'POST', '/api/admin/v1/clock', ADMIN, { to: '2026-03-01T00:30:00Z' }).catch(() => {});
      // Killed once every delivery it may send at once (8 to the one endpoint) is in flight.
      // (Waits bounded by the test's own timeout alone: a busy machine only makes them longer.)
      await receiver.waitFor(1, 60_000);
      await receiver.waitFor(Math.min(8, await countDeliveries(database)), 60_000);
      expect(await first.stop('SIGKILL')).toBeNull();
      const beforeCrash = new Set(receiver.received.map((r) => r.body.id));
      expect(beforeCrash.size).toBeGreaterThan(0);

      answer = 204;
      const second = await startService(env);
      services.push(second);
      // The claims of the killed process run out 5 minutes after 00:30; the 00:36 cycle takes them again.
      const moved = await callService(second, 'POST', '/api/admin/v1/clock', ADMIN, { to: '2026-03-01T00:40:00Z' });
      expect(moved.status).toBe(200);
      await second.stop();
      for (const service of [first, second]) {
        const { stdout, stderr } = service.output();
        expect(stdout).toContain('webhook');
        expect(stdout + stderr).not.toContain(created.body.data.secret);
      }

      const db = await openDatabase(database.target);
      try {
        const rows = await db.kysely.selectFrom('deliveries').selectAll().execute();
        expect(rows.length).toBeGreaterThan(5);
        expect(rows.every((r) => r.state === 'delivered' && r.attempts === 1)).toBe(true);
        const answered = receiver.received.slice(receiver.received.length - rows.length);
        // Each delivery answered 2xx exactly once, after the restart; every one sent before the crash was sent again.
        expect(new Set(answered.map((r) => r.body.id))).toEqual(new Set(rows.map((r) => r.id)));
        for (const id of beforeCrash) expect(answered.some((r) => r.body.id === id)).toBe(true);
        expect(receiver.received.every((r) => r.headers['x-flight-attempt'] === '1')).toBe(true);
      } finally {
        await db.close();
      }
    } finally {
      for (const s of services) await s.stop('SIGKILL');
      await receiver.close();
      await database.drop();
    }
    // Two CLI commands and two service processes one after the other: past 30 s beside the whole suite.
  }, 90_000);

  it('shares the queue between two processes without sending a delivery twice', async () => {
    const database = await createTestDatabase(kind, { migrated: true });
    const receiver = await startReceiver(() => ({ status: 204, delayMs: 20 }));
    const services: ServiceProcess[] = [];
    try {
      const env = {
        DATABASE_URL: database.url,
        FLIGHTSTATUS_ADMIN_TOKEN: ADMIN,
        FLIGHTSTATUS_DELIVERY_INTERVAL_SECONDS: '1',
        FLIGHTSTATUS_POLL_INTERVAL_MINUTES: '1440',
        FLIGHTSTATUS_WEBHOOK_CONCURRENCY: '16',
        FLIGHTSTATUS_WEBHOOK_ALLOW_HTTP: '1',
        FLIGHTSTATUS_WEBHOOK_ALLOW_PRIVATE: '1',
        LOG_LEVEL: 'info',
      };
      const key = await accountKey(env);
      services.push(await startService(env), await startService(env));
      for (let i = 0; i < 20; i++) {
        expect(
          (
            await callService(services[0]!, 'POST', '/api/v1/webhooks', key, {
              name: `h${i}`,
              url: `${receiver.url}/h${i}`,
              airports: ['OTP'],
            })
          ).status,
        ).toBe(201);
      }
      // 30 changes at OTP, stored the way the board pass stores them: 600 deliveries due now.
      const db = await openDatabase(database.target);
      try {
        const at = Date.now();
        const events: BoardEventsTable[] = Array.from({ length: 30 }, (_, i) => ({
          id: newId('evt'),
          type: 'flight.status_changed',
          airport: 'OTP',
          board: 'departures',
          flight_id: `fl_p${i}`,
          created_at: at,
          data: JSON.stringify({ flight: { id: `fl_p${i}`, lastSeenAt: new Date(at).toISOString() }, previous: {} }),
        }));
        const store = createBoardStore(db, new FanOut(db));
        await store.save('OTP', 'departures', [], events);
        await store.fannedOut();
      } finally {
        await db.close();
      }
      await receiver.waitFor(600, 60_000);
      // Time for any double send to show: each process has run a whole delivery cycle that began
      // after the 600th request arrived (its sends in flight then are over, and what it could still
      // claim it has sent).
      const after = Date.now();
      await vi.waitFor(
        async () => {
          for (const s of services) {
            const job = (await callService(s, 'GET', '/api/admin/v1/clock', ADMIN)).body.data.jobs.find(
              (j: { name: string }) => j.name === 'webhook-deliver',
            );
            expect(Date.parse(job.lastRunAt) > after && !job.running).toBe(true);
          }
        },
        { timeout: 20_000, interval: 20 },
      );
      for (const s of services) await s.stop();

      const ids = receiver.received.map((r) => r.body.id);
      expect(ids).toHaveLength(600);
      expect(new Set(ids).size).toBe(600);
      const attemptedBy = services.map((s) =>
        s
          .output()
          .stdout.split('\n')
          .filter((line) => line.includes('webhook delivery cycle'))
          .reduce((sum, line) => sum + (JSON.parse(line) as { attempted: number }).attempted, 0),
      );
      expect(attemptedBy[0]! + attemptedBy[1]!).toBe(600);
      expect(attemptedBy[0]).toBeGreaterThan(0);
      expect(attemptedBy[1]).toBeGreaterThan(0);
    } finally {
      for (const s of services) await s.stop('SIGKILL');
      await receiver.close();
      await database.drop();
    }
    // Two service processes, then up to 30 s of waiting for the receiver: about 11 s alone, and it
    // went past the default 30 s once beside the whole suite on a slow CI run.
  }, 90_000);
});
