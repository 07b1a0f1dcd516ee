// Runs batches in the worker role (docs/batches.md, "Running"). A lookup is the unit of work: the
// runner claims lookups with a lease, takes one credit per row through the same admission as the
// status endpoint, resolves the lookup once on the same resolver, and writes the answer and the rows'
// charges together while the lease is still its own.
//
// - Bounded: at most `concurrency` lookups in flight per process, `perBatch` of them for one batch.
// - Fair: each free slot goes to the account served least recently, so one account's 10,000 rows
//   do not hold back another's 10.
// - Resumable: a worker killed mid-batch leaves leases that run out; the next worker takes those
//   lookups again. A row that was charged before the kill finds its usage row (by its marker, the
//   batch and row in the usage row's query) instead of taking a second credit.
// - Several workers on one PostgreSQL share a batch: the claim skips lookups another holds.
import { principalFor, type AccountsService } from '../accounts/index.js';
import type { Principal } from '../auth/index.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/index.js';
import { parseFlightQuery, type FlightQuery, type FlightResolver, type FlightStatusData, type ResolveContext } from '../flights/index.js';
import type { Logger } from '../logger.js';
import { chargeOf, type Admission, type Gate, type MeteringService } from '../metering/index.js';
import { DepartureDayCache } from './plan.js';
import { failed, outcomeOf, summarise, type LookupAnswer } from './results.js';
import type { BatchRecord, BatchStore, Claimed, OpenRow } from './store.js';

/** The usage rows of batch rows say this endpoint; their query is the row's, with its batch and row. */
export const BATCH_ENDPOINT = 'POST /api/v1/batches';
/** Attempts of a lookup whose providers could not be asked, before its rows get the error. */
export const MAX_ATTEMPTS = 3;
/** Wait before a lookup whose providers could not be asked is tried again, times the attempt. */
const RETRY_AFTER_MS = 5_000;
/**
 * A batch lookup's provider deadline: its calls may wait for the batch's share of the budget
 * (upstream.ts, backgroundReserve), which a single lookup never waits for.
 */
const BATCH_CALL_TIMEOUT_MS = 120_000;
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
  gate: Gate;
  metering: MeteringService;
  resolver: FlightResolver;
  accounts: AccountsService;
  clock: Clock;
  /** Leases and retries: real time, whatever the service clock. */
  wallClock: Clock;
  logger: Logger;
  /** Hands a finished batch's batch.completed event to the account's webhook endpoints. */
  publish: (batch: BatchRecord) => Promise<void>;
  options: RunnerOptions;
}

type ActiveBatch = Awaited<ReturnType<BatchStore['active']>>[number];

