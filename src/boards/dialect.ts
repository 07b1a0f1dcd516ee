// What the boards do differently on each database: the board store (store-sqlite.ts,
// store-postgres.ts) and the kept board rows (observed.ts), in observed-sqlite.ts and
// observed-postgres.ts, both of the shape observed-shapes.ts gives.
import type { BoardHistory } from '../circumstances/index.js';
import { forDialect, type Database } from '../db/index.js';
import type { BoardStore, BoardSubscribers } from './store.js';
import { PostgresBoardStore } from './store-postgres.js';
import { SqliteBoardStore } from './store-sqlite.js';
import type { ObservedDialect } from './observed-shapes.js';
import { postgresObserved } from './observed-postgres.js';
import { sqliteObserved } from './observed-sqlite.js';

export type { ObservedDialect, ObservedWrite } from './observed-shapes.js';

export function observedDialect(db: Database): ObservedDialect {
  return forDialect<ObservedDialect>(db, { sqlite: sqliteObserved, postgres: postgresObserved });
}

/** `subscribers`: who hears of stored events (the process's webhook fan-out, shared with the delivery worker). */
export function createBoardStore(db: Database, subscribers: BoardSubscribers): BoardStore & BoardHistory {
  return forDialect<BoardStore & BoardHistory>(db, {
    sqlite: (sqlite) => new SqliteBoardStore(sqlite, subscribers),
    postgres: (postgres) => new PostgresBoardStore(postgres, subscribers),
  });
}
