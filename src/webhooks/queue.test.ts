// The delivery queue's promises (queue.ts), one suite run against each dialect's statements
// (dialect-sqlite.ts, dialect-postgres.ts): what is claimed, that no delivery is claimed twice, that a
// lease runs out and only its holder settles, and what a settle records.
import { afterAll, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../../test/helpers/databases.js';
import { openDatabase, type Database } from '../db/index.js';
import { createDeliveryQueue } from './dialect.js';
import {
  DISABLE_AFTER_FAILURES,
  ENDPOINT_PAUSE_MS,
  MAX_ATTEMPTS,
  RETRY_DELAYS_MS,
  RETRY_JITTER,
  type ClaimRequest,
  type Claimed,
  type DeliveryQueue,
  type Outcome,
} from './queue.js';

const CYCLE_MS = 120_000;
const LEASE_MS = 300_000;
const T0 = 1_000_000;

describeEachDatabase('the delivery queue', (kind) => {
  let database: TestDatabase;
  let db: Database;
  let queue: DeliveryQueue;
  let seq = 0;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    db = await openDatabase(database.target, { migrate: true });
    queue = createDeliveryQueue(db, { cycleMs: CYCLE_MS });
  });
  afterAll(async () => {
    await db.close();
    await database.drop();
  });
  beforeEach(async () => {
    for (const table of ['delivery_attempts', 'deliveries', 'endpoints', 'accounts'] as const)
      await db.kysely.deleteFrom(table).execute();
  });

  const account = (id: string) =>
    db.kysely
      .insertInto('accounts')
      .values({
        id,
        slug: id,
        name: id,
        unlimited: 0,
        disabled: 0,
        billing_status: 'active',
        plan_included: 100,
        plan_overage: 0,
        window_anchor: 0,
        created_at: 0,
        updated_at: 0,
      } as never)
      .execute();
  const endpoint = (
    id: string,
    accountId: string,
    extra: { enabled?: 0 | 1; consecutive_failures?: number; backoff_until?: number | null } = {},
  ) =>
    db.kysely
      .insertInto('endpoints')
      .values({
        id,
        account_id: accountId,
        name: id,
        url: 'https://example.com/hook',
        airports: '["OTP"]',
        enabled: extra.enabled ?? 1,
        secret: 'sealed',
        consecutive_failures: extra.consecutive_failures ?? 0,
        backoff_until: extra.backoff_until ?? null,
        created_at: 0,
        updated_at: 0,
        disabled_at: null,
        disabled_reason: null,
      })
      .execute();
  /** `n` pending deliveries of the endpoint, due at `due`; their ids. */
  const deliveries = async (
    endpointId: string,
    n: number,
    due = T0,
    state: 'pending' | 'delivered' | 'failed' = 'pending',
  ) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = `dlv_${++seq}`;
      ids.push(id);
      await db.kysely
        .insertInto('deliveries')
        .values({
          id,
          endpoint_id: endpointId,
          event_id: `evt_${seq}`,
          event_type: 'flight.delay_changed',
          state,
          attempts: 0,
          next_attempt_at: due,
          lease_until: null,
          last_attempt_at: null,
          last_status: null,
          last_error: null,
          body: null,
          created_at: due,
          delivered_at: null,
        })
        .execute();
    }
    return ids;
  };
  const claim = (request: Partial<ClaimRequest> = {}, q = queue) =>
    q.claim({
      now: T0,
      leaseUntil: T0 + LEASE_MS,
      limit: 100,
      perEndpoint: 8,
      holdPerEndpoint: 8,
      bound: 100,
      suspectRoom: 100,
      heldByEndpoint: {},
      heldByAccount: {},
      ...request,
    });
  const outcome = (delivery: Claimed, ok: boolean, extra: Partial<Outcome> = {}): Outcome => ({
    delivery,
    ok,
    status: ok ? 200 : 500,
    error: ok ? null : 'HTTP 500',
    at: T0 + 10,
    body: '{"x":1}',
    durationMs: 5,
    retryAfterMs: null,
    seenFailures: 0,
    ...extra,
  });
  const row = (id: string) =>
    db.kysely.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const endpointRow = (id: string) =>
    db.kysely.selectFrom('endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('claims the due pending deliveries in queue order under a lease, and nothing else', async () => {
    await account('acct_a');
    await endpoint('wh_a', 'acct_a');
    await endpoint('wh_off', 'acct_a', { enabled: 0 });
    await endpoint('wh_paused', 'acct_a', { backoff_until: T0 + LEASE_MS });
    const due = await deliveries('wh_a', 3);
    await deliveries('wh_a', 1, T0 + LEASE_MS); // not yet due
    await deliveries('wh_a', 1, T0, 'delivered');
    await deliveries('wh_a', 1, T0, 'failed');
    await deliveries('wh_off', 1);
    await deliveries('wh_paused', 1);

    const claimed = await claim();
    expect(claimed.map((d) => d.id)).toEqual(due);
    expect(
      claimed.every(
        (d) => d.leaseUntil === T0 + LEASE_MS && d.endpointId === 'wh_a' && d.attempts === 0 && d.body === null,
      ),
    ).toBe(true);
    expect((await row(due[0]!)).lease_until).toBe(T0 + LEASE_MS);
    // Leased: a second claim before the lease ends takes nothing.
    expect(await claim({ now: T0 + LEASE_MS - 1, leaseUntil: T0 + 2 * LEASE_MS })).toEqual([]);
  });

  it('holds of an endpoint what a worker may hold of it less what it holds, and one of a failing endpoint', async () => {
    await account('acct_a');
    await endpoint('wh_a', 'acct_a');
    await endpoint('wh_suspect', 'acct_a', { consecutive_failures: 1 });
    await deliveries('wh_a', 10);
    await deliveries('wh_suspect', 5);

    // What a worker may hold (4 here), not what it may have in flight (2), bounds the claim.
    const claimed = await claim({ perEndpoint: 2, holdPerEndpoint: 4, heldByEndpoint: { wh_a: 1 } });
    expect(claimed.filter((d) => d.endpointId === 'wh_a')).toHaveLength(3);
    expect(claimed.filter((d) => d.endpointId === 'wh_suspect')).toHaveLength(1);
    expect(
      await claim({ perEndpoint: 2, holdPerEndpoint: 4, suspectRoom: 0, heldByEndpoint: { wh_a: 3, wh_suspect: 1 } }),
    ).toHaveLength(1);
  });

  it('shares the overall bound between the accounts with work, round-robin', async () => {
    for (const a of ['acct_a', 'acct_b']) {
      await account(a);
      await endpoint(`wh_${a}`, a);
      await deliveries(`wh_${a}`, 8);
    }
    const claimed = await claim({ perEndpoint: 2, bound: 4, limit: 100 });
    // Each account's share is bound / accounts = 2, at least perEndpoint.
    expect(claimed.filter((d) => d.endpointId === 'wh_acct_a')).toHaveLength(2);
    expect(claimed.filter((d) => d.endpointId === 'wh_acct_b')).toHaveLength(2);
    // The limit cuts round-robin: one of each before a second of either.
    const two = await claim({ now: T0, perEndpoint: 8, bound: 100, limit: 2 });
    expect(new Set(two.map((d) => d.endpointId))).toEqual(new Set(['wh_acct_a', 'wh_acct_b']));
  });

  it('never gives one delivery to two claimers at once', async () => {
    for (const a of ['acct_a', 'acct_b']) {
      await account(a);
      for (let e = 0; e < 4; e++) {
        await endpoint(`wh_${a}_${e}`, a);
        await deliveries(`wh_${a}_${e}`, 10);
      }
    }
    const claimers = Array.from({ length: 8 }, () => createDeliveryQueue(db, { cycleMs: CYCLE_MS }));
    const batches = await Promise.all(claimers.map((q) => claim({ limit: 12 }, q)));
    // What the racing claimers left, taken by one more: every delivery is claimed once, none twice.
    const ids = [...batches.flat(), ...(await claim({ perEndpoint: 10 }))].map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(80);
  });

  it('lets a lease run out: another claimer takes the delivery, and only the new holder settles it', async () => {
    await account('acct_a');
    await endpoint('wh_a', 'acct_a');
    await deliveries('wh_a', 1);
    const [first] = await claim();
    const [again] = await claim({ now: T0 + LEASE_MS, leaseUntil: T0 + 2 * LEASE_MS });
    expect(again!.id).toBe(first!.id);

    expect(await queue.settle(outcome(first!, true))).toEqual({
      recorded: false,
      state: 'pending',
      disabledEndpoint: false,
    });
    expect(await queue.settle(outcome(again!, true, { at: T0 + LEASE_MS + 10 }))).toEqual({
      recorded: true,
      state: 'delivered',
      disabledEndpoint: false,
    });
    const settled = await row(first!.id);
    expect([settled.state, settled.attempts, settled.lease_until, settled.body]).toEqual(['delivered', 1, null, null]);
    expect(
      await db.kysely
        .selectFrom('delivery_attempts')
        .select(['attempt', 'status'])
        .where('delivery_id', '=', first!.id)
        .execute(),
    ).toEqual([{ attempt: 1, status: 200 }]);
  });

  it('gives released deliveries back unattempted', async () => {
    await account('acct_a');
    await endpoint('wh_a', 'acct_a');
    await deliveries('wh_a', 2);
    const claimed = await claim();
    await queue.release(claimed);
    expect((await claim()).map((d) => d.id)).toEqual(claimed.map((d) => d.id));
    expect((await row(claimed[0]!.id)).attempts).toBe(0);
  });

  it('schedules a failed attempt by the retry schedule, pauses its endpoint, and fails it for good after the last', async () => {
    await account('acct_a');
    await endpoint('wh_a', 'acct_a');
    const [id] = await deliveries('wh_a', 1);
    const [d] = await claim();
    expect(await queue.settle(outcome(d!, false))).toEqual({
      recorded: true,
      state: 'pending',
      disabledEndpoint: false,
    });
    const retried = await row(id!);
    const step = RETRY_DELAYS_MS[0];
    expect(Number(retried.next_attempt_at)).toBeGreaterThanOrEqual(T0 + 10 + step * (1 - RETRY_JITTER) - 1);
    expect(Number(retried.next_attempt_at)).toBeLessThanOrEqual(T0 + 10 + step * (1 + RETRY_JITTER) + 1);
    expect([retried.attempts, retried.body, retried.last_status]).toEqual([1, '{"x":1}', 500]);
    const paused = await endpointRow('wh_a');
    expect([paused.consecutive_failures, Number(paused.backoff_until)]).toEqual([1, T0 + 10 + ENDPOINT_PAUSE_MS]);
    // A failure of an attempt that started before the first was counted is not counted again.
    await db.kysely
      .updateTable('deliveries')
      .set({ attempts: MAX_ATTEMPTS - 1, next_attempt_at: T0 })
      .where('id', '=', id!)
      .execute();
    await db.kysely.updateTable('endpoints').set({ backoff_until: null }).execute();
    const [last] = await claim();
    expect(await queue.settle(outcome(last!, false, { seenFailures: 0 }))).toEqual({
      recorded: true,
      state: 'failed',
      disabledEndpoint: false,
    });
    expect((await endpointRow('wh_a')).consecutive_failures).toBe(1);
    expect([(await row(id!)).state, (await row(id!)).next_attempt_at]).toEqual(['failed', null]);
  });

  it(`disables the endpoint at ${DISABLE_AFTER_FAILURES} counted failures and stops its queue; a 2xx resets the count`, async () => {
    await account('acct_a');
    await endpoint('wh_a', 'acct_a', { consecutive_failures: DISABLE_AFTER_FAILURES - 1 });
    await endpoint('wh_b', 'acct_a', { consecutive_failures: 3, backoff_until: T0 });
    const [failing, waiting] = await deliveries('wh_a', 2);
    await deliveries('wh_b', 1);
    const claimed = await claim({ suspectRoom: 100 });
    const a = claimed.find((d) => d.id === failing)!;
    expect(await queue.settle(outcome(a, false, { seenFailures: DISABLE_AFTER_FAILURES - 1 }))).toEqual({
      recorded: true,
      state: 'pending',
      disabledEndpoint: true,
    });
    const disabled = await endpointRow('wh_a');
    expect([disabled.enabled, disabled.consecutive_failures]).toEqual([0, DISABLE_AFTER_FAILURES]);
    expect((await row(waiting!)).next_attempt_at).toBeNull();

    const b = claimed.find((d) => d.endpointId === 'wh_b')!;
    expect((await queue.settle(outcome(b, true))).state).toBe('delivered');
    const reset = await endpointRow('wh_b');
    expect([reset.consecutive_failures, reset.backoff_until]).toEqual([0, null]);
  });

  it('records the successes settled together, each only under its own lease, in one statement on PostgreSQL', async () => {
    await account('acct_a');
    await endpoint('wh_a', 'acct_a', { consecutive_failures: 2, backoff_until: T0 });
    await endpoint('wh_b', 'acct_a');
    await deliveries('wh_a', 1);
    await deliveries('wh_b', 4);
    const claimed = await claim({ suspectRoom: 100 });
    expect(claimed).toHaveLength(5);
    // One of them is claimed again once its lease ran out: the first claim's settle no longer counts.
    const stale = claimed[0]!;
    await db.kysely
      .updateTable('deliveries')
      .set({ lease_until: T0 + 1 })
      .where('seq', '=', stale.seq)
      .execute();
    const [fresh] = await claim({ now: T0 + 2, leaseUntil: T0 + 2 + LEASE_MS });
    expect(fresh!.id).toBe(stale.id);
    const statements = db.kind === 'postgres' ? vi.spyOn(db.pool, 'query') : null;
    const settled = await Promise.all([...claimed, fresh!].map((d) => queue.settle(outcome(d, true, { at: T0 + 20 }))));
    if (statements) {
      expect(
        statements.mock.calls.filter(([q]) => (q as { name?: string }).name === 'webhooks_delivered_all'),
      ).toHaveLength(1);
      statements.mockRestore();
    }
    expect(settled.map((s) => s.recorded)).toEqual([false, true, true, true, true, true]);
    for (const d of claimed) {
      const r = await row(d.id);
      expect([r.state, r.attempts, r.delivered_at, r.lease_until]).toEqual(['delivered', 1, T0 + 20, null]);
    }
    const attempts = await db.kysely
      .selectFrom('delivery_attempts')
      .select(['delivery_id', 'attempt', 'duration_ms'])
      .execute();
    expect(attempts).toHaveLength(5);
    expect(attempts.every((a) => a.attempt === 1 && a.duration_ms === 5)).toBe(true);
    const reset = await endpointRow('wh_a');
    expect([reset.consecutive_failures, reset.backoff_until]).toEqual([0, null]);
  });

  it("wakes the worker when a paused endpoint's pause ends with a delivery due by then", async () => {
    await account('acct_a');
    await endpoint('wh_a', 'acct_a', { backoff_until: T0 + 5000 });
    await endpoint('wh_idle', 'acct_a', { backoff_until: T0 + 1000 });
    await deliveries('wh_a', 1);
    expect(await queue.nextWake(T0, T0 + 10_000)).toBe(T0 + 5000);
    expect(await queue.nextWake(T0, T0 + 4000)).toBeNull();
  });

  // SQLite reads the claim's choice on a connection of its own, off the event loop (db/reader.ts), and
  // then takes only what the service's connection still finds claimable, its endpoint still open.
  it.runIf(kind === 'sqlite')(
    'chooses on its own connection and takes only what is still claimable there',
    async () => {
      if (db.kind !== 'sqlite') return;
      await account('acc_a');
      await endpoint('wh_a', 'acc_a');
      await endpoint('wh_b', 'acc_a');
      await deliveries('wh_a', 2);
      const [kept] = await deliveries('wh_b', 1);
      db.sqlite.exec('BEGIN IMMEDIATE');
      try {
        // Not committed: the choice does not see wh_a paused, nor wh_b's new delivery; the take sees both.
        db.sqlite.prepare('UPDATE endpoints SET backoff_until = ? WHERE id = ?').run(T0 + 5000, 'wh_a');
        await deliveries('wh_b', 1);
        expect((await claim()).map((d) => d.id)).toEqual([kept]);
      } finally {
        db.sqlite.exec('ROLLBACK');
      }
    },
  );

  // Two workers on one SQLite file: the second one's chosen rows are all taken by the first between
  // its read and its take. It must then get the next rows, not an empty claim that reads as a drained queue.
  it.runIf(kind === 'sqlite')(
    'gives a claimer beaten to its chosen rows the next ones, not an empty claim',
    async () => {
      await account('acc_a');
      await endpoint('wh_a', 'acc_a');
      await deliveries('wh_a', 16);
      const other = await openDatabase(database.target);
      try {
        if (other.kind !== 'sqlite') return;
        let mine: Claimed[] = [];
        const read = other.reader.read.bind(other.reader);
        other.reader.read = async <Row>(text: string, parameters: readonly unknown[]) => {
          const chosen = await read<Row>(text, parameters);
          if (mine.length === 0) mine = await claim();
          return chosen;
        };
        const theirs = await claim({}, createDeliveryQueue(other, { cycleMs: CYCLE_MS }));
        expect(mine).toHaveLength(8);
        expect(theirs).toHaveLength(8);
        expect(new Set([...mine, ...theirs].map((d) => d.id)).size).toBe(16);
      } finally {
        await other.close();
      }
    },
  );
});