/** The usage row's query of one batch row: what finds its credit again. */
export const marker = (batchId: string, query: string, position: number): string => `${query}&batch=${batchId}&row=${position}`;

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
  /** Days of departures read for the plans of this process's lookups. */
  private readonly days = new DepartureDayCache();

  constructor(private readonly deps: RunnerDeps) {}

  start(): void {
    this.loop ??= this.run();
  }

  /** Work may be waiting (a batch was submitted in this process): look now. */
  notify(): void {
    this.wake?.();
  }

  /** Stops claiming; lookups in flight finish and are written. */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.notify();
    await this.loop;
    await Promise.allSettled([...this.tasks]);
  }

  private async run(): Promise<void> {
    const { logger, options } = this.deps;
    while (!this.stopping.signal.aborted) {
      try {
        await this.fill();
        await this.announce();
      } catch (error) {
        logger.error({ err: error }, 'batch runner pass failed; trying again');
      }
      if (this.stopping.signal.aborted) break;
      await new Promise<void>((resolve) => {
        const done = () => {
          this.wake = null;
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(done, options.pollMs);
        this.wake = done;
      });
    }
  }

  /** Claims work for free slots, account by account, least recently served first. */
  private async fill(): Promise<void> {
    const { store, options, wallClock } = this.deps;
    for (;;) {
      if (this.inflight >= options.concurrency) return;
      const active = await store.active();
      if (active.length === 0) return;
      const byAccount = new Map<string, ActiveBatch[]>();
      for (const batch of active) byAccount.set(batch.account_id, [...(byAccount.get(batch.account_id) ?? []), batch]);
      const accounts = [...byAccount.keys()].sort((a, b) => (this.served.get(a) ?? 0) - (this.served.get(b) ?? 0));
      let claimed = 0;
      for (const account of accounts) {
        for (const batch of byAccount.get(account)!) {
          const room = Math.min(options.perBatch - (this.perBatch.get(batch.id) ?? 0), options.concurrency - this.inflight);
          if (room <= 0) continue;
          const now = wallClock.now();
          const lookups = await store.claim(batch.id, room, now, now + options.leaseMs);
          if (lookups.length === 0) {
            if (!this.perBatch.get(batch.id)) await this.complete(batch.id);
            continue;
          }
          if (batch.state === 'queued') await store.markStarted(batch.id, this.deps.clock.now());
          this.served.set(account, ++this.turn);
          claimed += lookups.length;
          for (const lookup of lookups) this.spawn(batch, lookup);
          break; // one batch per account per round
        }
        if (this.inflight >= options.concurrency) return;
      }
      if (claimed === 0) return;
    }
  }

  private spawn(batch: ActiveBatch, lookup: Claimed): void {
    this.inflight++;
    this.perBatch.set(batch.id, (this.perBatch.get(batch.id) ?? 0) + 1);
    const task = this.process(batch, lookup)
      .catch((error) => this.deps.logger.error({ err: error, batch: batch.id, lookup: lookup.seq }, 'batch lookup failed; its lease will run out and it is taken again'))
      .finally(async () => {
        this.inflight--;
        const left = (this.perBatch.get(batch.id) ?? 1) - 1;
        if (left === 0) {
          this.perBatch.delete(batch.id);
          this.principals.delete(batch.id);
        }
        else this.perBatch.set(batch.id, left);
        this.tasks.delete(task);
        if (left === 0) await this.complete(batch.id).catch(() => {});
        this.notify();
      });
    this.tasks.add(task);
  }

  /** Marks the batch done when nothing is left of it (any process may; one succeeds). */
  private async complete(batchId: string): Promise<void> {
    const at = this.deps.clock.now();
    if (await this.deps.store.complete(batchId, at, at + this.deps.options.retentionMs)) this.notify();
  }

  /** Hands the batch.completed events of finished batches to the webhooks, once each. */
  private async announce(): Promise<void> {
    const { store, publish } = this.deps;
    for (const batch of await store.unnotified(20)) {
      await publish(batch);
      await store.markNotified(batch.id);
    }
  }

  private async process(batch: ActiveBatch, lookup: Claimed): Promise<void> {
    const { store, gate, metering, resolver, clock } = this.deps;
    const rows = await store.openRows(batch.id, [lookup.seq]);
    const parsed = parseFlightQuery(Object.fromEntries(new URLSearchParams(lookup.query)));
    const at = clock.now();
    if (!parsed.ok) throw new Error(`stored lookup ${lookup.query} no longer parses: ${parsed.message}`);

    // One credit per row, in input order; a refusal stops the batch at the ceiling.
    const charges: { position: number; usageId: number }[] = [];
    const refused: OpenRow[] = [];
    let reason: string | null = null;
    const principal = await this.principal(batch);
    for (const row of rows) {
      if (reason) {
        refused.push(row);
        continue;
      }
      const query = marker(batch.id, lookup.query, row.position);
      let usageId = row.usageId ?? (lookup.attempts > 1 ? await chargeOf(this.deps.db, batch.account_id, BATCH_ENDPOINT, query, batch.created_at) : null);
      if (usageId === null) {
        const admission = await gate.admitPrincipal(principal, { at: clock.now(), endpoint: BATCH_ENDPOINT, query });
        if (admission.kind === 'admitted' && admission.charge) usageId = admission.charge.usageId;
        else {
          reason = refusal(admission);
          refused.push(row);
          continue;
        }
      }
      charges.push({ position: row.position, usageId });
    }

    let answer: LookupAnswer;
    let status = 200;
    // The provider requests this lookup sends, a day of departures it reads for others included.
    const meter = { requests: 0 };
    const began = performance.now();
    if (charges.length === 0) answer = failed(reason ?? 'nothing to answer');
    else {
      const resolved = await this.resolve(parsed.query, `${batch.id}:${lookup.seq}`, { meter, background: true, departures: this.days.for(lookup.plan), timeoutMs: BATCH_CALL_TIMEOUT_MS });
      if ('retry' in resolved) {
        if (lookup.attempts < MAX_ATTEMPTS && !this.stopping.signal.aborted) {
          await store.release(batch.id, lookup, charges, meter.requests, this.deps.wallClock.now() + RETRY_AFTER_MS * lookup.attempts);
          if (reason) await store.stop(batch.id, reason, at);
          return;
        }
        answer = failed(resolved.retry);
        status = 500;
      } else answer = resolved.answer;
    }
    const durationMs = performance.now() - began;
    await Promise.all(charges.map((c) => metering.settleUsage({ usageId: c.usageId, status, durationMs })));
    await store.write({
      batchId: batch.id,
      lookup,
      result: JSON.stringify({ ...answer, providerCalls: meter.requests }),
      outcome: outcomeOf(answer),
      calls: meter.requests,
      rows: [
        ...charges.map((c) => ({ position: c.position, usageId: c.usageId, state: 'done' as const, error: answer.error })),
        ...refused.map((r) => ({ position: r.position, usageId: null, state: 'refused' as const, error: reason })),
      ],
      at: clock.now(),
    });
    if (reason) await store.stop(batch.id, reason, clock.now());
  }

  private async resolve(query: FlightQuery, requestId: string, call: ResolveContext['call']): Promise<{ answer: LookupAnswer } | { retry: string }> {
    try {
      const data = await this.deps.resolver.resolve(query, { signal: this.stopping.signal, requestId: `batch:${requestId}`, call });
      if ('unavailable' in data) return { retry: data.unavailable };
      return { answer: summarise('json' in data ? (JSON.parse(data.json) as FlightStatusData) : data) };
    } catch (error) {
      this.deps.logger.error({ err: error, lookup: requestId }, 'batch lookup could not be resolved');
      return { retry: 'The lookup failed on our side; it was tried again and failed each time.' };
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

/** Why a row was refused, as the status endpoint would have said it (429, 402, 403). */
function refusal(admission: Admission): string {
  switch (admission.kind) {
    case 'exhausted':
      return 'allowance_exhausted: the allowance of this window is used up and overage is off (a single lookup would have answered 429)';
    case 'payment_required':
      return `payment_required: ${admission.reason.replace('_', ' ')} (a single lookup would have answered 402)`;
    case 'forbidden':
      return `forbidden: ${admission.reason.replace('_', ' ')} (a single lookup would have answered 403)`;
    default:
      return 'refused';
  }
}
