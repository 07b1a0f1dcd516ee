// The delivery cycle (docs/webhooks.md, "Delivery rules"): every 2 minutes (on the manual clock, whenever an advance passes a
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
import type { FanOut, WatchNamed } from './fanout.js';
import { CycleState } from './cycle-state.js';
import type { Claimed, DeliveryQueue } from './queue.js';
import type { SecretBox } from './secrets.js';
import type { Sender } from './sender.js';
import { backgroundTurn } from '../foreground.js';

/** Attempts started in one turn of the event loop (signing and opening a request each), before requests waiting get theirs. */
const START_TURN = 16;

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
      await fanOut
        .run()
        .catch((error: unknown) => logger.error({ err: error }, 'webhook fan-out could not be finished'));
    }
    const report: CycleReport = { attempted: 0, delivered: 0, retrying: 0, failed: 0, disabledEndpoints: 0 };
    const state = new CycleState({ concurrency, perEndpoint });
    const running = new Set<Promise<void>>();
    const endpoints = new Map<string, EndpointsTable | null>();
    const bodies = new Map<number, string>();

    const start = (delivery: Claimed) => {
      let failed = false;
      const task = this.attempt(
        delivery,
        endpoints.get(delivery.endpointId) ?? null,
        bodies.get(delivery.seq) ?? null,
        report,
      )
        .then((receiverFailed) => {
          failed = receiverFailed;
        })
        .finally(() => {
          running.delete(task);
          bodies.delete(delivery.seq);
          state.settled(delivery, failed);
        });
      running.add(task);
    };

    try {
      for (;;) {
        if (state.wantsClaim(running.size, this.stopping)) {
          const claimed = await queue.claim(state.claimRequest(clock.now()));
          // The claim's choice is read off the loop on SQLite too (db/reader.ts), but its take, the reads
          // and the sends' start each hold the loop a little: requests that arrived meanwhile go between them.
          await backgroundTurn();
          await this.prepare(claimed, endpoints, bodies);
          await backgroundTurn();
          state.claimed(claimed, (d) => {
            const endpoint = endpoints.get(d.endpointId);
            return { account: endpoint?.account_id ?? '', suspect: (endpoint?.consecutive_failures ?? 0) > 0 };
          });
        }
        const unstarted = state.giveBack(this.stopping);
        if (unstarted.length > 0) await queue.release(unstarted);
        let started = 0;
        for (const delivery of state.dispatch()) {
          start(delivery);
          if (++started % START_TURN === 0) await backgroundTurn();
        }
        if (running.size === 0 && state.drained && !this.stopping && sleep) {
          // Nothing is due now; an endpoint whose pause ends within this cycle is waited for, so a
          // receiver back after a bad second gets its queue in seconds, not at the next cycle.
          const now = clock.now();
          const wake = await queue.nextWake(now, cycleEnd);
          if (wake !== null) {
            await sleep(wake - now, this.halt.signal);
            state.drained = false;
            continue;
          }
        }
        if (running.size === 0 && (state.drained || this.stopping)) break;
        if (running.size === 0) continue; // nothing in flight: claim again (what was held back is free now)
        // Attempts that settled while the claim was under way freed room it did not see; waiting for
        // the next settle to claim it could mean waiting out the timeouts of everything else in flight.
        if (state.wantsClaim(running.size, this.stopping)) continue;
        await Promise.race(running);
      }
    } finally {
      await Promise.allSettled(running);
    }
    return report;
  }

  /** Reads the endpoints and builds the first attempt's bodies of a claimed batch. */
  private async prepare(
    claimed: Claimed[],
    endpoints: Map<string, EndpointsTable | null>,
    bodies: Map<number, string>,
  ): Promise<void> {
    if (claimed.length === 0) return;
    const read = await this.o.queue.endpoints(claimed.map((d) => d.endpointId));
    for (const d of claimed) endpoints.set(d.endpointId, read.get(d.endpointId) ?? null);
    const fresh = claimed.filter((d) => d.body === null);
    const eventIds = [...new Set(fresh.map((d) => d.eventId))];
    const events = await this.o.queue.events(eventIds);
    // The receiving endpoint's watches of each event's flight (docs/watches.md, "Which watch").
    const followed = this.o.fanOut?.followed;
    const watches = followed
      ? await followed.watchesOf(eventIds, [...new Set(fresh.map((d) => d.endpointId))])
      : new Map<string, WatchNamed[]>();
    for (const d of fresh) {
      const event = events.get(d.eventId);
      const endpoint = endpoints.get(d.endpointId);
      if (!event || !endpoint) continue;
      bodies.set(
        d.seq,
        deliveryBody(
          this.o.catalogue,
          d.id,
          event,
          { id: endpoint.id, name: endpoint.name, airports: JSON.parse(endpoint.airports) as string[] },
          watches.get(`${d.eventId} ${d.endpointId}`),
        ),
      );
    }
  }

  /** One attempt, settled; resolves true when the receiver failed it. */
  private async attempt(
    delivery: Claimed,
    endpoint: EndpointsTable | null,
    fresh: string | null,
    report: CycleReport,
  ): Promise<boolean> {
    const { queue, sender, secrets, clock, wallClock, logger } = this.o;
    const body = delivery.body ?? fresh;
    // The endpoint was deleted (its deliveries went with it) or the event is gone: nothing to send.
    // Anything left keeps its lease, so it is looked at again only once the lease runs out.
    if (!endpoint || body === null) return false;
    let outcome;
    try {
      outcome = await sender.send(
        signedAttempt(
          endpoint,
          secrets,
          wallClock,
          body,
          {
            eventId: delivery.eventId,
            eventType: delivery.eventType,
            deliveryId: delivery.id,
            attempt: delivery.attempts + 1,
          },
          clock.now(),
        ),
      );
    } catch (error) {
      // Not the receiver's fault (a secret that does not open): the delivery waits out its lease.
      logger.error(
        { err: error, delivery: delivery.id, endpoint: endpoint.id },
        'webhook delivery could not be attempted',
      );
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
      {
        delivery: delivery.id,
        event: delivery.eventId,
        endpoint: endpoint.id,
        attempt: delivery.attempts + 1,
        status: outcome.status,
        error: outcome.error,
        state: settled.recorded ? settled.state : 'not_recorded',
        ms: outcome.durationMs,
      },
      'webhook attempt',
    );
    if (!settled.recorded) return !outcome.ok;
    if (settled.state === 'delivered') report.delivered++;
    else if (settled.state === 'failed') report.failed++;
    else report.retrying++;
    if (settled.disabledEndpoint) {
      report.disabledEndpoints++;
      logger.warn({ endpoint: endpoint.id }, 'webhook endpoint disabled after consecutive failed deliveries');
      await this.o
        .endpointDisabled?.(endpoint.id, clock.now())
        .catch((error: unknown) => logger.error({ err: error }, 'endpoint notice failed'));
    }
    return !outcome.ok;
  }
}
