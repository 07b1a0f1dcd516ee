// The board store's contract, run as one suite against each database: both dialects' stores must
// write a pass the same way (compare-and-set on the watch, events only with their watch, a change
// stored once, every stored event queued for fan-out), whatever their statements look like.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { HOUR, MINUTE } from '../clock.js';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../../test/helpers/databases.js';
import { openDatabase, type BoardEventsTable, type Database } from '../db/index.js';
import type { Watch } from './engine.js';
import type { BoardHistory } from '../circumstances/index.js';
import { createBoardStore, type BoardStore } from './index.js';

const watch = (flightId: string, lastSeenAt: number): Watch => ({
  flightId,
  firstSeenAt: 1_000,
  lastSeenAt,
  status: 'Scheduled',
  estimatedAt: null,
  delayMinutes: null,
  disruption: 'scheduled',
  divertedTo: null,
  registration: null,
  callsign: null,
  cancelledFired: false,
  qualifiedAt: null,
});

const event = (id: string, flightId: string, changeKey: string | null = id): BoardEventsTable => ({
  id,
  type: 'flight.delay_changed',
  airport: 'LHR',
  board: 'departures',
  flight_id: flightId,
  created_at: 2_000,
  data: '{}',
  change_key: changeKey,
});

describeEachDatabase('board store', (kind) => {
  let database: TestDatabase;
  let db: Database;
  let store: BoardStore & BoardHistory;
  let published = 0;
  beforeEach(async () => {
    database = await createTestDatabase(kind);
    db = await openDatabase(database.target, { migrate: true });
    published = 0;
    store = createBoardStore(db, {
      watchedAirports: async () => ['LHR'],
      publish: async () => published++,
    });
  });
  afterEach(async () => {
    await db?.close();
    await database?.drop();
  });

  const queued = async () =>
    (await db.kysely.selectFrom('fan_out_queue').select('event_id').orderBy('event_id').execute()).map(
      (r) => r.event_id,
    );

  it('stores a new flight with its events, queues them for fan-out and starts publishing', async () => {
    const stored = await store.save('LHR', 'departures', [
      { key: 'BA1', watch: watch('flt_1', 2_000), basis: null, events: [event('evt_1', 'flt_1')] },
    ]);
    expect(stored).toBe(1);
    expect((await store.watches('LHR', 'departures')).get('BA1')).toEqual(watch('flt_1', 2_000));
    expect(await store.watches('LHR', 'arrivals')).toEqual(new Map());
    expect(await queued()).toEqual(['evt_1']);
    await store.fannedOut();
    expect(published).toBeGreaterThanOrEqual(1);
    expect(await store.watchedAirports(0)).toEqual(['LHR']);
  });

  it('leaves a watch another pass changed, with its events; stores loose events as they are', async () => {
    await store.save('LHR', 'departures', [{ key: 'BA1', watch: watch('flt_1', 2_000), basis: null, events: [] }]);
    // Computed from a watch last seen at 1,500: someone else's pass has moved it on since.
    const stored = await store.save(
      'LHR',
      'departures',
      [
        { key: 'BA1', watch: watch('flt_1', 3_000), basis: 1_500, events: [event('evt_stale', 'flt_1')] },
        { key: 'BA2', watch: watch('flt_2', 3_000), basis: 1_500, events: [event('evt_new_basis', 'flt_2')] },
      ],
      [event('evt_loose', 'flt_9')],
    );
    expect(stored).toBe(2);
    const watches = await store.watches('LHR', 'departures');
    expect(watches.get('BA1')!.lastSeenAt).toBe(2_000);
    // A flight with no stored watch is inserted, whatever its basis (another pass retired it).
    expect(watches.get('BA2')!.lastSeenAt).toBe(3_000);
    expect(await queued()).toEqual(['evt_loose', 'evt_new_basis']);
    // The watch as read: updated, with its event.
    expect(
      await store.save('LHR', 'departures', [
        { key: 'BA1', watch: watch('flt_1', 4_000), basis: 2_000, events: [event('evt_2', 'flt_1')] },
      ]),
    ).toBe(1);
    expect((await store.watches('LHR', 'departures')).get('BA1')!.lastSeenAt).toBe(4_000);
  });

  it('stores a change two passes computed once', async () => {
    const loose = [event('evt_a', 'flt_1', 'flt_1:delay:2000')];
    expect(await store.save('LHR', 'departures', [], loose)).toBe(1);
    expect(await store.save('LHR', 'departures', [], [event('evt_b', 'flt_1', 'flt_1:delay:2000')])).toBe(0);
    expect(await queued()).toEqual(['evt_a']);
  });

  it('writes a pass larger than one statement batch, all of it', async () => {
    const writes = Array.from({ length: 1_234 }, (_, i) => ({
      key: `F${i}`,
      watch: watch(`flt_${i}`, 2_000),
      basis: null,
      events: [event(`evt_${i}`, `flt_${i}`)],
    }));
    expect(await store.save('LHR', 'departures', writes)).toBe(1_234);
    expect((await store.watches('LHR', 'departures')).size).toBe(1_234);
    expect(await queued()).toHaveLength(1_234);
  });

  it('retires flights not seen since a moment', async () => {
    await store.save('LHR', 'departures', [
      { key: 'OLD', watch: watch('flt_old', 1_000), basis: null, events: [] },
      { key: 'NEW', watch: watch('flt_new', 5_000), basis: null, events: [] },
    ]);
    expect(await store.retire(2_000)).toBe(1);
    expect([...(await store.watches('LHR', 'departures')).keys()]).toEqual(['NEW']);
  });

  it('reads what the boards showed for the circumstances: sightings by airport and carrier, and hourly counts with the short-notice ones', async () => {
    const hour = Date.parse('2026-02-20T10:00:00Z');
    const sighted = (
      id: string,
      type: BoardEventsTable['type'],
      scheduledAt: number,
      seenAhead: number,
      carrier: string,
      airport = 'LHR',
    ): BoardEventsTable => ({
      // Keyed as the poll keys its changes: the board's designator first.
      ...event(id, `flt_${id}`, `${carrier} ${id.charCodeAt(0)}|${scheduledAt}|${type}|new`),
      type,
      airport,
      scheduled_at: scheduledAt,
      created_at: scheduledAt - seenAhead,
      carrier,
    });
    await store.save(
      'LHR',
      'departures',
      [],
      [
        sighted('a', 'flight.cancelled', hour + 5 * MINUTE, 12 * HOUR, 'BA'),
        sighted('b', 'flight.cancelled', hour + 50 * MINUTE, HOUR, 'VS'),
        sighted('c', 'flight.cancelled', hour + 2 * HOUR, 30 * MINUTE, 'BA'),
        sighted('d', 'flight.delayed', hour + 10 * MINUTE, HOUR, 'BA'),
        sighted('e', 'flight.cancelled', hour + 20 * MINUTE, HOUR, 'BA', 'AMS'),
      ],
    );
    expect(await store.hourly('airport', 'LHR', 'flight.cancelled', hour, hour + 3 * HOUR)).toEqual(
      expect.arrayContaining([
        { hour, count: 2, shortNotice: 1 },
        { hour: hour + 2 * HOUR, count: 1, shortNotice: 1 },
      ]),
    );
    expect(await store.hourly('airport', 'LHR', 'flight.cancelled', hour, hour + 3 * HOUR)).toHaveLength(2);
    expect(await store.hourly('carrier', 'BA', 'flight.cancelled', hour, hour + HOUR)).toEqual([
      { hour, count: 2, shortNotice: 1 },
    ]);
    const lhr = await store.sightings('LHR', ['flight.cancelled'], hour, hour + HOUR);
    expect(lhr.map((s) => s.flightId).sort()).toEqual(['flt_a', 'flt_b']);
    expect(lhr.find((s) => s.flightId === 'flt_a')).toEqual({
      type: 'flight.cancelled',
      flightId: 'flt_a',
      flight: 'BA97',
      airport: 'LHR',
      board: 'departures',
      scheduledAt: hour + 5 * MINUTE,
      carrier: 'BA',
      seenAt: hour + 5 * MINUTE - 12 * HOUR,
    });
    expect((await store.carrierCancellations('BA', hour, hour + 3 * HOUR)).map((s) => s.flightId).sort()).toEqual([
      'flt_a',
      'flt_c',
      'flt_e',
    ]);
  });

  it('tells whether the boards were read during a window or the 3 hours after, from what those reads recorded', async () => {
    const hour = Date.parse('2026-02-20T10:00:00Z');
    // A read at 13:30 first listed a flight due at 01:00 the next day (12 hours ahead): LHR's only event.
    await store.save(
      'LHR',
      'departures',
      [],
      [
        {
          ...event('t', 'flt_t'),
          type: 'flight.tracked',
          scheduled_at: hour + 15 * HOUR,
          created_at: hour + 3.5 * HOUR,
          carrier: 'BA',
        },
      ],
    );
    expect(await store.watchedAt('LHR', hour, hour + 3 * HOUR)).toBe(true);
    expect(await store.watchedAt('LHR', hour + 2 * HOUR, hour + 5 * HOUR)).toBe(true);
    // 3 hours after the window's end, the read no longer lists its flights; before its start, it is not at the time.
    expect(await store.watchedAt('LHR', hour - 3 * HOUR, hour)).toBe(false);
    expect(await store.watchedAt('LHR', hour + 4 * HOUR, hour + 7 * HOUR)).toBe(false);
    expect(await store.watchedAt('AMS', hour, hour + 3 * HOUR)).toBe(false);
  });
});
