// Several processes on one PostgreSQL (docs/deploy.md): the two API processes and the worker of
// deploy/compose.yaml, each with that file's environment, started at once on a fresh database, driven through a simulated day on their manual clocks the one documented
// way (the same FLIGHTSTATUS_CLOCK_START everywhere; each step moves every process's clock to the same
// time through the operator API, the API processes first, then the worker, whose advance runs the
// jobs). Checked: exact credits under concurrent requests to both API processes, one board poll per
// interval, no event stored twice, every delivery made once, metrics that agree with what happened,
// a delivery followed through the logs, and a clean SIGTERM of every role.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { openDatabase } from '../src/db/index.js';
import { createSimWorld, groundTruth } from '../src/sim/index.js';
import { createTestDatabase, DATABASE_KINDS, describeEachDatabase, type TestDatabase } from './helpers/databases.js';
import { json, startTestApp } from './helpers/app.js';
import { callService, startService, type ServiceProcess } from './helpers/process.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';

const ADMIN = 'scale-out-admin-token-0123456789';
const START = '2026-03-01T00:00:00Z';
const STEP_MS = 30 * 60_000;
const STEPS = 48; // a day
const INCLUDED = 60;
const LOOKUPS = 96; // two per step: 60 admitted, 36 refused

/** The value of one series in a Prometheus text answer (0 when absent). */
function series(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) total += Number(match[3]);
  }
  return total;
}

