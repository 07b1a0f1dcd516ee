// Which of an endpoint's watches a delivery names (subscriptions.ts, watchesOf): only the endpoints
// asked for, each with its own watches of the event's flight, in id order; the endpoints are chosen
// after the read, so the read begins from the events (docs/watches.md, "Which watch").
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeEachDatabase } from '../../test/helpers/databases.js';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { WatchSubscriptions } from './subscriptions.js';
import { FollowList } from './follow-list.js';

describeEachDatabase('the watches a delivery names', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp(kind);
  });
  afterEach(async () => t?.close());

  it("names only the asked endpoints' own watches of each event, in id order", async () => {
    const { accountId } = await t.account();
    const now = t.clock.now();
    const k = t.app.db.kysely;
    const endpoint = (id: string) => ({
      id,
      account_id: accountId,
      name: id,
      url: 'https://receiver.test',
      airports: '[]',
      enabled: 1 as const,
      secret: 'whsec_test',
      consecutive_failures: 0,
      created_at: now,
      updated_at: now,
    });
    await k
      .insertInto('endpoints')
      .values([endpoint('wh_a'), endpoint('wh_b')])
      .execute();
    const watch = (id: string) => ({
      id,
      account_id: accountId,
      flight_number: 'W63101',
      flight_date: '2026-11-20',
      date_basis: 'utc' as const,
      origin: 'OTP',
      destination: null,
      reference: `ref-${id}`,
      watch_key: id,
      state: 'active' as const,
      ended_reason: null,
      created_at: now,
      ended_at: null,
    });
    await k
      .insertInto('flight_watches')
      .values([watch('wch_3'), watch('wch_1'), watch('wch_2')])
      .execute();
    await k
      .insertInto('flight_watch_endpoints')
      .values([
        { watch_id: 'wch_1', endpoint_id: 'wh_a' },
        { watch_id: 'wch_2', endpoint_id: 'wh_b' },
        { watch_id: 'wch_3', endpoint_id: 'wh_a' },
        { watch_id: 'wch_3', endpoint_id: 'wh_b' },
      ])
      .execute();
    const link = (event_id: string, watch_id: string) => ({
      event_id,
      watch_id,
      event_type: 'flight.delayed',
      created_at: now,
      position: 0,
    });
    await k
      .insertInto('board_event_watches')
      .values([link('evt_1', 'wch_3'), link('evt_1', 'wch_1'), link('evt_1', 'wch_2'), link('evt_2', 'wch_2')])
      .execute();
    const named = (ids: string[]) => ids.map((id) => ({ id, reference: `ref-${id}` }));
    const subscriptions = new WatchSubscriptions(t.app.db, new FollowList(t.app.db, () => null));

    const onlyA = await subscriptions.watchesOf(['evt_1', 'evt_2'], ['wh_a']);
    expect(Object.fromEntries(onlyA)).toEqual({ 'evt_1 wh_a': named(['wch_1', 'wch_3']) });

    const both = await subscriptions.watchesOf(['evt_1', 'evt_2'], ['wh_a', 'wh_b']);
    expect(Object.fromEntries(both)).toEqual({
      'evt_1 wh_a': named(['wch_1', 'wch_3']),
      'evt_1 wh_b': named(['wch_2', 'wch_3']),
      'evt_2 wh_b': named(['wch_2']),
    });
    expect((await subscriptions.watchesOf(['evt_2'], ['wh_a'])).size).toBe(0);
    expect((await subscriptions.watchesOf(['evt_1'], [])).size).toBe(0);
  });
});
