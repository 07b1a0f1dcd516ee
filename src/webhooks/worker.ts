// The delivery cycle (spec 6.5): every 2 minutes (on the manual clock, whenever an advance passes a
// cycle) a worker claims the due deliveries under a lease, sends them concurrently (a bound per
// endpoint and one overall), and settles each by its outcome. An endpoint whose attempt failed is
// paused (queue.ts, ENDPOINT_PAUSE_MS): what this worker claimed of it and has not started goes back,
// and on the system clock the cycle waits for a pause that ends within it. A delivery claimed by a process that
// dies is taken again once its lease runs out: never lost, and never marked delivered without a 2xx.
// An attempt counts only once its outcome is known, so the re-sent attempt carries the same number.
import type { AirportCatalogue } from '../airports/index.js';
import type { Clock } from '../clock.js';
import type { EndpointsTable } from '../db/index.js';
import type { Logger } from '../logger.js';
import { deliveryBody, signedAttempt } from './payload.js';
import type { FanOut } from './fanout.js';
import type { Claimed, DeliveryQueue } from './queue.js';
import type { SecretBox } from './secrets.js';
import type { Sender } from './sender.js';

/** A claim outlives the longest wait a claimed delivery can have in this worker (see `perEndpoint`). */
export const LEASE_MS = 5 * 60_000;

/**
 * Attempts in flight at once to "suspect" endpoints, those whose last attempt failed, all together:
 * a quarter of the overall bound (at least 1). Each such endpoint also gets one attempt at a time.
 * An endpoint that never answers holds its slot for the whole timeout (10 s), so without this cap a
 * hundred of them would hold the whole pool on every claim; with it, three quarters of the pool stay
 * for endpoints that answer, whoever owns the failing ones. A failing endpoint still gets an attempt
 * per slot turn, and its first success lifts the cap (the failure counter resets).
 */
export const suspectBound = (concurrency: number) => Math.max(1, Math.floor(concurrency / 4));

export interface WorkerOptions {
  queue: DeliveryQueue;
  /** Finished at the start of a cycle when a crash cut it short (and no run is under way here). */
  fanOut?: FanOut;
  sender: Sender;
  secrets: SecretBox;
  catalogue: AirportCatalogue;
  /** The service clock: due times, leases, retry times. */
  clock: Clock;
  /** Real time, for the signature's timestamp: receivers check it against their own clocks. */
  wallClock: Clock;
  logger: Logger;
  /** Attempts in flight at once, overall and per endpoint. */
  concurrency: number;
  perEndpoint: number;
  /** The delivery cycle: a cycle waits for an endpoint's pause to end only within its own length. */
  cycleMs: number;
  /**
   * Waits that long in real time, or until the signal aborts; null on the manual clock, where time
   * moves only when told (an endpoint's pause then ends on a later cycle of the advance).
   */
  sleep: ((ms: number, signal: AbortSignal) => Promise<void>) | null;
  /** Called when this worker's failures disable an endpoint (the account is told by mail). */
  endpointDisabled?: (endpointId: string, at: number) => Promise<void>;
}

export interface CycleReport {
  attempted: number;
  delivered: number;
  /** Failed attempts that will be retried. */
  retrying: number;
  /** Deliveries that failed their last attempt. */
  failed: number;
  /** Endpoints disabled by this cycle's failures. */
  disabledEndpoints: number;
}

export class DeliveryWorker {
  private stopping = false;
  /** Ends a wait for an endpoint's pause when the worker stops. */
  private readonly halt = new AbortController();
  private current: Promise<CycleReport> | null = null;

  constructor(private readonly o: WorkerOptions) {}

  /** One cycle: sends everything due until nothing is left; concurrent calls share the running one. */
  cycle(): Promise<CycleReport> {
    if (!this.current) {
      this.current = this.run().finally(() => {
        this.current = null;
      });
    }
    return this.current;
  }