describe.runIf(DATABASE_KINDS.includes('postgres'))('two API processes and a worker on one PostgreSQL', () => {
  let database: TestDatabase;
  let receiver: Receiver;
  const services: ServiceProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const s of services) await s.stop('SIGKILL');
    await receiver.close();
    await database.drop();
  });

  it('runs a simulated day with exact credits, one poll per interval, no duplicate event and every delivery once', async () => {
    // Each service's environment from deploy/compose.yaml, with this machine's database and ports.
    const compose = parse(readFileSync(new URL('../deploy/compose.yaml', import.meta.url), 'utf8'), {
      merge: true,
    }) as {
      services: Record<string, { environment?: Record<string, string>; env_file?: string }>;
    };
    const env = (service: string) => ({
      ...compose.services[service]!.environment,
      DATABASE_URL: database.url,
      HOST: '127.0.0.1',
      PORT: '0',
      // What deploy/secrets.env holds there.
      FLIGHTSTATUS_ADMIN_TOKEN: ADMIN,
      FLIGHTSTATUS_CLOCK: 'manual',
      FLIGHTSTATUS_CLOCK_START: START,
      FLIGHTSTATUS_WEBHOOK_ALLOW_HTTP: '1',
      FLIGHTSTATUS_WEBHOOK_ALLOW_PRIVATE: '1',
    });
    // All three at once on an empty database: the migrations run once, whoever gets there first.
    expect(Object.keys(compose.services).sort()).toEqual(['api1', 'api2', 'postgres', 'proxy', 'worker']);
    expect(['api1', 'api2', 'worker'].map((name) => compose.services[name]!.env_file)).toEqual([
      'secrets.env',
      'secrets.env',
      'secrets.env',
    ]);
    const [api1, api2, worker] = await Promise.all(['api1', 'api2', 'worker'].map((name) => startService(env(name))));
    services.push(api1!, api2!, worker!);
    const apis = [api1!, api2!];
    for (const s of services) expect((await callService(s, 'GET', '/api/ready', '')).status).toBe(200);

    // The roles: the worker serves no public API and the API processes run no jobs.
    expect((await callService(worker!, 'GET', '/api/v1/account', 'x')).status).toBe(404);
    expect((await callService(worker!, 'GET', '/api/v1/openapi.json', '')).status).toBe(404);
    expect((await callService(api1!, 'GET', '/api/admin/v1/clock', ADMIN)).body.data.jobs).toEqual([]);
    expect(
      (await callService(worker!, 'GET', '/api/admin/v1/clock', ADMIN)).body.data.jobs
        .map((j: { name: string }) => j.name)
        .sort(),
    ).toEqual(['billing', 'board-poll', 'prune', 'watch-follow', 'watch-settle', 'webhook-deliver']);
    expect((await callService(api2!, 'GET', '/api/admin/v1/service', ADMIN)).body.data.role).toBe('api');

    const account = await callService(api1!, 'POST', '/api/admin/v1/accounts', ADMIN, {
      slug: 'claims',
      plan: { included: INCLUDED, overage: false },
    });
    expect(account.status).toBe(201);
    const key = (
      await callService(api2!, 'POST', `/api/admin/v1/accounts/${account.body.data.id}/keys`, ADMIN, { name: 'k' })
    ).body.data.key as string;
    for (const [i, airports] of [['OTP'], ['OTP', 'CLJ']].entries()) {
      expect(
        (
          await callService(apis[i]!, 'POST', '/api/v1/webhooks', key, {
            name: `h${i}`,
            url: `${receiver.url}/h${i}`,
            airports,
          })
        ).status,
      ).toBe(201);
    }

    // Flights that flew the day before, looked up through both API processes at once.
    const flights = groundTruth(createSimWorld('flightstatus'), '2026-02-28', { airport: 'OTP' });
    const statuses: number[] = [];
    const lookups = [0, 0];
    const start = Date.parse(START);
    for (let step = 1; step <= STEPS; step++) {
      const to = new Date(start + step * STEP_MS).toISOString();
      for (const api of apis)
        expect((await callService(api, 'POST', '/api/admin/v1/clock', ADMIN, { to })).status).toBe(200);
      const moved = await callService(worker!, 'POST', '/api/admin/v1/clock', ADMIN, { to });
      expect(moved.status).toBe(200);
      expect(moved.body.data.runs.every((r: { ok: boolean }) => r.ok)).toBe(true);
      const answers = await Promise.all(
        [0, 1].map((i) => {
          const flight = flights[(step * 2 + i) % flights.length]!;
          lookups[i]!++;
          return callService(
            apis[i]!,
            'GET',
            `/api/v1/flights/status?flightNumber=${flight.flightNumber}&flightDate=2026-02-28`,
            key,
          );
        }),
      );
      statuses.push(...answers.map((a) => a.status));
    }
    expect(statuses).toHaveLength(LOOKUPS);
    expect(statuses.filter((s) => s === 200)).toHaveLength(INCLUDED);
    expect(statuses.filter((s) => s === 429)).toHaveLength(LOOKUPS - INCLUDED);

    const scrape = async (s: ServiceProcess) => {
      const r = await callService(s, 'GET', '/metrics', ADMIN);
      expect(r.status).toBe(200);
      return r.body as string;
    };
    const [m1, m2, mw] = await Promise.all(services.map(scrape));
    const db = await openDatabase(database.target);
    try {
      // Exact credits: one usage row per admitted request, as both processes' metrics count them.
      const usage = await db.kysely.selectFrom('usage_log').select(['status']).execute();
      expect(usage).toHaveLength(INCLUDED);
      expect(
        series(m1!, 'flightstatus_credits_total', { outcome: 'taken' }) +
          series(m2!, 'flightstatus_credits_total', { outcome: 'taken' }),
      ).toBe(INCLUDED);
      expect(
        series(m1!, 'flightstatus_credits_total', { reason: 'credits_exhausted' }) +
          series(m2!, 'flightstatus_credits_total', { reason: 'credits_exhausted' }),
      ).toBe(LOOKUPS - INCLUDED);
      expect((await callService(api2!, 'GET', '/api/v1/account', key)).body.data.credits).toMatchObject({
        used: INCLUDED,
        remaining: 0,
      });
      [m1, m2].forEach((m, i) =>
        expect(series(m!, 'flightstatus_http_requests_total', { route: '/api/v1/flights/status' })).toBe(lookups[i]),
      );

      // One poll per interval, all by the worker.
      const polls = await db.kysely
        .selectFrom('job_runs')
        .selectAll()
        .where('job', '=', 'board-poll')
        .orderBy('slot')
        .execute();
      expect(polls.map((p) => p.slot)).toEqual(Array.from({ length: STEPS }, (_, i) => start + (i + 1) * STEP_MS));
      expect(polls.every((p) => p.ok === 1 && p.holder.endsWith(`:${worker!.child.pid}`))).toBe(true);
      expect(series(mw!, 'flightstatus_job_runs_total', { job: 'board-poll', outcome: 'ok' })).toBe(STEPS);
      expect(series(mw!, 'flightstatus_board_poll_duration_seconds_count')).toBe(STEPS);
      expect(
        series(m1!, 'flightstatus_job_runs_total', { job: 'board-poll' }) +
          series(m2!, 'flightstatus_job_runs_total', { job: 'board-poll' }),
      ).toBe(0);

      // No event twice: every change key once, as many as the worker says it stored.
      const events = await db.kysely
        .selectFrom('board_events')
        .select(['id', 'airport', 'board', 'change_key'])
        .execute();
      expect(events.length).toBeGreaterThan(100);
      expect(new Set(events.map((e) => `${e.airport} ${e.board} ${e.change_key}`)).size).toBe(events.length);
      expect(series(mw!, 'flightstatus_board_events_total')).toBe(events.length);

      // Every delivery made once: one per event and endpoint watching its airport, each received once.
      const deliveries = await db.kysely.selectFrom('deliveries').select(['id', 'state', 'attempts']).execute();
      const otp = events.filter((e) => e.airport === 'OTP').length;
      expect(deliveries).toHaveLength(otp + events.length);
      const due = deliveries.filter((d) => d.state !== 'delivered');
      // The last step's events may still be waiting for the next cycle (they are due, not lost).
      expect(due.length).toBeLessThanOrEqual(series(mw!, 'flightstatus_webhook_deliveries_due'));
      const received = receiver.received.map((r) => r.body.id as string);
      expect(new Set(received).size).toBe(received.length);
      expect(received.sort()).toEqual(
        deliveries
          .filter((d) => d.state === 'delivered')
          .map((d) => d.id)
          .sort(),
      );
      expect(series(mw!, 'flightstatus_webhook_attempts_total', { outcome: 'delivered' })).toBe(received.length);

      // One delivery followed through the worker's log by its id (what the receiver saw as X-Flight-Delivery).
      const followed = receiver.received[0]!;
      expect(followed.headers['x-flight-delivery']).toBe(followed.body.id);
      const lines = worker!
        .output()
        .stdout.split('\n')
        .filter((l) => l.includes(followed.body.id));
      expect(lines.map((l) => JSON.parse(l))).toContainEqual(
        expect.objectContaining({
          msg: 'webhook attempt',
          delivery: followed.body.id,
          state: 'delivered',
          status: 204,
        }),
      );
    } finally {
      await db.close();
    }

    // SIGTERM: every role stops cleanly, within the grace period (past it the process exits with 1,
    // "shutdown took too long"), however busy the machine.
    expect(await Promise.all(services.map((s) => s.stop('SIGTERM')))).toEqual([0, 0, 0]);
    for (const s of services) expect(s.output().stdout).toContain('"msg":"stopped"');
    // Three service processes and 48 steps: about 20 s alone, more beside the rest of the suite.
  }, 120_000);
});

