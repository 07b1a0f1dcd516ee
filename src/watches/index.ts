// Watches of flights (docs/watches.md): an account's standing interest in one flight, bound to its
// webhook endpoints, created one at a time, as a JSON array or a CSV upload (rows read by the
// batches' parser), each paid for with one credit at creation. Their flights' board events go to
// their endpoints through the webhook fan-out, which they subscribe to (subscriptions.ts); a job ends
// each once its flight's record is complete, with a final `flight.settled` (settle.ts).
import type { ReferenceAirports } from '../airports/index.js';
import type { Capability } from '../capability.js';
import type { FollowConfig } from '../config.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/index.js';
import type { FlightResolver } from '../flights/index.js';
import type { HttpServer } from '../http/server.js';
import type { Logger } from '../logger.js';
import type { FlightProvider, FlightLookup, ObservedFlights } from '../providers/index.js';
import type { MeteringService, RefusalLog } from '../metering/index.js';
import type { FanOut, WebhookService } from '../webhooks/index.js';
import type { BoardStore } from '../boards/index.js';
import { watchRoutes } from './routes.js';
import { WatchService } from './service.js';
import { WatchFollower } from './follow.js';
import { FollowedRecords } from './follow-records.js';
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
  SETTLE_MAX_CHECKS,
  settleBackoffMs,
  WatchSettler,
  settledEventId,
  type SettleReport,
} from './settle.js';

export { FOLLOW_PER_RUN, WatchFollower, type FollowReport } from './follow.js';

export interface WatchesDeps {
  db: Database;
  clock: Clock;
  metering: MeteringService;
  /** Counts a creation refused for want of credits, as the guard counts a lookup's 429. */
  refusals: Pick<RefusalLog, 'note'>;
  /** The account's webhook endpoints (a watch sends only to its own), and the fan-out its events go through. */
  hooks: { webhooks: WebhookService; fanOut: Pick<FanOut, 'follow' | 'publish' | 'options' | 'watchedAirports'> };
  /** What the service already holds of a flight (a settled record's replay), and its settled record, asked without a credit. */
  flights: { resolver: FlightResolver };
  /** The flights the board poller saw final: most watches settle from them without a provider request. */
  boards: { observed?: ObservedFlights; store?: Pick<BoardStore, 'watchOf'> };
  logger: Logger;
  /** Makes the evidence URL of `flight.settled` absolute. */
  baseUrl: string;
  /** The flight providers following asks, and the airports its events' compensation is assessed by. */
  providers: FlightProvider[];
  airports: ReferenceAirports;
  config: { follow: FollowConfig; providerTimeoutMs: number };
}

/** Watches as a capability: the service and its routes. */
export interface Watches extends Capability<HttpServer> {
  service: WatchService;
  settler: WatchSettler;
  follower: WatchFollower;
}

export function createWatches(deps: WatchesDeps): Watches {
  const follower = new WatchFollower({
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    providers: deps.providers,
    airports: deps.airports,
    catalogue: deps.hooks.fanOut.options.catalogue ?? (() => null),
    polled: (at) => deps.hooks.fanOut.watchedAirports(at),
    ...(deps.boards.store ? { boardMemory: deps.boards.store.watchOf.bind(deps.boards.store) } : {}),
    publish: () => deps.hooks.fanOut.publish(),
    budgets: deps.config.follow,
    intervalMs: deps.config.follow.intervalMs,
    providerTimeoutMs: deps.config.providerTimeoutMs,
  });
  const subscriptions = new WatchSubscriptions(deps.db, follower.list);
  // The fan-out sends a watched flight's events to the watches' endpoints (docs/watches.md, "Events").
  deps.hooks.fanOut.follow(subscriptions);
  const store = new WatchStore(deps.db);
  // A watch whose last endpoint is deleted stops with it: it would send to no one.
  deps.hooks.webhooks.alsoOnRemove((accountId, endpointId, at) => store.orphanStops(accountId, endpointId, at));
  const service = new WatchService({
    store,
    subscriptions,
    clock: deps.clock,
    metering: deps.metering,
    refusals: deps.refusals,
    webhooks: deps.hooks.webhooks,
    resolver: deps.flights.resolver,
    enrolments: (watches, at) => follower.list.enrolments(watches, at),
  });
  // A settled record is taken from the boards' kept rows, else from following's last answer: no request again.
  const followed = new FollowedRecords(deps.db);
  const boardsSaw = deps.boards.observed;
  const observed: ObservedFlights = {
    find: async (lookup: FlightLookup) => (boardsSaw ? await boardsSaw.find(lookup) : null) ?? followed.find(lookup),
  };
  const settler = new WatchSettler({
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    resolver: deps.flights.resolver,
    observed,
    baseUrl: deps.baseUrl,
  });
  return {
    service,
    settler,
    follower,
    routes: (scope) => watchRoutes(scope, { watches: service, clock: deps.clock }),
    // Once per slot across processes: a watch is ended (and its event queued) by one run.
    jobs: [
      {
        // Watched flights no polled board shows, asked of the providers when their phase calls for it.
        name: 'watch-follow',
        intervalMs: deps.config.follow.intervalMs,
        once: true,
        run: async (at, stopping) => {
          const report = await follower.run(at, stopping);
          if (report.asked > 0 || report.deferred > 0)
            deps.logger.info({ job: 'watch-follow', ...report }, 'watched flights followed');
        },
      },
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