  /** Stops claiming, gives back what was claimed but not started, and waits for attempts in flight. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.halt.abort();
    await this.current?.catch(() => {});
  }

  private async run(): Promise<CycleReport> {
    const { queue, clock, concurrency, perEndpoint, fanOut, logger, sleep, cycleMs } = this.o;
    const cycleEnd = clock.now() + cycleMs;
    if (fanOut && !fanOut.busy) {
      // A fan-out failure must not stop the deliveries already queued; the next cycle tries again.
      await fanOut.run().catch((error: unknown) => logger.error({ err: error }, 'webhook fan-out could not be finished'));
    }
    const report: CycleReport = { attempted: 0, delivered: 0, retrying: 0, failed: 0, disabledEndpoints: 0 };
    const waiting = new Map<string, Claimed[]>(); // claimed, not started, per endpoint
    // Claimed and not settled: per endpoint, per account, and to suspect endpoints (see `suspectBound`).
    const held = new Map<string, number>();
    const heldByAccount = new Map<string, number>();
    let heldSuspect = 0;
    const inFlight = new Map<string, number>();
    const running = new Set<Promise<void>>();
    const endpoints = new Map<string, EndpointsTable | null>();
    const bodies = new Map<number, string>();
    const taken = new Map<number, { account: string; suspect: boolean }>(); // per claimed delivery, as counted
    let holding = 0;
    const count = (map: Map<string, number>, key: string, by: number) => {
      const n = (map.get(key) ?? 0) + by;
      if (n === 0) map.delete(key);
      else map.set(key, n);
    };
    const hold = (d: Claimed, by: 1 | -1) => {
      holding += by;
      count(held, d.endpointId, by);
      const t = taken.get(d.seq)!;
      count(heldByAccount, t.account, by);
      if (t.suspect) heldSuspect += by;
      if (by < 0) taken.delete(d.seq);
    };
    const bound = suspectBound(concurrency);
    // Claims are made in batches, not per attempt: at the start, and once at most half of the overall
    // bound is held and `perEndpoint` attempts have settled since the last claim (or nothing is in
    // flight). `drained`: the last claim found nothing while this worker held nothing either.
    let settledSinceClaim = 0;
    let drained = false;
    // Endpoints whose attempt just failed: what this worker claimed of them and has not started goes
    // back to the queue, where the endpoint's pause holds it (queue.ts, ENDPOINT_PAUSE_MS).
    const failing = new Set<string>();

    const start = (delivery: Claimed) => {
      inFlight.set(delivery.endpointId, (inFlight.get(delivery.endpointId) ?? 0) + 1);
      const task = this.attempt(delivery, endpoints.get(delivery.endpointId) ?? null, bodies.get(delivery.seq) ?? null, report)
        .then((failed) => {
          if (failed) failing.add(delivery.endpointId);
        })
        .finally(() => {
          running.delete(task);
          settledSinceClaim++;
          bodies.delete(delivery.seq);
          inFlight.set(delivery.endpointId, inFlight.get(delivery.endpointId)! - 1);
          hold(delivery, -1);
        });
      running.add(task);
    };
    const dispatch = () => {
      for (const [endpointId, list] of waiting) {
        while (list.length > 0 && (inFlight.get(endpointId) ?? 0) < perEndpoint) start(list.shift()!);
        if (list.length === 0) waiting.delete(endpointId);
      }
    };

    try {
      for (;;) {
        if (!this.stopping && holding <= concurrency / 2 && (running.size === 0 || settledSinceClaim >= perEndpoint)) {
          const now = clock.now();
          const claimed = await queue.claim({
            now,
            leaseUntil: now + LEASE_MS,
            limit: concurrency - holding,
            perEndpoint,
            bound: concurrency,
            suspectRoom: Math.max(0, bound - heldSuspect),
            heldByEndpoint: Object.fromEntries(held),
            heldByAccount: Object.fromEntries(heldByAccount),
          });
          settledSinceClaim = 0;
          drained = claimed.length === 0 && holding === 0;
          await this.prepare(claimed, endpoints, bodies);
          for (const delivery of claimed) {
            const endpoint = endpoints.get(delivery.endpointId);
            taken.set(delivery.seq, { account: endpoint?.account_id ?? '', suspect: (endpoint?.consecutive_failures ?? 0) > 0 });
            hold(delivery, 1);
            const list = waiting.get(delivery.endpointId);
            if (list) list.push(delivery);
            else waiting.set(delivery.endpointId, [delivery]);
          }
        }
        const giveBack = this.stopping ? [...waiting.keys()] : [...failing].filter((id) => waiting.has(id));
        failing.clear();
        if (giveBack.length > 0) {
          const unstarted = giveBack.flatMap((id) => waiting.get(id)!);
          for (const id of giveBack) waiting.delete(id);
          for (const d of unstarted) hold(d, -1);
          await queue.release(unstarted);
        }
        dispatch();
        if (running.size === 0 && drained && !this.stopping && sleep) {
          // Nothing is due now; an endpoint whose pause ends within this cycle is waited for, so a
          // receiver back after a bad second gets its queue in seconds, not at the next cycle.
          const now = clock.now();
          const wake = await queue.nextWake(now, cycleEnd);
          if (wake !== null) {
            await sleep(wake - now, this.halt.signal);
            drained = false;
            continue;
          }
        }
        if (running.size === 0 && (drained || this.stopping)) break;
        if (running.size === 0) continue; // nothing in flight: claim again (what was held back is free now)
        await Promise.race(running);
      }
    } finally {
      await Promise.allSettled(running);
    }
    return report;
  }

  /** Reads the endpoints and builds the first attempt's bodies of a claimed batch. */
  private async prepare(claimed: Claimed[], endpoints: Map<string, EndpointsTable | null>, bodies: Map<number, string>): Promise<void> {
    if (claimed.length === 0) return;
    const read = await this.o.queue.endpoints(claimed.map((d) => d.endpointId));
    for (const d of claimed) endpoints.set(d.endpointId, read.get(d.endpointId) ?? null);
    const fresh = claimed.filter((d) => d.body === null);
    const events = await this.o.queue.events([...new Set(fresh.map((d) => d.eventId))]);
    for (const d of fresh) {
      const event = events.get(d.eventId);
      const endpoint = endpoints.get(d.endpointId);
      if (!event || !endpoint) continue;
      bodies.set(d.seq, deliveryBody(this.o.catalogue, d.id, event, { id: endpoint.id, name: endpoint.name, airports: JSON.parse(endpoint.airports) as string[] }));
    }
  }

