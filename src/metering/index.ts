import { createKeyLookup, SqliteKeyLookup } from '../auth/index.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/index.js';
import { createGate, type Gate } from './gate.js';
import { MeteringService } from './service.js';
import { PostgresMeteringStore } from './store-postgres.js';
import { SqliteMeteringStore } from './store-sqlite.js';

export { MeteringService } from './service.js';
export type { Admission, Gate, UsageDraft } from './gate.js';
export { creditHeaders, retryAfter } from './headers.js';
export { windowAt, policyOf, positionOf, WINDOW_MS, type CreditPosition, type Window } from './window.js';
export { PENDING_STATUS, type Charge, type UsageRow } from './store.js';
export { usageByDay, lastUsedByKey, billableOverage, type DailyUsage } from './usage.js';
export { RefusalLog, refusalsByDay } from './refusals.js';

/** The metering service and the admission gate, over one store. */
export function createMetering(db: Database, clock: Clock): { metering: MeteringService; gate: Gate } {
  if (db.kind === 'sqlite') {
    const store = new SqliteMeteringStore(db.sqlite, db.group);
    const keys = new SqliteKeyLookup(db.sqlite, db.group);
    return {
      metering: new MeteringService(store),
      gate: createGate({ kind: 'sqlite', group: db.group, keys, store, clock }),
    };
  }
  const store = new PostgresMeteringStore(db.pool);
  return {
    metering: new MeteringService(store),
    gate: createGate({ kind: 'postgres', keys: createKeyLookup(db), store, clock }),
  };
}
