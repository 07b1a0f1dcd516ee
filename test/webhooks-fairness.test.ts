// Tenants cannot hurt each other through webhooks: an account whose endpoints never answer does not
// hold the delivery pool against another account, and endpoints that keep failing get a capped part
// of it. Through HTTP, on both databases, on the manual clock, with real local receivers.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newId } from '../src/ids.js';
import { describeEachDatabase } from './helpers/databases.js';
import { bearer, startTestApp, type TestApp } from './helpers/app.js';
import { observe } from './helpers/events.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { apiFor, type Api } from './helpers/webhooks.js';

/** Moves the manual clock; resolves once every job that fell due has run. */
const advance = (t: TestApp, seconds: number) => t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: seconds });

async function endpoints(api: Api, receiver: Receiver, airport: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const created = await api('POST', '/api/v1/webhooks', {
      name: `e${i}`,
      url: `${receiver.url}/e${i}`,
      airports: [airport],
    });
    expect(created.status).toBe(201);
    ids.push(created.body.data.id);
  }
  return ids;
}

const attemptedOf = async (t: TestApp, ids: string[]) =>
  Number(
    (
      await t.app.db.kysely
        .selectFrom('deliveries')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('endpoint_id', 'in', ids)
        .where('attempts', '>', 0)
        .executeTakeFirstOrThrow()
    ).n,
  );

describeEachDatabase('webhook fairness between accounts', (kind) => {
  const receivers: Receiver[] = [];
  let t: TestApp;
  beforeAll(async () => {
    // 8 attempts in flight, 2 per endpoint; an attempt that gets no answer would end after a minute,
    // longer than the test runs on the busiest machine: none ends unless the test closes its receiver.
    t = await startTestApp(kind, {
      pollIntervalMs: 365 * 24 * 3600_000,
      webhooks: { concurrency: 8, perEndpoint: 2, timeoutMs: 60_000 },
    });
  });
  afterAll(async () => {
    await t.close();
    for (const r of receivers) await r.close();
  });

  it("delivers a victim's queue while the first attempts to another account's 100 endpoints, which never answer, still hang", async () => {
    const silent = await startReceiver(() => 'hang');
    const victim = await startReceiver(() => 204);
    receivers.push(silent, victim);
    const attacker = await endpoints(apiFor(t, (await t.account()).key), silent, 'BCN', 100);
    const mine = await endpoints(apiFor(t, (await t.account()).key), victim, 'MAD', 2);
    // The attacker's 200 deliveries are queued first; the victim's 60 after them.
    await observe(t, 'BCN', 2);
    await observe(t, 'MAD', 30);

    const cycle = advance(t, 120);
    await victim.waitFor(60, 20_000);
    // Not one attacker attempt has ended (none can before the test ends them): the victim's whole
    // queue went out while the attacker's first attempts hung, the attacker holding no more than its share.
    expect(await attemptedOf(t, attacker)).toBe(0);
    expect(silent.received.length).toBeLessThanOrEqual(4);
    expect(silent.received.length).toBeGreaterThan(0);
    expect(new Set(victim.received.map((r) => r.body.id)).size).toBe(60);

    // Stop claiming, then end the hanging attempts (the receiver drops them) rather than wait a minute.
    const stopped = t.app.deliveries.stop();
    await silent.close();
    await stopped;
    expect((await cycle).statusCode).toBe(200);
    expect(await attemptedOf(t, mine)).toBe(60);
  });
});

describeEachDatabase('webhook endpoints that keep failing', (kind) => {
  it('get one attempt at a time each, and a quarter of the pool in all', async () => {
    const t = await startTestApp(kind, {
      pollIntervalMs: 365 * 24 * 3600_000,
      webhooks: { concurrency: 8, perEndpoint: 2, timeoutMs: 300 },
    });
    let hang = false;
    const failing = await startReceiver(() => (hang ? 'hang' : 500));
    const healthy = await startReceiver(() => 204);
    try {
      const ids = await endpoints(apiFor(t, (await t.account()).key), failing, 'VLC', 10);
      await endpoints(apiFor(t, (await t.account()).key), healthy, 'VLC', 1);
      // A first cycle: every failing endpoint answers 500 once and so has a failure on record.
      await observe(t, 'VLC', 1);
      expect((await advance(t, 120)).statusCode).toBe(200);
      expect(failing.received).toHaveLength(10);

      // Now they never answer: 20 new deliveries and the 10 retries are due, but each endpoint, paused
      // after its failure, gets one probe per cycle (queue.ts, ENDPOINT_PAUSE_MS): 10 attempts that
      // each hold a slot 0.3 s.
      hang = true;
      failing.mostOpen = 0;
      await observe(t, 'VLC', 2);
      expect((await advance(t, 120)).statusCode).toBe(200);
      expect(failing.received).toHaveLength(20);
      // A quarter of the 8 (cycle-state.ts suspectBound), where 8 would be in flight without the cap.
      expect(failing.mostOpen).toBe(2);
      expect(await attemptedOf(t, ids)).toBe(20); // 10 in each cycle
      expect(healthy.received).toHaveLength(3);
    } finally {
      await t.close();
      await failing.close();
      await healthy.close();
    }
  });
});

