// The webhooks capability as the app builds it: endpoints and their routes, the fan-out the boards
// publish through, the delivery cycle every worker runs (`webhook-deliver`: not `once`, every worker
// takes deliveries from the shared queue and its claims keep each to one), and the retention prune.
import { setTimeout as delay } from 'node:timers/promises';
import type { AirportCatalogue } from '../airports/index.js';
import type { Capability } from '../capability.js';
import { ManualClock, systemClock, type Clock } from '../clock.js';
import type { WebhookConfig } from '../config.js';
import type { Database } from '../db/index.js';
import type { HttpServer } from '../http/server.js';
import type { Logger } from '../logger.js';
import { createDeliveryQueue } from './dialect.js';
import { FanOut } from './fanout.js';
import { endpointsSelecting } from './repository.js';
import { Retention } from './retention.js';
import { webhookRoutes } from './routes.js';
import type { SecretBox } from './secrets.js';
import { Sender } from './sender.js';
import type { EndpointNotices } from './notices.js';
import { WebhookService } from './service.js';
import { DeliveryWorker, type CycleReport } from './worker.js';

export interface WebhooksSetup {
  db: Database;
  clock: Clock;
  logger: Logger;
  config: WebhookConfig;
  /** FLIGHTSTATUS_RETENTION_DAYS: settled deliveries, their events and skipped fan-out rows older than this go. */
  retentionMs: number;
  catalogue: AirportCatalogue;
  secrets: SecretBox;
  notices: EndpointNotices;
  /** Told of each delivery cycle (metrics). */
  cycled: (report: CycleReport) => void;
}

export function webhooksCapability(setup: WebhooksSetup) {
  const { db, clock, logger, config, catalogue, secrets } = setup;
  // One fan-out per process: the board store starts it after each board's save, the delivery worker
  // at the start of each cycle (to finish one a crash cut short).
  const fanOut = new FanOut(db, {
    keepSkippedMs: setup.retentionMs,
    catalogue: (iata) => catalogue.find(iata)?.iata ?? null,
  });
  const policy = { allowHttp: config.allowHttp, allowPrivate: config.allowPrivate };
  const sender = new Sender({ policy, timeoutMs: config.timeoutMs, socketsPerHost: config.concurrency });
  const webhooks = new WebhookService({
    db,
    clock,
    wallClock: systemClock,
    catalogue,
    secrets,
    sender,
    policy,
    notices: setup.notices,
  });
  const deliveries = new DeliveryWorker({
    queue: createDeliveryQueue(db, { cycleMs: config.intervalMs }),
    fanOut,
    sender,
    secrets,
    catalogue,
    clock,
    wallClock: systemClock,
    logger,
    concurrency: config.concurrency,
    perEndpoint: config.perEndpoint,
    cycleMs: config.intervalMs,
    endpointDisabled: (id, at) => webhooks.reportDisabled(id, at),
    sleep: clock instanceof ManualClock ? null : (ms, signal) => delay(ms, undefined, { signal }).catch(() => {}),
  });
  const retention = new Retention(db);
  return {
    webhooks,
    fanOut,
    deliveries,
    /** How many endpoints select an airport (the catalogue keeps an airport in use: docs/airports.md). */
    selecting: (iata: string) => endpointsSelecting(db, iata),
    routes: (scope) => webhookRoutes(scope, { webhooks }),
    jobs: [
      {
        name: 'webhook-deliver',
        intervalMs: config.intervalMs,
        run: async () => {
          const report = await deliveries.cycle();
          setup.cycled(report);
          if (report.attempted > 0) logger.info(report, 'webhook delivery cycle');
        },
      },
    ],
    prune: async (at, stopping) => {
      const report = await retention.prune(at - setup.retentionMs, stopping);
      return { board_events: report.events, deliveries: report.deliveries, delivery_attempts: report.attempts };
    },
    // The cycle gives back what it claimed but did not start.
    stop: () => deliveries.stop(),
    close: () => sender.close(),
  } satisfies Capability<HttpServer> & Record<string, unknown>;
}
