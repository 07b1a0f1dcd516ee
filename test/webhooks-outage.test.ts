// A receiver's bad second must not cost it its events (docs/webhooks.md, "When a receiver fails"):
// the endpoint is paused after a failure, not burnt through; a Retry-After is honoured within bounds;
// the retry schedule is jittered; what is observed while an endpoint is disabled is kept and can be
// resent. Through HTTP, on both databases, with real local receivers.
import { expect, it } from 'vitest';
import { systemClock } from '../src/clock.js';
import { createBoardStore } from '../src/boards/index.js';
import { FanOut } from '../src/webhooks/index.js';
import { MAX_RETRY_AFTER_MS } from '../src/webhooks/queue.js';
import { describeEachDatabase } from './helpers/databases.js';
import { observe } from './helpers/events.js';
import { deliveryHarness } from './helpers/webhooks.js';

describeEachDatabase('a receiver down for a second and a half, on the system clock', (kind) => {
  const h = deliveryHarness(kind, { clock: systemClock, pollIntervalMs: 365 * 24 * 3600_000 });

  it('keeps its endpoint, gets a handful of requests while down, and the rest of its queue in the same cycle', async () => {
    let downUntil = Infinity;
    const r = await h.receiver(() => (Date.now() < downUntil ? 503 : 204));
    const hook = await h.endpoint(r, ['BUD']);
    const events = await observe(h.t, 'BUD', 25);
    downUntil = Date.now() + 1500;
    const report = await h.t.app.deliveries.cycle();

    const failed = r.received.filter((x) => x.at < downUntil);
    // The first claim's attempts (at most the per-endpoint bound of 8, sent together), then one probe
    // per pause (1 s, 2 s): not the whole queue of 25.
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.length).toBeLessThanOrEqual(10);
    expect(report.disabledEndpoints).toBe(0);
    expect(await h.view(hook.id)).toMatchObject({ enabled: true, consecutiveFailures: 0, pausedUntil: null });
    // The cycle waited for the pause to end: every delivery not yet tried went out in it, and those
    // that failed wait for their retry a minute (±10 %) later, as spec 6.5 schedules.
    const listed = await h.deliveries(hook.id, '?limit=200');
    for (const d of listed) {
      if (d.state === 'delivered') continue;
      expect(d).toMatchObject({ state: 'retrying', attempts: 1 });
      const wait = Date.parse(d.nextAttemptAt!) - Date.parse(d.lastAttemptAt!);
      expect(wait).toBeGreaterThanOrEqual(54_000);
      expect(wait).toBeLessThanOrEqual(66_000);
    }
    expect(listed.filter((d) => d.state === 'delivered').length).toBeGreaterThanOrEqual(25 - failed.length);
    expect(new Set(r.received.map((x) => x.body.event))).toEqual(new Set(events.map((e) => e.id)));
  });
});

describeEachDatabase('a receiver down for one cycle, on the manual clock', (kind) => {
  const h = deliveryHarness(kind, { pollIntervalMs: 365 * 24 * 3600_000 });

  it('loses nothing: the endpoint stays enabled and every delivery arrives on the next cycles', async () => {
    let status = 503;
    const r = await h.receiver(() => status);
    const hook = await h.endpoint(r, ['BUD']);
    const events = await observe(h.t, 'BUD', 25);
    await h.advance(120);
    const down = r.received.length;
    expect(down).toBeLessThanOrEqual(8);
    status = 204;
    await h.advance(2 * 120);
    expect(await h.view(hook.id)).toMatchObject({ enabled: true, consecutiveFailures: 0 });
    expect((await h.deliveries(hook.id, '?limit=200')).every((d) => d.state === 'delivered')).toBe(true);
    expect(new Set(r.received.slice(down).map((x) => x.body.event))).toEqual(new Set(events.map((e) => e.id)));
  });
});

