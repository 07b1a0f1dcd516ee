// The delivery cycle's bookkeeping, without a queue, a database or a receiver: what it claims, starts,
// holds and gives back (worker.ts runs it against the real queue; webhooks*.test.ts run that).
import { describe, expect, it } from 'vitest';
import { CycleState, HOLD_DEPTH, LEASE_MS, suspectBound, type Owner } from './cycle-state.js';
import type { Claimed } from './queue.js';

let seq = 0;
const delivery = (endpointId: string): Claimed => ({
  seq: ++seq,
  id: `dlv_${seq}`,
  endpointId,
  eventId: `evt_${seq}`,
  eventType: 'flight.delayed',
  attempts: 0,
  body: null,
  leaseUntil: 1_000 + LEASE_MS,
});
const owners: Record<string, Owner> = {
  wh_a: { account: 'acct_1', suspect: false },
  wh_b: { account: 'acct_1', suspect: false },
  wh_bad: { account: 'acct_2', suspect: true },
};
const ownerOf = (d: Claimed) => owners[d.endpointId]!;
const many = (endpointId: string, n: number) => Array.from({ length: n }, () => delivery(endpointId));

describe("the delivery cycle's state", () => {
  it('claims at the start with the whole bound, and asks for what it holds per endpoint and account', () => {
    const state = new CycleState({ concurrency: 8, perEndpoint: 2 });
    expect(state.wantsClaim(0, false)).toBe(true);
    expect(state.claimRequest(1_000)).toEqual({
      now: 1_000,
      leaseUntil: 1_000 + LEASE_MS,
      limit: 8,
      perEndpoint: 2,
      holdPerEndpoint: 2 * HOLD_DEPTH,
      bound: 8,
      suspectRoom: suspectBound(8),
      heldByEndpoint: {},
      heldByAccount: {},
    });
    state.claimed([...many('wh_a', 3), delivery('wh_bad')], ownerOf);
    expect(state.heldCount).toBe(4);
    expect(state.claimRequest(2_000)).toMatchObject({
      limit: 4,
      suspectRoom: suspectBound(8) - 1,
      heldByEndpoint: { wh_a: 3, wh_bad: 1 },
      heldByAccount: { acct_1: 3, acct_2: 1 },
    });
  });

  it('starts at most perEndpoint per endpoint, in claim order, and the rest when those settle', () => {
    const state = new CycleState({ concurrency: 16, perEndpoint: 2 });
    const a = many('wh_a', 3);
    const b = many('wh_b', 1);
    state.claimed([...a, ...b], ownerOf);
    expect(state.dispatch()).toEqual([a[0], a[1], b[0]]);
    expect(state.dispatch()).toEqual([]);
    state.settled(a[0]!, false);
    expect(state.dispatch()).toEqual([a[2]]);
    expect(state.heldCount).toBe(3);
  });

  it('claims again only once at most half the bound is held and perEndpoint attempts settled, or nothing runs', () => {
    const state = new CycleState({ concurrency: 8, perEndpoint: 2 });
    const claimed = [...many('wh_a', 3), ...many('wh_b', 2)];
    state.claimed(claimed, ownerOf);
    const started = state.dispatch();
    expect(state.wantsClaim(started.length, false)).toBe(false); // 5 of 8 held
    state.settled(started[0]!, false);
    expect(state.wantsClaim(started.length - 1, false)).toBe(false); // 4 held, 1 settled since the claim
    state.settled(started[1]!, false);
    expect(state.wantsClaim(started.length - 2, false)).toBe(true); // 3 held, 2 settled
    expect(state.wantsClaim(0, true)).toBe(false); // never while stopping
  });

  it('counts what settles while a claim is under way towards the next claim', () => {
    // A claim asked while 3 quick attempts are held; they settle before it answers, and it brings 1
    // more (its snapshot still counted the 3). The rest of the bound is held by attempts that wait out
    // a timeout: once the 1 settles, the 4 settled since the request are room enough to claim again.
    const state = new CycleState({ concurrency: 8, perEndpoint: 2 });
    const slow = many('wh_bad', 3);
    const quick = many('wh_a', 3);
    state.claimed([...slow, ...quick], ownerOf);
    const started = state.dispatch();
    state.claimRequest(0);
    for (const d of started.filter((d) => d.endpointId === 'wh_a')) state.settled(d, false);
    const late = delivery('wh_a');
    state.claimed([late], ownerOf);
    const [next] = state.dispatch();
    expect(state.wantsClaim(slow.length + 1, false)).toBe(false); // 4 held: more than half the bound
    state.settled(next!, false);
    expect(state.wantsClaim(slow.length, false)).toBe(true); // 3 held, 4 settled since the request
  });

  it('gives back what waits for an endpoint whose attempt just failed, and frees what it held', () => {
    const state = new CycleState({ concurrency: 16, perEndpoint: 1 });
    const bad = many('wh_bad', 3);
    const good = many('wh_a', 2);
    state.claimed([...bad, ...good], ownerOf);
    const [first, second] = state.dispatch();
    expect([first, second]).toEqual([bad[0], good[0]]);
    state.settled(first!, true);
    expect(state.giveBack(false)).toEqual([bad[1], bad[2]]);
    expect(state.claimRequest(0)).toMatchObject({
      heldByEndpoint: { wh_a: 2 },
      heldByAccount: { acct_1: 2 },
      suspectRoom: suspectBound(16),
    });
    // Once given back, nothing more of it: the failure is forgotten with it.
    expect(state.giveBack(false)).toEqual([]);
    expect(state.dispatch()).toEqual([]);
    state.settled(second!, false);
    expect(state.dispatch()).toEqual([good[1]]);
  });

  it('gives back everything unstarted when the worker stops', () => {
    const state = new CycleState({ concurrency: 16, perEndpoint: 1 });
    const a = many('wh_a', 3);
    state.claimed(a, ownerOf);
    const [started] = state.dispatch();
    expect(state.giveBack(true)).toEqual([a[1], a[2]]);
    expect(state.heldCount).toBe(1);
    state.settled(started!, false);
    expect(state.heldCount).toBe(0);
    expect(state.claimRequest(0)).toMatchObject({ heldByEndpoint: {}, heldByAccount: {} });
  });

  it('is drained when a claim finds nothing while nothing is held', () => {
    const state = new CycleState({ concurrency: 4, perEndpoint: 1 });
    state.claimed([delivery('wh_a')], ownerOf);
    expect(state.drained).toBe(false);
    const [started] = state.dispatch();
    state.claimed([], ownerOf);
    expect(state.drained).toBe(false); // one still held
    state.settled(started!, false);
    state.claimed([], ownerOf);
    expect(state.drained).toBe(true);
  });

  it('gives suspect endpoints a quarter of the bound, at least one', () => {
    expect([1, 3, 4, 8, 64].map(suspectBound)).toEqual([1, 1, 1, 2, 16]);
  });
});
