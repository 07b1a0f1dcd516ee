// The delivery queue in the database (docs/webhooks.md, "Delivery rules"): its contract and its schedule. Deliveries are
// created by the fan-out (fanout.ts) from the events the board pass stores, claimed by workers under a
// lease, and settled by the outcome of each attempt. Deliveries are leased work (leases/): the claim
// and its lease are the primitive's (FOR UPDATE SKIP LOCKED on PostgreSQL, so several worker
// processes share the queue without sending a delivery twice), and which rows a claim takes is this
// capability's fairness, written per dialect in dialect-sqlite.ts and dialect-postgres.ts. The settle
// stays here, on the hot path: statements prepared once (on SQLite in the group transaction; on
// PostgreSQL the successes that end in one turn together) that record the attempt and count the
// endpoint's failures with the delivery's update, taking effect only while the lease is still the
// holder's; those both dialects share are in queue-statements.ts.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { BoardEventsTable, DatabaseSchema, EndpointsTable } from '../db/index.js';
import { MINUTE } from '../clock.js';
import { backoff, type LeaseShape } from '../leases/index.js';

/** Waits before attempts 2, 3, 4 and 5 (docs/webhooks.md, "Delivery rules"). */
export const RETRY_DELAYS_MS = [1 * MINUTE, 5 * MINUTE, 20 * MINUTE, 60 * MINUTE] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** Consecutive failed attempts across an endpoint's deliveries that disable it (docs/webhooks.md, "Disabling and enabling"). */
export const DISABLE_AFTER_FAILURES = 25;
export const DISABLED_BY_FAILURES = `${DISABLE_AFTER_FAILURES} consecutive failed deliveries`;

// When a receiver fails (docs/webhooks.md, "When a receiver fails"). A failed attempt backs off the
// endpoint, not only the delivery: its other queued deliveries wait ENDPOINT_PAUSE_MS · 2^(n-1)
// after the n-th counted failure, at most one delivery cycle, so a receiver that is down gets one
// probe per pause instead of its whole queue, and reaching the 25 failures that disable an endpoint takes about
// 38 minutes with the 2-minute cycle rather than a third of a second. The first 2xx lifts the pause.
/** The first pause after a failure; doubled with each counted failure, capped at the delivery cycle. */
export const ENDPOINT_PAUSE_MS = 1000;
/** The longest wait a receiver's Retry-After can impose, on a delivery or on its endpoint. */
export const MAX_RETRY_AFTER_MS = 60 * MINUTE;
/** The retry schedule's spread: each wait is drawn within ±10 % of its step (1, 5, 20 and 60 minutes). */
export const RETRY_JITTER = 0.1;
/** Pauses are doubled at most this many times (2^20 s is far past any cycle; it keeps the shift small). */
export const MAX_DOUBLINGS = 20;

/**
 * Deliveries as leased work (leases/): a pending delivery is due at its next attempt (never while
 * NULL: its endpoint is paused or disabled) and held until its lease runs out. The attempt is counted
 * when it settles, not when it is claimed: a re-sent attempt carries the same number.
 */
export const DELIVERY_LEASES: LeaseShape = {
  table: 'deliveries',
  key: ['seq'],
  due: 'next_attempt_at',
  lease: 'lease_until',
  waiting: sql`state = 'pending'`,
  order: ['next_attempt_at', 'seq'],
};

export interface QueueOptions {
  /** The delivery cycle (2 minutes by default): the longest pause of a failing endpoint. */
  cycleMs: number;
}

export interface Claimed {
  seq: number;
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  /** Attempts already made (the one about to be made is attempts + 1). */
  attempts: number;
  /** The bytes of the first attempt, when there was one. */
  body: string | null;
  /** The claim's token: only the holder of this lease may settle the delivery. */
  leaseUntil: number;
}

export interface Outcome {
  delivery: Claimed;
  ok: boolean;
  status: number | null;
  error: string | null;
  /** When the attempt ended, by the service clock. */
  at: number;
  /** The bytes sent, kept for the retries. */
  body: string;
  /** How long the attempt took (wall clock). */
  durationMs: number;
  /** The receiver's Retry-After, in milliseconds, unclamped (null when it gave none). */
  retryAfterMs: number | null;
  /**
   * The endpoint's consecutive failures as this worker knew them when the attempt started. A failure
   * counts towards the 25 only when the count is still that: attempts that were already in flight
   * when the receiver failed are one failure of the receiver, not one each.
   */
  seenFailures: number;
}

export interface Settled {
  /** The attempt was recorded (false when the lease had been lost to another worker). */
  recorded: boolean;
  state: 'delivered' | 'pending' | 'failed';
  /** This failure disabled the endpoint. */
  disabledEndpoint: boolean;
}

