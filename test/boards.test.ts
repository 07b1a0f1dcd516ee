// The board poller on the manual clock: a simulated day at OTP, watched by one endpoint, observed
// every 30 minutes; events checked against the world's ground truth. And a failing provider that
// must cause no event at all.
import { readFileSync } from 'node:fs';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BoardPoller, createBoardStore, type BoardStore } from '../src/boards/index.js';
import { FanOut } from '../src/webhooks/index.js';
import { loadCatalogue, loadReferenceAirports } from '../src/airports/index.js';
import { sharedRegion } from '../src/compensation/index.js';
import { createLogger } from '../src/logger.js';
import { HOUR, iso, MINUTE } from '../src/clock.js';
import { createSimWorld, groundTruth, SimProvider } from '../src/sim/index.js';
import type { FlightProvider } from '../src/providers/index.js';
import { describeEachDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, T0, type TestApp } from './helpers/app.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { insertEndpoint } from './helpers/endpoints.js';

// Every endpoint points at one real local receiver that answers 204, so deliveries succeed.
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

async function watch(t: TestApp, airports: string[], enabled = true) {
  const { accountId } = await t.account();
  await insertEndpoint(t, { accountId, airports, url: `${receiver.url}/hook`, enabled });
}

describeEachDatabase('board watching', (kind) => {
  let t: TestApp;
  let events: {
    id: string;
    type: string;
    airport: string;
    board: string;
    flight_id: string;
    created_at: number;
    data: string;
  }[];

  beforeAll(async () => {
    // Deliveries are the webhook tests' subject; here the delivery cycle is kept out of the way.
    t = await startTestApp(kind, { webhooks: { intervalMs: 365 * 24 * 3600_000 } });
    await watch(t, ['OTP', 'MAD', 'BCN']);
    await watch(t, ['CDG', 'FCO']);
    await watch(t, ['VIE'], false); // disabled: VIE is not polled
    const moved = await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 24 * 3600 });
    expect(moved.statusCode).toBe(200);
    expect(
      json(moved).data.runs.filter((r: { job: string; ok: boolean }) => r.job === 'board-poll' && r.ok),
    ).toHaveLength(48);
    events = (
      await t.app.db.kysely.selectFrom('board_events').selectAll().orderBy('created_at').orderBy('id').execute()
    ).map((e) => ({
      ...e,
      created_at: Number(e.created_at),
    }));
    // A day of polls of five airports: seconds on a quiet machine, far more on a loaded one.
  }, 120_000);
  afterAll(() => t.close());

  it('polls only the airports enabled endpoints select, and tracks each flight once per board', () => {
    expect(events.length).toBeGreaterThan(300);
    expect(new Set(events.map((e) => e.airport))).toEqual(new Set(['BCN', 'CDG', 'FCO', 'MAD', 'OTP']));
    const tracked = events.filter((e) => e.type === 'flight.tracked');
    const flights = new Set(events.map((e) => e.flight_id));
    expect(tracked).toHaveLength(flights.size);
    for (const e of tracked) {
      const flight = JSON.parse(e.data).flight;
      expect(flight.direction).toBe(e.board === 'departures' ? 'departure' : 'arrival');
      expect(flight[e.board === 'departures' ? 'origin' : 'destination'].iata).toBe(e.airport);
    }
  });

  it('reports what really happened: every cancellation seen, once; qualifying only for passenger flights', () => {
    const day = iso(T0).slice(0, 10);
    const truth = groundTruth(t.app.sim!, day, { airport: 'OTP', status: 'cancelled' });
    const cancelledNumbers = new Set(
      events
        .filter((e) => e.type === 'flight.cancelled' && e.airport === 'OTP')
        .map((e) => JSON.parse(e.data).flight.flightNumber.replace(' ', '')),
    );
    // Cancellations of the clock's day that were announced while OTP's boards were watched.
    const seenWindow = (f: (typeof truth)[number]) =>
      Date.parse(f.cancelledAt!) >= T0 && Date.parse(f.scheduledDeparture) < T0 + 24 * HOUR;
    for (const f of truth.filter(seenWindow)) expect(cancelledNumbers, f.flightNumber).toContain(f.flightNumber);
    const perFlight = new Map<string, number>();
    for (const e of events.filter((e) => e.type === 'flight.cancelled'))
      perFlight.set(e.flight_id, (perFlight.get(e.flight_id) ?? 0) + 1);
    expect([...perFlight.values()].every((n) => n === 1)).toBe(true);
    for (const e of events.filter((e) => e.type === 'flight.qualifying')) {
      const data = JSON.parse(e.data);
      expect(data.flight.operation).toBe('passenger');
      expect(['cancelled', 'diverted', 'delayed']).toContain(data.qualification.reason);
      if (e.board === 'arrivals') expect(data.qualification.reason).toBe('delayed');
      expect(data.qualification.compensation).toMatchObject({ distanceKm: expect.any(Number) });
    }
  });

  it('stores payloads that validate against the JSON Schema of 6.3 kept in docs/schemas', () => {
    const ajv = new Ajv2020Module.default({ strict: false, allErrors: true });
    addFormatsModule.default(ajv);
    const validate = ajv.compile(
      JSON.parse(readFileSync(new URL('../docs/schemas/board-event-data.schema.json', import.meta.url), 'utf8')),
    );
    for (const e of events)
      expect(validate(JSON.parse(e.data)), `${e.type}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    // A day at five large airports shows every one of the ten event types.
    const types = new Set(events.map((e) => e.type));
    expect([...types].sort()).toEqual([
      'flight.cancelled',
      'flight.delay_changed',
      'flight.delayed',
      'flight.divert_updated',
      'flight.diverted',
      'flight.predicted_qualifying',
      'flight.qualifying',
      'flight.recovered',
      'flight.status_changed',
      'flight.tracked',
    ]);
  });

  it('predicts before it qualifies', () => {
    const predicted = events.filter((e) => e.type === 'flight.predicted_qualifying');
    expect(predicted.length).toBeGreaterThan(0);
    for (const p of predicted) {
      const data = JSON.parse(p.data);
      expect(p.board).toBe('departures');
      expect(data.prediction.projectedDelayMinutes).toBeGreaterThanOrEqual(
        data.prediction.confidence === 'high' ? 180 : 195,
      );
      // What it rests on: the aircraft's legs up to its inbound into this airport, the departure
      // projected no earlier than the inbound's projected arrival plus the turnaround after it.
      const basis = data.prediction.basis;
      const inbound = basis[basis.length - 1];
      expect(inbound.destination.iata).toBe(data.flight.origin.iata);
      expect(inbound.flightNumber).toBe(data.prediction.inbound.flightNumber);
      expect(Date.parse(data.prediction.projectedDepartureAt)).toBeGreaterThanOrEqual(
        Date.parse(inbound.projectedArrivalAt) + inbound.turnaroundMinutes * 60_000,
      );
      for (let i = 1; i < basis.length; i++) expect(basis[i].origin.iata).toBe(basis[i - 1].destination.iata);
      const qualified = events.find((e) => e.type === 'flight.qualifying' && e.flight_id === p.flight_id);
      if (qualified) expect(qualified.created_at).toBeGreaterThanOrEqual(p.created_at);
    }
  });

  it('keeps its once-only rules across a restart (a new poller over the same database)', async () => {
    const again = new BoardPoller({
      store: createBoardStore(t.app.db, new FanOut(t.app.db)),
      providers: t.app.providers,
      airports: loadReferenceAirports(),
      logger: createLogger('silent'),
      providerTimeoutMs: 8000,
    });
    const count = async () => (await t.app.db.kysely.selectFrom('board_events').select('id').execute()).length;
    const before = await count();
    const report = await again.pass(t.clock.now());
    expect(report.boards).toBe(10);
    // The same moment observed again by a fresh engine: nothing happened, so nothing is emitted —
    // no flight is tracked twice, no cancellation or qualification repeats.
    expect(report.events).toBe(0);
    expect(await count()).toBe(before);
  });

  it('carries the 6.3 data: the flight now, and the values before the change', () => {
    // A flight first seen already late has no previous values; take one that became late while watched.
    const delayed = events.find((e) => e.type === 'flight.delayed' && JSON.parse(e.data).previous.disruption !== null)!;
    const data = JSON.parse(delayed.data);
    expect(data.flight).toMatchObject({
      id: delayed.flight_id,
      disruption: 'delayed',
      isCancelled: false,
      lastSeenAt: iso(delayed.created_at),
    });
    expect(data.flight.delayMinutes).toBeGreaterThanOrEqual(15);
    expect(['scheduled', 'on_time']).toContain(data.previous.disruption);
    for (const key of [
      'id',
      'flightNumber',
      'callsign',
      'direction',
      'airline',
      'aircraftType',
      'registration',
      'operation',
      'origin',
      'destination',
      'divertedTo',
      'scheduledAt',
      'estimatedAt',
      'delayMinutes',
      'status',
      'disruption',
      'isCancelled',
      'isDiverted',
      'runway',
      'firstSeenAt',
      'lastSeenAt',
    ]) {
      expect(data.flight, key).toHaveProperty(key);
    }
  });

  it('retires watches unseen for 36 hours and keeps the events (runs last: it moves the clock on)', async () => {
    await t.app.db.kysely.updateTable('endpoints').set({ enabled: 0 }).execute();
    const watches = async () => (await t.app.db.kysely.selectFrom('watches').select('flight_id').execute()).length;
    expect(await watches()).toBeGreaterThan(100);
    await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 35 * 3600 });
    expect(await watches()).toBeGreaterThan(0); // the last flights were seen under 36 h ago
    await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 2 * 3600 });
    expect(await watches()).toBe(0);
    expect((await t.app.db.kysely.selectFrom('board_events').select('id').execute()).length).toBeGreaterThanOrEqual(
      events.length,
    );
  });
});

describeEachDatabase('board watching when the provider fails', (kind) => {
  it('logs, skips the board and emits nothing', async () => {
    const t = await startTestApp(kind, { sim: { failures: { board: 1 } } });
    try {
      await watch(t, ['OTP', 'VIE']);
      const report = await t.app.poller.pass(t.clock.now());
      expect(report).toMatchObject({ airports: 2, boards: 0, events: 0 });
      expect(report.failedBoards).toEqual(['OTP departures', 'OTP arrivals', 'VIE departures', 'VIE arrivals']);
      expect(await t.app.db.kysely.selectFrom('board_events').selectAll().execute()).toEqual([]);
      expect(await t.app.db.kysely.selectFrom('watches').selectAll().execute()).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

describeEachDatabase('board passes racing on the same boards (two processes)', (kind) => {
  it('stores each change once, with the watch it came from, as one pass alone would', async () => {
    const slots = [0, 1, 2, 3, 4, 5].map((k) => T0 + 6 * HOUR + k * 30 * MINUTE);
    const stores: BoardStore[] = [];
    const poller = (t: TestApp) => {
      const store = createBoardStore(t.app.db, new FanOut(t.app.db));
      stores.push(store);
      return new BoardPoller({
        store,
        providers: t.app.providers,
        airports: loadReferenceAirports(),
        logger: createLogger('silent'),
        providerTimeoutMs: 8000,
      });
    };
    const changes = async (t: TestApp) =>
      (await t.app.db.kysely.selectFrom('board_events').select(['airport', 'board', 'type', 'change_key']).execute())
        .map((e) => `${e.airport} ${e.board} ${e.change_key?.replace(/\|\d+$/, '|seen')} ${e.type}`)
        .sort();
    const options = { webhooks: { intervalMs: 365 * 24 * 3600_000 } };
    const [raced, alone] = await Promise.all([startTestApp(kind, options), startTestApp(kind, options)]);
    try {
      await watch(raced, ['OTP', 'MAD']);
      await watch(alone, ['OTP', 'MAD']);
      const [a, b, single] = [poller(raced), poller(raced), poller(alone)];
      let reported = 0;
      for (const at of slots) {
        raced.clock.set(at);
        alone.clock.set(at);
        // Both read the boards and the same stored watches, then both write.
        const [ra, rb] = await Promise.all([a.pass(at), b.pass(at)]);
        reported += ra.events + rb.events;
        await single.pass(at);
      }
      const stored = await changes(raced);
      expect(stored.length).toBeGreaterThan(50);
      expect(stored).toEqual(await changes(alone));
      expect(reported).toBe(stored.length);
      // Every event names the flight id of the watch that was kept (not the losing pass's new id).
      const watches = await raced.app.db.kysely
        .selectFrom('watches')
        .select(['airport', 'board', 'flight_id'])
        .execute();
      const ids = new Set(watches.map((w) => w.flight_id));
      const orphans = await raced.app.db.kysely.selectFrom('board_events').select('flight_id').execute();
      expect(orphans.filter((e) => !ids.has(e.flight_id))).toEqual([]);
      // Only stored events were queued for fan-out: each has its one delivery and left the queue.
      await Promise.all(stores.map((store) => store.fannedOut()));
      expect(await raced.app.db.kysely.selectFrom('fan_out_queue').select('event_id').execute()).toEqual([]);
      const delivered = await raced.app.db.kysely.selectFrom('deliveries').select('event_id').execute();
      expect(delivered.map((d) => d.event_id).sort()).toEqual(
        (await raced.app.db.kysely.selectFrom('board_events').select('id').execute()).map((e) => e.id).sort(),
      );
    } finally {
      await Promise.all([raced.close(), alone.close()]);
    }
  });
});

describeEachDatabase('board watching when one airport fails', (kind) => {
  it('skips that airport without events, keeps its watches, and goes on with the others', async () => {
    let down = true;
    const t = await startTestApp(kind, {
      providers: (clock) => {
        const sim = new SimProvider(createSimWorld('test'), clock);
        const flaky: FlightProvider = {
          name: 'sim',
          lookupFlight: (...args) => sim.lookupFlight(...args),
          lookupAircraft: (...args) => sim.lookupAircraft(...args),
          readBoard: (read, options) =>
            down && read.airport === 'OTP'
              ? Promise.resolve({ outcome: 'error', error: { kind: 'unavailable', message: 'OTP feed down' } })
              : sim.readBoard(read, options),
        };
        return [flaky];
      },
    });
    try {
      await watch(t, ['OTP', 'VIE']);
      down = false;
      await t.app.poller.pass(t.clock.now()); // OTP and VIE watched while both answer
      const otpWatches = async () =>
        (await t.app.db.kysely.selectFrom('watches').select('flight_id').where('airport', '=', 'OTP').execute()).length;
      const before = await otpWatches();
      expect(before).toBeGreaterThan(10);
      down = true;
      t.clock.advance(30 * 60_000);
      const report = await t.app.poller.pass(t.clock.now());
      expect(report.failedBoards).toEqual(['OTP departures', 'OTP arrivals']);
      expect(report.boards).toBe(2);
      const atFailure = await t.app.db.kysely
        .selectFrom('board_events')
        .select(['airport', 'type'])
        .where('created_at', '=', t.clock.now())
        .execute();
      expect(atFailure.every((e) => e.airport === 'VIE')).toBe(true); // nothing from OTP: a missing row is not a cancellation
      expect(await otpWatches()).toBe(before);
    } finally {
      await t.close();
    }
  });
});

describeEachDatabase('board events of diversions', (kind) => {
  it('does not qualify a departure diverted within its destination’s city, and prices one diverted elsewhere as a cancellation', async () => {
    const t = await startTestApp(kind, { webhooks: { intervalMs: 365 * 24 * 3600_000 } });
    try {
      // Passenger departures of the next day from watched-able airports, diverted to an airport the
      // board names, less than 3 hours late at the gate, still in the read window 5 minutes after.
      const catalogue = loadCatalogue();
      const legs = t.app
        .sim!.legsOn('2026-03-02')
        .filter(
          (l) =>
            l.divertedTo !== null &&
            l.diversionNamed &&
            l.plan.rotation.operation === 'passenger' &&
            catalogue.find(l.plan.from.iata) !== undefined &&
            l.scheduledDeparture > T0 &&
            l.scheduledDeparture >= l.divertedAt! + 5 * MINUTE - 3 * HOUR &&
            l.actualDeparture! - l.scheduledDeparture < 3 * HOUR,
        );
      const same = legs.find((l) => sharedRegion(l.plan.to.iata, l.divertedTo!.iata))!;
      const elsewhere = legs.find(
        (l) => !sharedRegion(l.plan.to.iata, l.divertedTo!.iata) && l.plan.from.iata !== same?.plan.from.iata,
      )!;
      expect(same && elsewhere).toBeTruthy();
      await watch(t, [same.plan.from.iata, elsewhere.plan.from.iata]);
      for (const leg of [same, elsewhere].sort((a, b) => a.divertedAt! - b.divertedAt!)) {
        t.clock.set(leg.divertedAt! + 5 * MINUTE);
        await t.app.poller.pass(t.clock.now());
      }
      const events = await t.app.db.kysely
        .selectFrom('board_events')
        .selectAll()
        .where('board', '=', 'departures')
        .execute();
      const of = (leg: typeof same) =>
        events
          .filter(
            (e) => e.airport === leg.plan.from.iata && JSON.parse(e.data).flight.flightNumber === leg.plan.printed,
          )
          .map((e) => ({ type: e.type, data: JSON.parse(e.data) }));

      const sameEvents = of(same);
      expect(sameEvents.find((e) => e.type === 'flight.diverted')?.data.flight.divertedTo).toEqual({
        iata: same.divertedTo!.iata,
      });
      expect(sameEvents.map((e) => e.type)).not.toContain('flight.qualifying');

      const qualifying = of(elsewhere).find((e) => e.type === 'flight.qualifying')!;
      expect(qualifying.data.qualification.reason).toBe('diverted');
      const { key } = await t.account();
      const asked = json(
        await t.get(
          `/api/v1/compensation?origin=${elsewhere.plan.from.iata}&destination=${elsewhere.plan.to.iata}&airline=${elsewhere.plan.callsign.slice(0, 3)}&outcome=cancelled`,
          bearer(key),
        ),
      ).data;
      expect(qualifying.data.qualification.compensation).toEqual({
        amountEur: asked.eu261.amountEur,
        amountGbp: asked.uk261.amountGbp,
        distanceKm: asked.distanceKm,
        band: asked.eu261.band ?? asked.uk261.band,
      });
    } finally {
      await t.close();
    }
  });
});
