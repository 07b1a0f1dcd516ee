// Batches of flights checked at once (docs/batches.md): rows from a JSON array or a CSV
// upload (rows.ts), stored and served by the service (service.ts, routes.ts), run in the worker role
// (runner.ts) on the status endpoint's resolver and admission.
import type { AccountsService } from '../accounts/index.js';
import type { Capability } from '../capability.js';
import type { Clock } from '../clock.js';
import type { BatchConfig } from '../config.js';
import { ConnectionShare, forDialect, type Database } from '../db/index.js';
import type { FlightResolver } from '../flights/index.js';
import type { HttpServer } from '../http/server.js';
import { backgroundReserve, type FlightProvider, type ObservedFlights } from '../providers/index.js';
import type { Logger } from '../logger.js';
import type { Gate, MeteringService } from '../metering/index.js';
import type { AccountEvent } from '../webhooks/index.js';
import { batchRoutes } from './routes.js';
import { BatchRunner } from './runner.js';
import type { AirportDayReads } from './plan.js';
import { BatchService } from './service.js';
import { BatchStore } from './store.js';

export {
  MAX_BATCH_ROWS,
  MAX_REFERENCE_LENGTH,
  rowsFromCsv,
  rowsFromJson,
  type BatchRow,
  type ParsedRows,
  type RowsResult,
} from './rows.js';
export { batchRoutes } from './routes.js';
export { BatchService, type BatchView } from './service.js';
export { BatchRunner } from './runner.js';
export { BATCH_ENDPOINT } from './work.js';
export { CSV_COLUMNS, type ResultRow } from './results.js';
export { MAX_BATCH_BYTES } from './schemas.js';
export { readCsvBodies } from './csv-routes.js';

/**
 * How often an idle worker looks for batches submitted to another process (one submitted to this
 * process is started at once). Every second made test/webhooks-outage.test.ts's timing of a
 * receiver's 1.5-second outage fail about one run in five on SQLite; every 5 seconds it did not.
 */
const POLL_MS = 5_000;
/** Batches pruned per statement group. */
const PRUNE_BATCHES = 50;

/**
 * The share of the PostgreSQL pool a worker's batches run their statements in: half of it (at least
 * one connection), so the other half stays for everything else in the process: metering's grouped
 * credit statements (up to 4 at once), the scheduler's claims and jobs, readiness's retry of a failed
 * metered write and, in one process (role all), the API. SQLite: no share (one connection, no pool).
 * docs/decisions.md, "Batches on a PostgreSQL pool".
 */
export function batchShare(db: Database): ConnectionShare {
  return forDialect(db, {
    sqlite: () => new ConnectionShare(null),
    postgres: ({ poolSize }) => new ConnectionShare(Math.max(1, Math.floor(poolSize / 2))),
  });
}

export interface BatchesDeps {
  db: Database;
  clock: Clock;
  wallClock: Clock;
  logger: Logger;
  gate: Gate;
  metering: MeteringService;
  resolver: FlightResolver;
  accounts: AccountsService;
  /** The configured providers, in order: the first that answers lookups prices the plan. */
  providers: FlightProvider[];
  /** The flights the board poller saw final: the plan's step 3 answers from them (docs/batches.md). */
  observed?: ObservedFlights;
  /** Airports' past days read whole and kept (src/boards/days.ts): the plan's days of step 4, where a provider reads them. */
  airportDays?: AirportDayReads;
  /** Queues an account event (batch.completed) for the account's webhook endpoints. */
  publish: (event: AccountEvent) => Promise<number>;
  config: BatchConfig;
  /** FLIGHTSTATUS_PUBLIC_URL: the results CSV's evidence links start with it (else the request's own address). */
  publicUrl: string | null;
}

/** Batches as a capability: its routes, its runner (started where the process works), and the prune of expired batches. */
export interface Batches extends Capability<HttpServer> {
  service: BatchService;
  runner: BatchRunner;
  /** Deletes batches that expired before `at`. */
  prune(at: number, stopping: AbortSignal): Promise<{ batches: number }>;
}

export function createBatches(deps: BatchesDeps): Batches {
  const store = new BatchStore(deps.db);
  const { config } = deps;
  const primary = deps.providers.find((p) => !p.corroborates);
  // A batch's share of the first provider's budget: the minute's requests less the reserve kept for single lookups.
  const budget = () => {
    const perMinute = primary?.status?.()?.requestsPerMinute ?? null;
    return perMinute === null ? null : perMinute - backgroundReserve(perMinute);
  };
  const runner = new BatchRunner({
    store,
    db: deps.db,
    share: batchShare(deps.db),
    gate: deps.gate,
    metering: deps.metering,
    resolver: deps.resolver,
    accounts: deps.accounts,
    clock: deps.clock,
    wallClock: deps.wallClock,
    logger: deps.logger,
    ...(deps.observed ? { observed: deps.observed } : {}),
    ...(deps.airportDays ? { airportDays: deps.airportDays } : {}),
    options: {
      concurrency: config.concurrency,
      perBatch: config.perBatch,
      leaseMs: config.leaseMs,
      pollMs: POLL_MS,
      retentionMs: config.retentionMs,
    },
    publish: async (batch) => {
      const view = await service.get(batch.account_id, batch.id);
      if (view.kind !== 'ok') return;
      await deps.publish({
        id: `evt_${batch.id}`,
        type: 'batch.completed',
        accountId: batch.account_id,
        createdAt: deps.clock.now(),
        data: { batch: view.value },
      });
    },
  });
  const service = new BatchService({
    store,
    clock: deps.clock,
    retentionMs: config.retentionMs,
    submitted: () => runner.notify(),
    costs: primary?.costs ?? null,
    budget,
  });
  return {
    service,
    runner,
    routes: (scope) => batchRoutes(scope, { batches: service, publicUrl: deps.publicUrl }),
    start: () => runner.start(),
    leased: { batch_lookups: () => store.lookups.lookupCounts(deps.wallClock.now()) },
    stop: () => runner.stop(),
    async prune(at, stopping) {
      let pruned = 0;
      for (;;) {
        if (stopping.aborted) break;
        const removed = await store.prune(at, PRUNE_BATCHES);
        pruned += removed;
        if (removed < PRUNE_BATCHES) break;
      }
      return { batches: pruned };
    },
  };
}
