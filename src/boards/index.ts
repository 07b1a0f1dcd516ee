import { forDialect, type Database } from '../db/index.js';
import type { BoardHistory } from '../circumstances/index.js';
import type { BoardStore, BoardSubscribers } from './store.js';
import { PostgresBoardStore } from './store-postgres.js';
import { SqliteBoardStore } from './store-sqlite.js';

export { observe, disruptionOf, delayOf, EVENT_TYPES, type Watch, type Disruption, type EventType } from './engine.js';
export { BoardPoller, POLL_INTERVAL_MS, RETIRE_AFTER_MS, type PassReport } from './poller.js';
export { WINDOW_BEFORE_MS, WINDOW_AFTER_MS } from './store.js';
export type { BoardStore, BoardSubscribers } from './store.js';
export { ObservedFlightStore } from './observed.js';
export { AirportDays, DAY_SETTLES, type AirportDaysDeps } from './days.js';

/** `subscribers`: who hears of stored events (the process's webhook fan-out, shared with the delivery worker). */
export function createBoardStore(db: Database, subscribers: BoardSubscribers): BoardStore & BoardHistory {
  return forDialect<BoardStore & BoardHistory>(db, {
    sqlite: (sqlite) => new SqliteBoardStore(sqlite, subscribers),
    postgres: (postgres) => new PostgresBoardStore(postgres, subscribers),
  });
}
