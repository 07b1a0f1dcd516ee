// Runs batches in the worker role (docs/batches.md, "Running"). A lookup is the unit of work: the
// runner claims a batch's lookups in chunks with a lease, and work.ts answers a chunk (one credit per
// row through the status endpoint's admission, each lookup resolved once on the same resolver, the
// chunk's answers and charges written together while the leases are still the runner's).
//
// - Bounded: at most `concurrency` lookups in flight per process, `perBatch` of them for one batch;
//   their statements (and the runner's) wait for room in the batches' share of the database pool
//   (db/share.ts: half of it on PostgreSQL), in order and without a deadline, so more lookups in
//   flight than connections is back-pressure, and the rest of the pool stays free for the API, the
//   jobs and the credits. A lookup waiting on a provider holds no connection and no place there.
// - Fair: each free slot goes to the account served least recently, so one account's 10,000 rows
//   do not hold back another's 10.
// - Resumable: a worker killed mid-batch leaves leases that run out; the next worker takes those
//   lookups again. A row that was charged before the kill finds its usage row (by its marker, the
//   batch and row in the usage row's query) instead of taking a second credit.
// - Several workers on one PostgreSQL share a batch: the claim skips lookups another holds.
import { setMaxListeners } from 'node:events';
import type { ObservedFlights } from '../providers/index.js';
import { principalFor, type AccountsService } from '../accounts/index.js';
import type { Principal } from '../auth/index.js';
import type { Clock } from '../clock.js';
import type { ConnectionShare, Database } from '../db/index.js';
import type { FlightResolver } from '../flights/index.js';
import type { Logger } from '../logger.js';
import type { Gate, MeteringService } from '../metering/index.js';
import { DepartureDayCache, type AirportDayReads } from './plan.js';
import type { BatchRecord, BatchStore, Claimed } from './store.js';
import { answerChunk, type WorkDeps } from './work.js';

/** Lookups of one batch claimed and answered together. */
const CHUNK = 16;
/** How long an account's plan and state, as read, serve its batches' admissions. */
const PRINCIPAL_TTL_MS = 1_000;

export interface RunnerOptions {
  concurrency: number;
  perBatch: number;
  /** How long a claimed lookup is held; past it, another worker takes it over. */
  leaseMs: number;
  /** How often an idle runner looks for work it was not told about (batches submitted to another process). */
  pollMs: number;
  /** How long a finished batch is kept. */
  retentionMs: number;
}

export interface RunnerDeps {
  store: BatchStore;
  db: Database;
  /**
   * The batches' share of the database pool (db/share.ts): every statement the runner and its
   * lookups run waits for room in it, so they never hold more connections than it has.
   */
  share: ConnectionShare;
  gate: Gate;
  metering: MeteringService;
  resolver: FlightResolver;
  accounts: AccountsService;
  clock: Clock;
  /** Leases and retries: real time, whatever the service clock. */
  wallClock: Clock;
  logger: Logger;
  /** The flights the board poller saw final (plan step 3); absent: every lookup asks the providers. */
  observed?: ObservedFlights;
  /** Airports' past days read whole and kept: the plan's days, where a provider reads them (work.ts). */
  airportDays?: AirportDayReads;
  /** Hands a finished batch's batch.completed event to the account's webhook endpoints. */
  publish: (batch: BatchRecord) => Promise<void>;
  options: RunnerOptions;
}

type ActiveBatch = Awaited<ReturnType<BatchStore['active']>>[number];

export class BatchRunner {
  private inflight = 0;
  private readonly perBatch = new Map<string, number>();
  /** Account → when it was last given a slot (a counter). */
  private readonly served = new Map<string, number>();
  private turn = 0;
  private readonly principals = new Map<string, { principal: Principal; until: number }>();
  private readonly stopping = new AbortController();
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private readonly tasks = new Set<Promise<void>>();
  /** A batch was completed here since the last announce. */
  private completed = false;
  private readonly work: WorkDeps;

  constructor(private readonly deps: RunnerDeps) {
    this.work = { ...deps, days: new DepartureDayCache(), stopping: this.stopping.signal };
    // Each lookup in flight listens for the stop (its resolve, its airport-day read) and lets go when it
    // ends: up to twice options.concurrency listeners, past Node's warning threshold of 10.
    setMaxListeners(Math.max(10, deps.options.concurrency * 2), this.stopping.signal);
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Work may be waiting (a batch was submitted in this process): look now. */
  notify(): void {
    this.wake?.();
  }

  /**
   * Stops claiming; lookups in flight finish and are written, but a provider call still waiting is
   * cut short and its lookup given back (work.ts), so a shutdown does not wait out a budget.
   */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.notify();
    await this.loop;
    await Promise.allSettled([...this.tasks]);
  }

