// Retention on both databases: the hourly prune job removes board events older than
// FLIGHTSTATUS_RETENTION_DAYS with their settled deliveries and attempts, in batches, keeps an event
// whose delivery is still pending (a retry to come) and everything newer, never touches usage rows,
// and reports what it removed in /metrics.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createBoardStore } from '../src/boards/index.js';
import { FanOut } from '../src/webhooks/index.js';
import type { BoardEventsTable } from '../src/db/index.js';
import { newId } from '../src/ids.js';
import { HOUR } from '../src/clock.js';
import { Retention } from '../src/webhooks/index.js';
import { describeEachDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, ADMIN_TOKEN, type TestApp } from './helpers/app.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

/** `n` changes at OTP stored now through the board store, fanned out to every endpoint watching OTP. */
async function observe(t: TestApp, n: number): Promise<string[]> {
  const at = t.clock.now();
  const events: BoardEventsTable[] = Array.from({ length: n }, (_, i) => ({
    id: newId('evt'),
    type: 'flight.delay_changed',
    airport: 'OTP',
    board: 'departures',
    flight_id: `fl_keep${i}`,
    created_at: at,
    data: JSON.stringify({
      flight: { id: `fl_keep${i}`, flightNumber: `W6${1000 + i}`, lastSeenAt: new Date(at).toISOString() },
      previous: { status: null, estimatedAt: null, delayMinutes: null, disruption: null },
    }),
  }));
  const store = createBoardStore(t.app.db, new FanOut(t.app.db));
  await store.save('OTP', 'departures', [], events);
  await store.fannedOut();
  return events.map((e) => e.id);
}

const count = async (t: TestApp, table: 'board_events' | 'deliveries' | 'delivery_attempts' | 'usage_log') =>
  Number(
    (
      await t.app.db.kysely
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describeEachDatabase('retention', (kind) => {
  it('prunes settled deliveries and their events after the retention, keeping pending ones and newer ones', async () => {
    // Polls out of the way (this test stores its own events); deliveries every 2 minutes.
    const t = await startTestApp(kind, { retentionDays: 1, pollIntervalMs: 365 * 24 * HOUR });
    try {
      const { key } = await t.account();
      for (const name of ['one', 'two']) {
        const made = await t.app.http.inject({
          method: 'POST',
          url: '/api/v1/webhooks',
          headers: bearer(key),
          payload: { name, url: `${receiver.url}/${name}`, airports: ['OTP'] },
        });
        expect(made.statusCode).toBe(201);
      }
      const looked = await t.app.http.inject({
        url: '/api/v1/flights/status?flightNumber=W6999&date=2026-02-20',
        headers: bearer(key),
      });
      expect(looked.statusCode).toBeLessThan(500);
      await t.app.metering.drain();
      const usage = await count(t, 'usage_log');
      expect(usage).toBe(1);

      // Day 1: 450 changes (three batches of the prune), delivered to both endpoints.
      const old = await observe(t, 450);
      await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 600 });
      expect(await count(t, 'deliveries')).toBe(900);
      expect(await count(t, 'delivery_attempts')).toBe(900);
      // One old delivery is still pending (a retry due later): its event must stay.
      const stuck = old[7]!;
      await t.app.db.kysely
        .updateTable('deliveries')
        .set({ state: 'pending', next_attempt_at: t.clock.now() + 400 * 24 * HOUR })
        .where('event_id', '=', stuck)
        .where('endpoint_id', 'in', (eb) => eb.selectFrom('endpoints').select('id').where('name', '=', 'one'))
        .execute();

      // A day later: 5 newer changes, delivered; then past the old ones' retention.
      await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 23 * 3600 });
      const recent = await observe(t, 5);
      await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 2 * 3600 });

      const events = (await t.app.db.kysely.selectFrom('board_events').select('id').execute()).map((e) => e.id).sort();
      expect(events).toEqual([stuck, ...recent].sort());
      expect(await count(t, 'deliveries')).toBe(2 + 10);
      // The stuck event's delivered sibling keeps its attempt, as the delivery log shows it.
      expect(await count(t, 'delivery_attempts')).toBe(2 + 10);
      expect(await count(t, 'usage_log')).toBe(usage);

      const metrics = await t.app.http.inject({ url: '/metrics', headers: bearer(ADMIN_TOKEN) });
      expect(metrics.statusCode).toBe(200);
      const pruned = (table: string) =>
        Number(
          new RegExp(`^flightstatus_pruned_rows_total\\{table="${table}"[^}]*\\} (\\d+)$`, 'm').exec(metrics.body)?.[1],
        );
      expect(pruned('board_events')).toBe(449);
      expect(pruned('deliveries')).toBe(898);
      expect(pruned('delivery_attempts')).toBe(898);
      expect(
        json(await t.admin('GET', '/api/admin/v1/clock')).data.jobs.map((j: { name: string }) => j.name),
      ).toContain('prune');
    } finally {
      await t.close();
    }
  });

  it('keeps an old event whose deliveries are still to be written (in the fan-out queue)', async () => {
    const t = await startTestApp(kind, { pollIntervalMs: 365 * 24 * HOUR, webhooks: { intervalMs: 365 * 24 * HOUR } });
    try {
      const at = t.clock.now();
      const event = {
        id: newId('evt'),
        type: 'flight.delay_changed',
        airport: 'OTP',
        board: 'departures',
        flight_id: 'fl_queued',
        created_at: at,
        data: '{}',
      };
      await t.app.db.kysely.insertInto('board_events').values(event).execute();
      await t.app.db.kysely.insertInto('fan_out_queue').values({ created_at: at, event_id: event.id }).execute();
      expect(await new Retention(t.app.db).prune(at + 1)).toEqual({ events: 0, deliveries: 0, attempts: 0 });
      await t.app.db.kysely.deleteFrom('fan_out_queue').execute();
      expect(await new Retention(t.app.db).prune(at + 1)).toEqual({ events: 1, deliveries: 0, attempts: 0 });
    } finally {
      await t.close();
    }
  });

  it('stops between batches when the process is shutting down', async () => {
    const t = await startTestApp(kind, { pollIntervalMs: 365 * 24 * HOUR });
    try {
      await observe(t, 30);
      const stopping = new AbortController();
      stopping.abort();
      expect(await new Retention(t.app.db, 10).prune(t.clock.now() + 1, stopping.signal)).toEqual({
        events: 0,
        deliveries: 0,
        attempts: 0,
      });
      expect(await new Retention(t.app.db, 10).prune(t.clock.now() + 1)).toEqual({
        events: 30,
        deliveries: 0,
        attempts: 0,
      });
    } finally {
      await t.close();
    }
  });
});
