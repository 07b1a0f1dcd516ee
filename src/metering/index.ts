import type { Database } from '../db/index.js';
import type { Clock } from '../clock.js';
import { MeteringService } from './service.js';
import { SqliteMeteringStore } from './store-sqlite.js';
import { PostgresMeteringStore } from './store-postgres.js';

export { MeteringService, type ChargeOutcome } from './service.js';
export { creditHeaders } from './headers.js';
export { windowAt, policyOf, positionOf, WINDOW_MS, type CreditPosition, type Window } from './window.js';
export type { UsageRow } from './store.js';
export { usageByDay, type DailyUsage } from './usage.js';

export function createMetering(db: Database, clock: Clock): MeteringService {
  const store = db.kind === 'sqlite' ? new SqliteMeteringStore(db.sqlite, db.group) : new PostgresMeteringStore(db.pool);
  return new MeteringService(store, clock);
}
