// Watches of flights (docs/watches.md): an account's standing interest in one flight, bound to its
// webhook endpoints, created one at a time, as a JSON array or a CSV upload (rows read by the
// batches' parser), each paid for with one credit at creation. Their flights' board events go to
// their endpoints through the webhook fan-out, which they subscribe to (subscriptions.ts); a job ends
// each once its flight's record is complete, with a final `flight.settled` (settle.ts).
import type { Capability } from '../capability.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/index.js';
import type { FlightResolver } from '../flights/index.js';
import type { HttpServer } from '../http/server.js';
import type { Logger } from '../logger.js';
import type { ObservedFlights } from '../providers/index.js';
import type { MeteringService, RefusalLog } from '../metering/index.js';
import type { FanOut, WebhookService } from '../webhooks/index.js';
import { watchRoutes } from './routes.js';
import { WatchService } from './service.js';
import { SETTLE_INTERVAL_MS, WatchSettler } from './settle.js';
import { WatchStore } from './store.js';
import { WatchSubscriptions } from './subscriptions.js';

export {
  MAX_ACTIVE_WATCHES,
  WATCH_EVENTS_SHOWN,
  WATCH_PAGE,
  WATCH_STATES,
  WATCH_USAGE_ENDPOINT,
  WatchService,
  type WatchView,
  type WatchDetail,
  type WatchEvent,
} from './service.js';
export { MAX_WATCHES_PER_REQUEST, watchesFromCsv } from './input.js';
export {
  SETTLE_AFTER_MS,
  SETTLE_INTERVAL_MS,
  SETTLE_PER_RUN,
  WatchSettler,
  settledEventId,
  type SettleReport,
} from './settle.js';

export interface WatchesDeps {
  db: Database;
  clock: Clock;
  metering: MeteringService;
  /** Counts a creation refused for want of credits, as the guard counts a lookup's 429. */
  refusals: Pick<RefusalLog, 'note'>;
  /** The account's webhook endpoints (a watch sends only to its own), and the fan-out its events go through. */
  hooks: { webhooks: WebhookService; fanOut: Pick<FanOut, 'follow'> };
  /** What the service already holds of a flight (a settled record's replay), and its settled record, asked without a credit. */
  flights: { resolver: FlightResolver };
  /** The flights the board poller saw final: most watches settle from them without a provider request. */
  boards: { observed?: ObservedFlights };
  logger: Logger;
  /** Makes the evidence URL of `flight.settled` absolute. */
  baseUrl: string;
}

/** Watches as a capability: the service and its routes. */
export interface Watches extends Capability<HttpServer> {
  service: WatchService;
  settler: WatchSettler;
}

export function createWatches(deps: WatchesDeps): Watches {
  const subscriptions = new WatchSubscriptions(deps.db);
  // The fan-out sends a watched flight's events to the watches' endpoints (docs/watches.md, "Events").
  deps.hooks.fanOut.follow(subscriptions);
  const service = new WatchService({
    store: new WatchStore(deps.db),
    subscriptions,
    clock: deps.clock,
    metering: deps.metering,
    refusals: deps.refusals,
    webhooks: deps.hooks.webhooks,
    resolver: deps.flights.resolver,
  });
  const settler = new WatchSettler({
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    resolver: deps.flights.resolver,
    ...(deps.boards.observed ? { observed: deps.boards.observed } : {}),
    baseUrl: deps.baseUrl,
  });
  return {
    service,
    settler,
    routes: (scope) => watchRoutes(scope, { watches: service, clock: deps.clock }),
    // Once per slot across processes: a watch is ended (and its event queued) by one run.
    jobs: [
      {
        name: 'watch-settle',
        intervalMs: SETTLE_INTERVAL_MS,
        once: true,
        run: async (at, stopping) => {
          const report = await settler.run(at, stopping);
          if (report.asked > 0) deps.logger.info({ job: 'watch-settle', ...report }, 'watches settled');
        },
      },
    ],
  };
}