describeEachDatabase('when a receiver fails', (kind) => {
  const h = deliveryHarness(kind, { webhooks: { timeoutMs: 300 }, pollIntervalMs: 365 * 24 * 3600_000 });

  it('pauses the endpoint after a failure: the rest of its queue waits, one probe at a time', async () => {
    let status = 500;
    const r = await h.receiver(() => status);
    const hook = await h.endpoint(r, ['WRO']);
    await observe(h.t, 'WRO', 30);
    await h.advance(120);
    const first = r.received.length;
    expect(first).toBeLessThanOrEqual(8); // the first claim, sent together before any answer
    const view = await h.view(hook.id);
    expect(view.consecutiveFailures).toBe(1);
    expect(Date.parse(view.pausedUntil)).toBe(h.t.clock.now() + 1000);
    expect((await h.deliveries(hook.id, '?state=queued&limit=200')).length).toBe(30 - first);
    // The next cycle sends one probe; it fails, and the pause doubles.
    await h.advance(120);
    expect(r.received.length).toBe(first + 1);
    expect(Date.parse((await h.view(hook.id)).pausedUntil)).toBe(h.t.clock.now() + 2000);
    // Back: the probe succeeds, the pause is lifted, and everything due goes out in the same cycle.
    status = 204;
    await h.advance(120);
    expect(await h.view(hook.id)).toMatchObject({ consecutiveFailures: 0, pausedUntil: null, enabled: true });
    expect((await h.deliveries(hook.id, '?state=queued&limit=200')).length).toBe(0);
  });

  it('caps the pause at one delivery cycle', async () => {
    const r = await h.receiver(() => 500);
    const hook = await h.endpoint(r, ['POZ']);
    await observe(h.t, 'POZ', 12);
    for (let i = 0; i < 10; i++) await h.advance(120);
    const view = await h.view(hook.id);
    expect(view.consecutiveFailures).toBe(10);
    expect(Date.parse(view.pausedUntil) - h.t.clock.now()).toBe(120_000); // 2^9 s would be 512 s
  });

  it('honours Retry-After on 429 and 503 between the scheduled delay and an hour, on the delivery and its endpoint', async () => {
    // The delivery's next attempt and the endpoint's pause, each as [at least, at most] after the attempt.
    const cases: { header: string; status: number; wait: [number, number]; pause: [number, number] }[] = [
      { header: '600', status: 429, wait: [600_000, 600_000], pause: [600_000, 600_000] },
      {
        header: '999999',
        status: 429,
        wait: [MAX_RETRY_AFTER_MS, MAX_RETRY_AFTER_MS],
        pause: [MAX_RETRY_AFTER_MS, MAX_RETRY_AFTER_MS],
      },
      // Less than the schedule: the schedule (one minute ±10 %) wins for the delivery; the endpoint waits what was asked.
      { header: '5', status: 503, wait: [54_000, 66_000], pause: [5000, 5000] },
      {
        header: new Date(Date.now() + 300_000).toUTCString(),
        status: 503,
        wait: [290_000, 300_000],
        pause: [290_000, 300_000],
      },
      // Not a 429 or 503: ignored.
      { header: '600', status: 500, wait: [54_000, 66_000], pause: [1000, 1000] },
    ];
    for (const c of cases) {
      const r = await h.receiver(() => ({ status: c.status, headers: { 'retry-after': c.header } }));
      const hook = await h.endpoint(r, ['PSA']);
      await observe(h.t, 'PSA', 1);
      await h.advance(120);
      await h.api('PATCH', `/api/v1/webhooks/${hook.id}`, { airports: ['LBA'] }); // out of the next case's way
      const [d] = await h.deliveries(hook.id);
      const wait = Date.parse(d!.nextAttemptAt!) - Date.parse(d!.lastAttemptAt!);
      expect(wait, `${c.status} Retry-After: ${c.header}`).toBeGreaterThanOrEqual(c.wait[0]);
      expect(wait, `${c.status} Retry-After: ${c.header}`).toBeLessThanOrEqual(c.wait[1]);
      const paused = Date.parse((await h.view(hook.id)).pausedUntil) - Date.parse(d!.lastAttemptAt!);
      expect(paused, `pause, ${c.status} Retry-After: ${c.header}`).toBeGreaterThanOrEqual(c.pause[0]);
      expect(paused, `pause, ${c.status} Retry-After: ${c.header}`).toBeLessThanOrEqual(c.pause[1]);
    }
  });

  it('spreads retries of endpoints that failed together over ±10 % of the step', async () => {
    const r = await h.receiver(() => 500);
    const hooks = [];
    for (let i = 0; i < 20; i++) hooks.push(await h.endpoint(r, ['BRI']));
    await observe(h.t, 'BRI', 1);
    await h.advance(120);
    const waits = [];
    for (const hook of hooks) {
      const [d] = await h.deliveries(hook.id);
      waits.push(Date.parse(d!.nextAttemptAt!) - Date.parse(d!.lastAttemptAt!));
    }
    for (const w of waits) {
      expect(w).toBeGreaterThanOrEqual(54_000);
      expect(w).toBeLessThanOrEqual(66_000);
    }
    expect(new Set(waits).size).toBeGreaterThan(10);
    for (const hook of hooks) await h.api('PATCH', `/api/v1/webhooks/${hook.id}`, { airports: ['LBA'] });
  });
});