describeEachDatabase('two workers on one database', (kind) => {
  it('run each slot of a once-only job in one of them, and store every change once', async () => {
    const receiver = await startReceiver();
    // Delivery cycles are run by hand below: manual clocks that race ahead independently would see
    // each other's 5-minute delivery claims run out (docs/deploy.md, "The manual clock").
    const options = { webhooks: { intervalMs: 365 * 24 * 3600_000 } };
    const a = await startTestApp(kind, options);
    const b = await startTestApp(kind, { ...options, database: a.database });
    try {
      const { key } = await a.account();
      const made = await a.app.http.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: { authorization: `Bearer ${key}` },
        payload: { name: 'h', url: `${receiver.url}/h`, airports: ['OTP'] },
      });
      expect(made.statusCode).toBe(201);
      // Both move through the same three hours at the same moment, racing for every slot.
      const to = new Date(a.clock.now() + 3 * 3600_000).toISOString();
      const moves = await Promise.all([a, b].map((t) => t.admin('POST', '/api/admin/v1/clock', { to })));
      const runs = moves.flatMap((m) => json(m).data.runs as { job: string; ok: boolean; elsewhere?: boolean }[]);
      expect(runs.every((r) => r.ok)).toBe(true);
      const polls = runs.filter((r) => r.job === 'board-poll');
      expect(polls.filter((r) => !r.elsewhere)).toHaveLength(6);
      expect(polls.filter((r) => r.elsewhere)).toHaveLength(6);

      const db = a.app.db.kysely;
      expect((await db.selectFrom('job_runs').select('slot').where('job', '=', 'board-poll').execute()).length).toBe(6);
      const events = await db
        .selectFrom('board_events')
        .select(['id', 'airport', 'board', 'change_key', 'flight_id'])
        .execute();
      expect(events.length).toBeGreaterThan(50);
      expect(new Set(events.map((e) => `${e.airport} ${e.board} ${e.change_key}`)).size).toBe(events.length);
      const watched = new Set((await db.selectFrom('watches').select('flight_id').execute()).map((w) => w.flight_id));
      expect(events.filter((e) => !watched.has(e.flight_id))).toEqual([]);
      // Both workers take deliveries from the one queue at once; none is sent twice.
      const cycles = await Promise.all([a, b].map((t) => t.app.deliveries.cycle()));
      expect(cycles.every((c) => c.delivered > 0)).toBe(true);
      const received = receiver.received.map((r) => r.body.id as string);
      expect(received).toHaveLength(events.length);
      expect(new Set(received).size).toBe(received.length);
    } finally {
      await b.close();
      await a.close();
      await receiver.close();
    }
  });
});