  /** One attempt, settled; resolves true when the receiver failed it. */
  private async attempt(delivery: Claimed, endpoint: EndpointsTable | null, fresh: string | null, report: CycleReport): Promise<boolean> {
    const { queue, sender, secrets, clock, wallClock, logger } = this.o;
    const body = delivery.body ?? fresh;
    // The endpoint was deleted (its deliveries went with it) or the event is gone: nothing to send.
    // Anything left keeps its lease, so it is looked at again only once the lease runs out.
    if (!endpoint || body === null) return false;
    let outcome;
    try {
      outcome = await sender.send(
        signedAttempt(endpoint, secrets, wallClock, body, {
          eventId: delivery.eventId,
          eventType: delivery.eventType,
          deliveryId: delivery.id,
          attempt: delivery.attempts + 1,
        }),
      );
    } catch (error) {
      // Not the receiver's fault (a secret that does not open): the delivery waits out its lease.
      logger.error({ err: error, delivery: delivery.id, endpoint: endpoint.id }, 'webhook delivery could not be attempted');
      return false;
    }
    report.attempted++;
    const settled = await queue.settle({
      delivery,
      ok: outcome.ok,
      status: outcome.status,
      error: outcome.error,
      at: clock.now(),
      body,
      durationMs: outcome.durationMs,
      retryAfterMs: outcome.retryAfterMs,
      seenFailures: endpoint.consecutive_failures,
    });
    // One line per attempt, keyed by the delivery id the receiver also sees (X-Flight-Delivery):
    // an operator follows a delivery through the logs of every worker that tried it.
    logger.info(
      { delivery: delivery.id, event: delivery.eventId, endpoint: endpoint.id, attempt: delivery.attempts + 1, status: outcome.status, error: outcome.error, state: settled.recorded ? settled.state : 'not_recorded', ms: outcome.durationMs },
      'webhook attempt',
    );
    if (!settled.recorded) return !outcome.ok;
    if (settled.state === 'delivered') report.delivered++;
    else if (settled.state === 'failed') report.failed++;
    else report.retrying++;
    if (settled.disabledEndpoint) {
      report.disabledEndpoints++;
      logger.warn({ endpoint: endpoint.id }, 'webhook endpoint disabled after consecutive failed deliveries');
      await this.o.endpointDisabled?.(endpoint.id, clock.now()).catch((error: unknown) => logger.error({ err: error }, 'endpoint notice failed'));
    }
    return !outcome.ok;
  }
}
