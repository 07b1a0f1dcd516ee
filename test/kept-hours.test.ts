// The hours a watched airport's boards were kept whole (issue 43, section 5), end to end on each
// database: the poll keeps every row of the hours leaving its window, final or not, and records the
// span; a disrupted flight that was its aircraft's first of the day is then settled from the kept rows
// (nothing landed there before it), with no request for the aircraft's day. Where the passes left a
// gap in those hours, the rows cannot say that, and the aircraft's day is asked, as before.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HOUR } from '../src/clock.js';
import { BoardPoller, createBoardStore, ObservedFlightStore } from '../src/boards/index.js';
import { FanOut } from '../src/webhooks/index.js';
import { loadReferenceAirports } from '../src/airports/index.js';
import { createLogger } from '../src/logger.js';
import { groundTruth, type SimWorld, type TruthFlight } from '../src/sim/index.js';
import { describeEachDatabase } from './helpers/databases.js';
import { providerCalls } from './helpers/metrics.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';

const NIGHT = 4 * HOUR;

/**
 * A passenger flight delayed 3 hours or more for a fault of its own, from `origin`, that was its
 * aircraft's first of the day: nothing landed there with it in the 4 hours before.
 */
function firstOfDay(world: SimWorld, date: string, origin: string): TruthFlight | undefined {
  const days = [
    groundTruth(world, date),
    groundTruth(world, new Date(Date.parse(`${date}T00:00:00Z`) - 24 * HOUR).toISOString().slice(0, 10)),
  ].flat();
  const legs = new Map<string, number>();
  for (const f of days) if (f.flightDate === date) legs.set(f.flightNumber, (legs.get(f.flightNumber) ?? 0) + 1);
  return days.find((f) => {
    if (
      f.flightDate !== date ||
      f.origin !== origin ||
      !world.catalogue.includes(f.destination) ||
      f.operation !== 'passenger' ||
      legs.get(f.flightNumber) !== 1
    )
      return false;
    if (f.status !== 'delayed' || f.delayCause.kind !== 'technical' || f.arrivalDelayMinutes! < 180) return false;
    const at = Date.parse(f.scheduledDeparture);
    return !days.some(
      (g) =>
        g.registration === f.registration &&
        g !== f &&
        Date.parse(g.scheduledArrival) > at - NIGHT - HOUR &&
        Date.parse(g.scheduledDeparture) < at,
    );
  });
}