export interface ClaimRequest {
  now: number;
  leaseUntil: number;
  /** Deliveries wanted at most. */
  limit: number;
  /** In flight to one endpoint whose last attempt succeeded (or that has none yet). */
  perEndpoint: number;
  /**
   * Held by this worker (claimed and not settled: in flight, or waiting to start) of such an endpoint:
   * a few times `perEndpoint` (see `HOLD_DEPTH` in cycle-state.ts).
   */
  holdPerEndpoint: number;
  /** The worker's overall bound in flight: the accounts with work share it (see `CLAIM_*`). */
  bound: number;
  /** How many more attempts to failing endpoints (see `suspectBound` in cycle-state.ts) this claim may add. */
  suspectRoom: number;
  /** Deliveries this worker holds already (claimed, not settled), per endpoint and per account. */
  heldByEndpoint: Record<string, number>;
  heldByAccount: Record<string, number>;
}

export interface DeliveryQueue {
  /**
   * Leases due deliveries to this worker (docs/webhooks.md, "Fairness between accounts"), in one statement on each dialect:
   * 1. open: every enabled endpoint not paused after a failure (`backoff_until`) with room, that is what
   *    this worker may hold of it less what it holds. That is `holdPerEndpoint`, or 1 when the
   *    endpoint's last attempt failed ("suspect": it may be one that never answers, and each of its
   *    attempts holds a slot for the whole timeout).
   * 2. cand: each open endpoint's own first due deliveries, up to its room (an index probe per
   *    endpoint on deliveries_endpoint_due), so a long queue elsewhere never hides them. (SQLite's
   *    LIMIT cannot name an outer column: it probes each endpoint's first row, and `holdPerEndpoint` rows
   *    only of the accounts with fewer first rows than the overall bound, keeping the room's worth. An
   *    account with that many endpoints due takes at most its share, all first rows, so deeper rows
   *    could never be chosen: probing them for 1,000 endpoints made the claim 8,000 rows and blocked
   *    the event loop 50–155 ms a claim when a cycle first met 1,000 failing endpoints.)
   * 3. share: the overall bound divided among the accounts that have work (due, or held here), at
   *    least `perEndpoint`; an account gets no more than its share less what it holds.
   * 4. Round-robin: each account's candidates are ranked (endpoints interleaved), and the batch takes
   *    every account's first, then every account's second, and so on; suspect endpoints together get
   *    at most `suspectRoom` more.
   */
  claim(request: ClaimRequest): Promise<Claimed[]>;
  settle(outcome: Outcome): Promise<Settled>;
  /** Gives claimed deliveries back unattempted (a stopping worker). */
  release(deliveries: Claimed[]): Promise<void>;
  events(ids: string[]): Promise<Map<string, BoardEventsTable>>;
  endpoints(ids: string[]): Promise<Map<string, EndpointsTable>>;
  /**
   * The earliest time after `now` and at or before `until` when an endpoint's pause ends while it has
   * a delivery due by then; null when there is none (the worker waits for it rather than end its cycle).
   */
  nextWake(now: number, until: number): Promise<number | null>;
}

/**
 * When a failed delivery is tried again: the schedule's step with its jitter, or later when the
 * receiver asked for more with Retry-After (never past MAX_RETRY_AFTER_MS); null after the last attempt.
 */
export function retryAt(attempts: number, at: number, retryAfterMs: number | null): number | null {
  const step = backoff(RETRY_DELAYS_MS, attempts);
  if (step === null) return null;
  const scheduled = Math.round(step * (1 + RETRY_JITTER * (2 * Math.random() - 1)));
  return at + Math.max(scheduled, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
}

// The endpoints that receive events (the fan-out itself is fanout.ts).

interface Subscriber {
  id: string;
  airports: string;
}

/**
 * The endpoints whose airports the board poll watches: those of enabled accounts that are enabled, or
 * were disabled at or after `disabledSince` (what is observed for them is kept as skipped deliveries,
 * resendable, for the retention period: fanout.ts).
 */
export function subscribedEndpoints(
  db: Kysely<DatabaseSchema> | Transaction<DatabaseSchema>,
  disabledSince: number,
): Promise<Subscriber[]> {
  return db
    .selectFrom('endpoints as e')
    .innerJoin('accounts as a', 'a.id', 'e.account_id')
    .select(['e.id', 'e.airports'])
    .where((eb) => eb.or([eb('e.enabled', '=', 1), eb('e.disabled_at', '>=', disabledSince)]))
    .where('a.disabled', '=', 0)
    .execute();
}
