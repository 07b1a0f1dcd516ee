// What one delivery cycle keeps in its head (worker.ts runs the cycle; this holds its bookkeeping, no
// I/O): the deliveries it claimed and has not started, per endpoint; what it holds (claimed and not
// settled) per endpoint, per account and to "suspect" endpoints; what is in flight per endpoint; and
// when to claim again. The worker asks it what to claim, what to start and what to give back, and
// tells it what was claimed and what settled. docs/webhooks.md, "Delivery", says the rules it keeps.
import type { ClaimRequest, Claimed } from './queue.js';

/**
 * A claim outlives the longest wait a claimed delivery can have in this worker: behind the attempts
 * to its endpoint held before it, `HOLD_DEPTH` rounds of `perEndpoint` at most, each at most the
 * send timeout (10 s); a failure gives back what waits for that endpoint.
 */
export const LEASE_MS = 5 * 60_000;

/**
 * A healthy endpoint's deliveries a worker holds at most (claimed, in flight or waiting to start): this
 * many times its bound in flight, so the next attempts are in hand when one ends, not a claim's round
 * trip away. Holding only the bound in flight, each claim (its choice, the reads that prepare the
 * bodies: several round trips) left the endpoint's slots idle: one endpoint's 7,300 deliveries after a
 * board pass went out at 335–400 a second on PostgreSQL, at 600–850 so (docs/webhooks.md). An
 * account still holds no more than its share of the overall bound.
 */
export const HOLD_DEPTH = 4;

/**
 * Attempts in flight at once to "suspect" endpoints, those whose last attempt failed, all together:
 * a quarter of the overall bound (at least 1). Each such endpoint also gets one attempt at a time.
 * An endpoint that never answers holds its slot for the whole timeout (10 s), so without this cap a
 * hundred of them would hold the whole pool on every claim; with it, three quarters of the pool stay
 * for endpoints that answer, whoever owns the failing ones. A failing endpoint still gets an attempt
 * per slot turn, and its first success lifts the cap (the failure counter resets).
 */
export const suspectBound = (concurrency: number) => Math.max(1, Math.floor(concurrency / 4));

/** Who a claimed delivery is counted against: its endpoint's account, and whether the endpoint is suspect. */
export interface Owner {
  account: string;
  suspect: boolean;
}

export class CycleState {
  /** Claimed, not started, per endpoint (in claim order). */
  private readonly waiting = new Map<string, Claimed[]>();
  /** Claimed and not settled, per endpoint and per account, and to suspect endpoints. */
  private readonly held = new Map<string, number>();
  private readonly heldByAccount = new Map<string, number>();
  private heldSuspect = 0;
  /** Claimed and not settled, in all. */
  private holding = 0;
  private readonly inFlight = new Map<string, number>();
  /** Per claimed delivery (by its queue sequence), whom it was counted against. */
  private readonly taken = new Map<number, Owner>();
  /** Endpoints whose attempt just failed: what is waiting for them goes back to the queue. */
  private readonly failing = new Set<string>();
  /** Attempts settled since the last claim request (its snapshot of what is held does not know them). */
  private settledSinceClaim = 0;
  /** The last claim found nothing while nothing was held either. */
  drained = false;

  constructor(private readonly bounds: { concurrency: number; perEndpoint: number }) {}

  /**
   * Whether to claim now. Claims come in batches, not per attempt: at the start, and once at most
   * half of the overall bound is held and `perEndpoint` attempts have settled since the last claim
   * was asked for (or nothing is in flight). Counted from the request, not from its answer: what settles
   * during the claim's round trip is room that claim did not see (its account's share was cut by it), so
   * it counts towards the next one. Counted from the answer, a batch that settled meanwhile was forgotten,
   * and when the claim brought fewer than `perEndpoint` quick attempts and the rest of what is held were
   * attempts waiting out a receiver's timeout, the next claim waited for those timeouts.
   */
  wantsClaim(running: number, stopping: boolean): boolean {
    return (
      !stopping &&
      this.holding <= this.bounds.concurrency / 2 &&
      (running === 0 || this.settledSinceClaim >= this.bounds.perEndpoint)
    );
  }

  /**
   * The claim to make at `now`: room left overall, per endpoint, per account and for suspect endpoints.
   * Asking starts the count of settled attempts towards the next claim (see `wantsClaim`).
   */
  claimRequest(now: number): ClaimRequest {
    const { concurrency, perEndpoint } = this.bounds;
    this.settledSinceClaim = 0;
    return {
      now,
      leaseUntil: now + LEASE_MS,
      limit: concurrency - this.holding,
      perEndpoint,
      holdPerEndpoint: perEndpoint * HOLD_DEPTH,
      bound: concurrency,
      suspectRoom: Math.max(0, suspectBound(concurrency) - this.heldSuspect),
      heldByEndpoint: Object.fromEntries(this.held),
      heldByAccount: Object.fromEntries(this.heldByAccount),
    };
  }

  /** Takes in what a claim returned: held, and waiting to start. */
  claimed(deliveries: Claimed[], ownerOf: (delivery: Claimed) => Owner): void {
    this.drained = deliveries.length === 0 && this.holding === 0;
    for (const delivery of deliveries) {
      this.taken.set(delivery.seq, ownerOf(delivery));
      this.hold(delivery, 1);
      const list = this.waiting.get(delivery.endpointId);
      if (list) list.push(delivery);
      else this.waiting.set(delivery.endpointId, [delivery]);
    }
  }

  /**
   * What goes back to the queue unstarted, no longer held: everything waiting when the worker stops,
   * else what waits for an endpoint whose attempt just failed (its pause holds it in the queue).
   */
  giveBack(stopping: boolean): Claimed[] {
    const endpoints = stopping ? [...this.waiting.keys()] : [...this.failing].filter((id) => this.waiting.has(id));
    this.failing.clear();
    const unstarted = endpoints.flatMap((id) => this.waiting.get(id)!);
    for (const id of endpoints) this.waiting.delete(id);
    for (const delivery of unstarted) this.hold(delivery, -1);
    return unstarted;
  }

  /** The waiting deliveries that may start now (at most `perEndpoint` in flight per endpoint), marked in flight. */
  dispatch(): Claimed[] {
    const started: Claimed[] = [];
    for (const [endpointId, list] of this.waiting) {
      while (list.length > 0 && (this.inFlight.get(endpointId) ?? 0) < this.bounds.perEndpoint) {
        const delivery = list.shift()!;
        count(this.inFlight, endpointId, 1);
        started.push(delivery);
      }
      if (list.length === 0) this.waiting.delete(endpointId);
    }
    return started;
  }

  /** A started attempt ended; `failed`: the receiver failed it (its endpoint's waiting deliveries go back). */
  settled(delivery: Claimed, failed: boolean): void {
    if (failed) this.failing.add(delivery.endpointId);
    this.settledSinceClaim++;
    count(this.inFlight, delivery.endpointId, -1);
    this.hold(delivery, -1);
  }

  /** Claimed and not settled, in all. */
  get heldCount(): number {
    return this.holding;
  }

  private hold(delivery: Claimed, by: 1 | -1): void {
    this.holding += by;
    count(this.held, delivery.endpointId, by);
    const owner = this.taken.get(delivery.seq)!;
    count(this.heldByAccount, owner.account, by);
    if (owner.suspect) this.heldSuspect += by;
    if (by < 0) this.taken.delete(delivery.seq);
  }
}

function count(map: Map<string, number>, key: string, by: number): void {
  const n = (map.get(key) ?? 0) + by;
  if (n === 0) map.delete(key);
  else map.set(key, n);
}