/** `n` endpoints on `airports` for `accounts` new accounts, written straight to the table (test setup only). */
async function manyEndpoints(
  t: TestApp,
  accounts: number,
  perAccount: number,
  url: string,
  airports: string[],
): Promise<string> {
  let key = '';
  for (let a = 0; a < accounts; a++) {
    const account = await t.account();
    key ||= account.key;
    const now = t.clock.now();
    await t.app.db.kysely
      .insertInto('endpoints')
      .values(
        Array.from({ length: perAccount }, (_, i) => ({
          id: `wh_fan${String(a).padStart(3, '0')}${String(i).padStart(3, '0')}00000000000`.slice(0, 23),
          account_id: account.accountId,
          name: `fan ${a}-${i}`,
          url: `${url}/f${a}-${i}`,
          airports: JSON.stringify(airports),
          enabled: 1,
          secret: 'whsec_fan',
          consecutive_failures: 0,
          created_at: now,
          updated_at: now,
          disabled_at: null,
          disabled_reason: null,
        })),
      )
      .execute();
  }
  return key;
}

describeEachDatabase('webhook fan-out', (kind) => {
  it('answers the API while a board change fans out to 1,000 endpoints, in chunks that each commit on their own', async () => {
    const t = await startTestApp(kind, { pollIntervalMs: 365 * 24 * 3600_000 });
    try {
      const key = await manyEndpoints(t, 10, 100, 'http://127.0.0.1:9', ['OTP']);
      // 20 changes × 1,000 endpoints: 20,000 deliveries, in many chunks.
      let saved = false;
      const saving = observe(t, 'OTP', 20).then(() => (saved = true));
      const answered = await t.get('/api/v1/account', bearer(key));
      expect(answered.statusCode).toBe(200);
      // The request was answered between two chunks, not after the whole fan-out.
      expect(saved).toBe(false);
      await saving;
      const counted = await t.app.db.kysely
        .selectFrom('deliveries')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(counted.n)).toBe(20_000);
      expect(await t.app.db.kysely.selectFrom('fan_out_queue').select('event_id').execute()).toEqual([]);
      // Written endpoint by endpoint, yet each endpoint's queue (seq) keeps the events' order.
      const events = (
        await t.app.db.kysely.selectFrom('board_events').select('id').orderBy('created_at').orderBy('id').execute()
      ).map((e) => e.id);
      const queued = await t.app.db.kysely
        .selectFrom('deliveries')
        .select(['endpoint_id', 'event_id'])
        .orderBy('endpoint_id')
        .orderBy('seq')
        .execute();
      const byEndpoint = new Map<string, string[]>();
      for (const d of queued) byEndpoint.set(d.endpoint_id, [...(byEndpoint.get(d.endpoint_id) ?? []), d.event_id]);
      expect(byEndpoint.size).toBe(1000);
      for (const order of byEndpoint.values()) expect(order).toEqual(events);
    } finally {
      await t.close();
    }
  });

  it('finishes a fan-out cut short by a crash at the next delivery cycle, without a second delivery of any pair', async () => {
    const t = await startTestApp(kind, { pollIntervalMs: 365 * 24 * 3600_000 });
    const r = await startReceiver(() => 204);
    try {
      await manyEndpoints(t, 3, 10, r.url, ['CPH']);
      // As a crash leaves it: the board's events stored (queued for fan-out), and one chunk's worth of
      // their deliveries written (the first event to the first 12 endpoints), the rest not.
      const at = t.clock.now();
      const events = Array.from({ length: 3 }, (_, i) => ({
        id: newId('evt'),
        type: 'flight.delay_changed',
        airport: 'CPH',
        board: 'departures',
        flight_id: `fl_crash${i}`,
        created_at: at,
        data: JSON.stringify({ flight: { id: `fl_crash${i}` }, previous: {} }),
      }));
      await t.app.db.kysely.insertInto('board_events').values(events).execute();
      await t.app.db.kysely
        .insertInto('fan_out_queue')
        .values(events.map((e) => ({ event_id: e.id, created_at: e.created_at })))
        .execute();
      const endpointIds = (await t.app.db.kysely.selectFrom('endpoints').select('id').orderBy('id').execute()).map(
        (e) => e.id,
      );
      const early = endpointIds.slice(0, 12).map((endpoint) => ({
        id: newId('dlv'),
        endpoint_id: endpoint,
        event_id: events[0]!.id,
        event_type: 'flight.delay_changed',
        state: 'pending' as const,
        attempts: 0,
        next_attempt_at: at,
        created_at: at,
      }));
      await t.app.db.kysely.insertInto('deliveries').values(early).execute();

      expect((await advance(t, 120)).statusCode).toBe(200);
      // 3 events × 30 endpoints, each pair once; the 12 written before the crash kept their ids.
      expect(r.received).toHaveLength(90);
      expect(new Set(r.received.map((x) => `${x.body.event} ${x.body.webhook.id}`)).size).toBe(90);
      const sentIds = new Set(r.received.map((x) => x.body.id));
      for (const d of early) expect(sentIds.has(d.id)).toBe(true);
      expect(await t.app.db.kysely.selectFrom('fan_out_queue').select('event_id').execute()).toEqual([]);
    } finally {
      await t.close();
      await r.close();
    }
  });
});