describeEachDatabase('events observed while an endpoint is disabled', (kind) => {
  const h = deliveryHarness(kind, { pollIntervalMs: 365 * 24 * 3600_000, retentionDays: 1 });

  it('are kept as skipped deliveries, listed, and resent in bulk from a time on', async () => {
    const r = await h.receiver();
    const hook = await h.endpoint(r, ['SKP']);
    await observe(h.t, 'SKP', 2);
    await h.advance(120);
    expect(r.received).toHaveLength(2);
    expect((await h.api('POST', `/api/v1/webhooks/${hook.id}/disable`)).status).toBe(200);
    await h.advance(600);
    const early = await observe(h.t, 'SKP', 3);
    await h.advance(3600);
    const since = new Date(h.t.clock.now()).toISOString();
    const late = await observe(h.t, 'SKP', 4);
    await h.advance(120);
    expect(r.received).toHaveLength(2); // nothing is sent while disabled
    const skipped = await h.deliveries(hook.id, '?state=skipped&limit=200');
    expect(skipped).toHaveLength(7);
    expect(skipped.every((d) => d.attempts === 0 && d.nextAttemptAt === null)).toBe(true);

    // Refused while disabled, and with a bad or future `since`.
    expect((await h.api('POST', `/api/v1/webhooks/${hook.id}/deliveries/resend`, { since })).status).toBe(400);
    expect((await h.api('POST', `/api/v1/webhooks/${hook.id}/enable`)).body.data.resumedDeliveries).toBe(0);
    const bad = await h.api('POST', `/api/v1/webhooks/${hook.id}/deliveries/resend`, { since: '2026-13-01' });
    expect(bad).toMatchObject({ status: 400, body: { success: false, code: 'invalid_request' } });
    expect(bad.body.message).toMatch(/since/);
    expect(
      (await h.api('POST', `/api/v1/webhooks/${hook.id}/deliveries/resend`, { since: '2999-01-01T00:00:00Z' })).body
        .message,
    ).toMatch(/future/);
    expect(
      (await h.api('POST', `/api/v1/webhooks/${hook.id}/deliveries/resend`, { since, states: ['queued'] })).status,
    ).toBe(400);
    expect((await h.api('POST', `/api/v1/webhooks/${hook.id}/deliveries/resend`, { since, extra: 1 })).status).toBe(
      400,
    );
    expect((await h.api('POST', `/api/v1/webhooks/wh_nope/deliveries/resend`, { since })).status).toBe(404);

    // Everything since `since`: the four later events, not the three before.
    const resent = await h.api('POST', `/api/v1/webhooks/${hook.id}/deliveries/resend`, { since });
    expect(resent).toMatchObject({ status: 200, body: { data: { resent: 4, states: ['skipped', 'failed'] } } });
    await h.advance(120);
    expect(new Set(r.received.slice(2).map((x) => x.body.event))).toEqual(new Set(late.map((e) => e.id)));
    // The rest, by giving an earlier time.
    const rest = await h.api('POST', `/api/v1/webhooks/${hook.id}/deliveries/resend`, {
      since: '2026-01-01',
      states: ['skipped'],
    });
    expect(rest.body.data.resent).toBe(3);
    await h.advance(120);
    expect(new Set(r.received.slice(6).map((x) => x.body.event))).toEqual(new Set(early.map((e) => e.id)));
    expect(await h.deliveries(hook.id, '?state=skipped')).toEqual([]);
  });

  it('keeps its airports watched for the retention period after it was disabled, and no longer', async () => {
    const r = await h.receiver();
    const hook = await h.endpoint(r, ['CPO']);
    const skippedNow = async () => (await h.deliveries(hook.id, '?state=skipped&limit=200')).length;
    // The service's own poller (its fan-out configured from FLIGHTSTATUS_RETENTION_DAYS, 1 day here),
    // and a store configured the same way for the board changes the test makes.
    const pass = async () => {
      await h.t.app.poller.pass(h.t.clock.now());
      await createBoardStore(h.t.app.db, new FanOut(h.t.app.db)).fannedOut();
    };
    const store = createBoardStore(h.t.app.db, new FanOut(h.t.app.db, { keepSkippedMs: h.t.config.retentionMs }));
    await h.api('POST', `/api/v1/webhooks/${hook.id}/disable`);
    await h.advance(20 * 3600);
    expect(await store.watchedAirports(h.t.clock.now())).toContain('CPO');
    // A real poll of the simulated boards: what it observes at CPO is kept for the disabled endpoint.
    await pass();
    const kept = await skippedNow();
    expect(kept).toBeGreaterThan(0);
    expect(r.received).toHaveLength(0);
    // Past the retention period the airport is no longer watched for it, and nothing more is kept.
    await h.advance(5 * 3600);
    expect(await store.watchedAirports(h.t.clock.now())).not.toContain('CPO');
    await pass();
    await observe(h.t, 'CPO', 1, 'flight.delay_changed', store);
    expect(await skippedNow()).toBe(kept);
  });
});