  private async run(): Promise<void> {
    const { logger, options } = this.deps;
    let polled = true;
    while (!this.stopping.signal.aborted) {
      try {
        await this.fill();
        if (this.completed || polled) await this.announce();
      } catch (error) {
        logger.error({ err: error }, 'batch runner pass failed; trying again');
      }
      if (this.stopping.signal.aborted) break;
      polled = await new Promise<boolean>((resolve) => {
        const done = (byTimer: boolean) => {
          this.wake = null;
          clearTimeout(timer);
          resolve(byTimer);
        };
        const timer = setTimeout(() => done(true), options.pollMs);
        this.wake = () => done(false);
      });
    }
  }

  /** Claims work for free slots, account by account, least recently served first. */
  private async fill(): Promise<void> {
    const { store, options, wallClock, share } = this.deps;
    for (;;) {
      if (this.inflight >= options.concurrency) return;
      const active = await share.run(() => store.active());
      if (active.length === 0) return;
      const byAccount = new Map<string, ActiveBatch[]>();
      for (const batch of active) byAccount.set(batch.account_id, [...(byAccount.get(batch.account_id) ?? []), batch]);
      const accounts = [...byAccount.keys()].sort((a, b) => (this.served.get(a) ?? 0) - (this.served.get(b) ?? 0));
      let claimed = 0;
      for (const account of accounts) {
        for (const batch of byAccount.get(account)!) {
          const room = Math.min(
            CHUNK,
            options.perBatch - (this.perBatch.get(batch.id) ?? 0),
            options.concurrency - this.inflight,
          );
          if (room <= 0) continue;
          const now = wallClock.now();
          const lookups = await share.run(() => store.lookups.claim(batch.id, room, now, options.leaseMs));
          if (lookups.length === 0) {
            if (!this.perBatch.get(batch.id)) await this.complete(batch.id);
            continue;
          }
          if (batch.state === 'queued') await share.run(() => store.markStarted(batch.id, this.deps.clock.now()));
          this.served.set(account, ++this.turn);
          claimed += lookups.length;
          this.spawn(batch, lookups);
          break; // one batch per account per round
        }
        if (this.inflight >= options.concurrency) return;
      }
      if (claimed === 0) return;
    }
  }

  private spawn(batch: ActiveBatch, lookups: Claimed[]): void {
    const n = lookups.length;
    this.inflight += n;
    this.perBatch.set(batch.id, (this.perBatch.get(batch.id) ?? 0) + n);
    const task = this.principal(batch)
      .then((principal) => answerChunk(this.work, batch, lookups, principal))
      .catch((error) =>
        this.deps.logger.error(
          { err: error, batch: batch.id, lookups: lookups.map((l) => l.seq) },
          'batch lookups failed; their leases will run out and they are taken again',
        ),
      )
      .finally(async () => {
        this.inflight -= n;
        const left = (this.perBatch.get(batch.id) ?? n) - n;
        if (left === 0) {
          this.perBatch.delete(batch.id);
          this.principals.delete(batch.id);
        } else this.perBatch.set(batch.id, left);
        this.tasks.delete(task);
        if (left === 0) await this.complete(batch.id).catch(() => {});
        this.notify();
      });
    this.tasks.add(task);
  }

  /** Marks the batch done when nothing is left of it (any process may; one succeeds). */
  private async complete(batchId: string): Promise<void> {
    const at = this.deps.clock.now();
    const { store, share, options } = this.deps;
    if (await share.run(() => store.complete(batchId, at, at + options.retentionMs))) {
      this.completed = true;
      this.notify();
    }
  }

  /** Hands the batch.completed events of finished batches to the webhooks, once each. */
  private async announce(): Promise<void> {
    const { store, publish, share } = this.deps;
    this.completed = false;
    for (const batch of await share.run(() => store.unnotified(20))) {
      await publish(batch);
      await share.run(() => store.markNotified(batch.id));
    }
  }

  /** The batch's caller, acting for its account as it is now (plan, state), read at most once a second. */
  private async principal(batch: ActiveBatch): Promise<Principal> {
    const now = this.deps.wallClock.now();
    const cached = this.principals.get(batch.id);
    if (cached && cached.until > now) return cached.principal;
    const account = await this.deps.accounts.describe(batch.account_id);
    if (account.kind !== 'ok') throw new Error(`batch ${batch.id}: account ${batch.account_id}: ${account.message}`);
    const principal = principalFor(account.value, { id: batch.caller_id, name: batch.caller_name, prefix: 'batch' });
    this.principals.set(batch.id, { principal, until: now + PRINCIPAL_TTL_MS });
    return principal;
  }
}
