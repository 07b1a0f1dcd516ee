// The boards capability as the app builds it: the board store (which tells the webhook fan-out what
// it observed), the final rows kept for lookups after the fact, the airport-days read for airports
// nobody watched, and the `board-poll` job (`once`: one process reads each pass's boards).
import type { ReferenceAirports } from '../airports/index.js';
import type { Capability } from '../capability.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/index.js';
import type { Logger } from '../logger.js';
import type { FlightProvider } from '../providers/index.js';
import { AirportDays } from './days.js';
import { createBoardStore } from './dialect.js';
import { ObservedFlightStore } from './observed.js';
import { BoardPoller, type PassReport } from './poller.js';
import type { BoardSubscribers } from './store.js';

export interface BoardsSetup {
  db: Database;
  clock: Clock;
  logger: Logger;
  /** Board watching reads the first configured provider that covers a board. */
  providers: FlightProvider[];
  airports: ReferenceAirports;
  /** Who hears of stored events (the process's webhook fan-out). */
  subscribers: BoardSubscribers;
  config: { pollIntervalMs: number; providerTimeoutMs: number; observedRetentionMs: number };
  /** Told of each pass and how long it took (metrics). */
  passed: (report: PassReport, seconds: number) => void;
}

export function boardsCapability(setup: BoardsSetup) {
  const { db, clock, logger, providers, airports, config } = setup;
  const store = createBoardStore(db, setup.subscribers);
  // Final board rows: kept by the poll and by days read after the fact (days.ts), answered from by batches.
  const observed = new ObservedFlightStore(db);
  const days = new AirportDays({ providers, observed, airports, clock, timeoutMs: config.providerTimeoutMs });
  const poller = new BoardPoller({
    store,
    providers,
    airports,
    logger,
    providerTimeoutMs: config.providerTimeoutMs,
    intervalMs: config.pollIntervalMs,
    observed: { store: observed, retentionMs: config.observedRetentionMs },
  });
  return {
    store,
    observed,
    days,
    poller,
    jobs: [
      {
        name: 'board-poll',
        intervalMs: config.pollIntervalMs,
        once: true,
        run: async (at, stopping) => {
          const started = performance.now();
          const report = await poller.pass(at, stopping);
          setup.passed(report, (performance.now() - started) / 1000);
          logger.info(report, 'board poll pass');
        },
      },
    ],
  } satisfies Capability & Record<string, unknown>;
}