describeEachDatabase('the hours a watched airport was kept whole', (kind) => {
  let t: TestApp;
  let key: string;
  const ORIGIN = 'LTN';

  beforeAll(async () => {
    t = await startTestApp(kind, { webhooks: { intervalMs: 365 * 24 * HOUR } });
    key = (await t.account()).key;
    const created = await t.app.http.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(key),
      payload: { name: 'claims', url: 'http://127.0.0.1:9/hooks', airports: [ORIGIN] },
    });
    expect(created.statusCode).toBe(201);
  });
  afterAll(() => t.close());

  const lookup = async (f: TruthFlight, more = '') => {
    const before = await providerCalls(t);
    const c = json(
      await t.get(
        `/api/v1/flights/status?flightNumber=${f.flightNumber}&flightDate=${f.flightDate}${more}`,
        bearer(key),
      ),
    ).data.circumstances;
    return { c, rotations: ((await providerCalls(t)).rotation ?? 0) - (before.rotation ?? 0) };
  };

  it("settles an aircraft's first flight of the day from the hours the poll kept whole, as its day would, and asks for its day where a pass was missed", async () => {
    const world = t.app.sim!;
    const kept = firstOfDay(world, '2026-02-18', ORIGIN)!;
    const gapped = firstOfDay(world, '2026-02-12', ORIGIN)!;
    expect([kept, gapped].every(Boolean)).toBe(true);

    // Every 30 minutes through the 4 hours before the first: those hours are kept whole.
    const sched = Date.parse(kept.scheduledDeparture);
    for (let at = sched - HOUR; at <= sched + 2 * HOUR; at += HOUR / 2) await t.app.poller.pass(at);
    const spans = await t.app.db.kysely.selectFrom('kept_hours').select(['airport', 'from_at', 'to_at']).execute();
    expect(spans.map((s) => [s.airport, Number(s.from_at), Number(s.to_at)])).toEqual([
      [ORIGIN, sched - 4 * HOUR, sched],
    ]);

    const settled = await lookup(kept);
    expect([settled.c.seen.aircraft, settled.rotations]).toEqual(['boards', 0]);
    expect(settled.c.reasons[0]).toContain('were on the boards this service kept, so its day was not asked for');
    expect(settled.c.originLeg).toBeNull();

    // The same flight once those hours are not known whole: its day is asked, and says the same.
    await t.app.db.kysely.deleteFrom('kept_hours').execute();
    const followed = await lookup(kept, '&refresh=true');
    expect([followed.c.seen.aircraft, followed.rotations]).toEqual(['followed', 1]);
    const finding = (c: typeof settled.c) => ({
      cause: c.cause,
      assessment: c.assessment,
      originLeg: c.originLeg,
      airport: c.airport,
    });
    expect(finding(settled.c)).toEqual(finding(followed.c));
    // The poll began that morning, so no day before gives the usual: the hours' own kept flights
    // times the published shares do, never a usual of none (which would make any two delays a wave).
    const figures = settled.c.airport.find((a: { airport: string }) => a.airport === ORIGIN);
    expect(figures.baseline).toBe('published_rates');
    expect(figures.usual.delayed).toBeGreaterThan(1);
    expect(settled.c.seen.boards.find((b: { airport: string }) => b.airport === ORIGIN).status).toBe('watched');

    // Every 90 minutes through the second's: half-hour gaps, so an arrival before it could be missing.
    const other = Date.parse(gapped.scheduledDeparture);
    for (let at = other - HOUR; at <= other + 2 * HOUR; at += 1.5 * HOUR) await t.app.poller.pass(at);
    const asked = await lookup(gapped);
    expect([asked.c.seen.aircraft, asked.rotations]).toEqual(['followed', 1]);
    expect(asked.c.airport.find((a: { airport: string }) => a.airport === ORIGIN).baseline).toBe('published_rates');
  }, 120_000);

  it('keeps the hours that leave the window before the pass after next, at the interval the passes run', async () => {
    await t.app.db.kysely.deleteFrom('kept_hours').execute();
    const at = Date.parse('2026-03-02T12:00:00Z');
    const poller = (intervalMs: number) =>
      new BoardPoller({
        store: createBoardStore(t.app.db, new FanOut(t.app.db)),
        providers: t.app.providers,
        airports: loadReferenceAirports(),
        logger: createLogger('silent'),
        providerTimeoutMs: 8000,
        intervalMs,
        observed: { store: new ObservedFlightStore(t.app.db), retentionMs: 365 * 24 * HOUR },
      });
    // The pass as it runs at the time (the simulated boards then show what is known then): the last test, the clock moves on.
    const pass = async (when: number) => {
      t.clock.set(when);
      await poller(2 * HOUR).pass(when);
    };
    await pass(at);
    const spans = async () =>
      (
        await t.app.db.kysely
          .selectFrom('kept_hours')
          .select(['from_at', 'to_at'])
          .where('airport', '=', ORIGIN)
          .execute()
      ).map((s) => [Number(s.from_at), Number(s.to_at)]);
    expect(await spans()).toEqual([[at - 3 * HOUR, at + HOUR]]);
    // Every flight its boards listed in those hours is kept, those not yet final included.
    const rows = await t.app.db.kysely
      .selectFrom('observed_flights')
      .select(['row'])
      .where('airport', '=', ORIGIN)
      .where('scheduled_at', '>=', at - 3 * HOUR)
      .where('scheduled_at', '<', at + HOUR)
      .execute();
    const inside = (time: string) => Date.parse(time) >= at - 3 * HOUR && Date.parse(time) < at + HOUR;
    const listed = groundTruth(t.app.sim!, '2026-03-02').filter(
      (f) =>
        (f.origin === ORIGIN && inside(f.scheduledDeparture)) ||
        (f.destination === ORIGIN && inside(f.scheduledArrival)),
    );
    expect(rows.length).toBe(listed.length);
    const unfinished = rows.map((r) => JSON.parse(r.row)).filter((row) => !row.cancelled && row.actualAt === null);
    expect(unfinished.length).toBeGreaterThan(0);
    // A pass of the next interval that also reads both boards whole extends the span.
    await pass(at + 2 * HOUR);
    expect(await spans()).toEqual([[at - 3 * HOUR, at + 3 * HOUR]]);
  });
});
