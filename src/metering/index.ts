// Metering (docs/metering.md): the admission gate (key, verdict, credit and usage row decided
// together), credit windows, the usage log and its group commit, and the reads of usage.
import { PostgresKeyLookup, SqliteKeyLookup } from '../auth/index.js';
import type { Clock } from '../clock.js';
import { forDialect, type Database } from '../db/index.js';
import type { Gate } from './gate.js';
import { PostgresGate } from './gate-postgres.js';
import { SqliteGate } from './gate-sqlite.js';
import { MeteringService } from './service.js';
import { PostgresMeteringStore } from './store-postgres.js';
import { SqliteMeteringStore } from './store-sqlite.js';
import { SqliteBulkStore } from './bulk-sqlite.js';
import { PostgresBulkStore } from './bulk-postgres.js';

export { MeteringService } from './service.js';
export type { Admission, Gate, UsageDraft } from './gate.js';
export { creditHeaders, retryAfter } from './headers.js';
export { windowAt, policyOf, positionOf, WINDOW_MS, type CreditPosition, type Window } from './window.js';
export { PENDING_STATUS, type Charge, type UsageRow } from './store.js';
export { type DailyUsage } from './usage.js';
export { RefusalLog } from './refusals.js';
export type { BulkCharge, PaidUsage, PaidWrites } from './bulk.js';

interface Metering {
  metering: MeteringService;
  gate: Gate;
}

/** The metering service and the admission gate, over one store: each dialect's store-* and gate-* files. */
export function createMetering(db: Database, clock: Clock): Metering {
  return forDialect<Metering>(db, {
    sqlite: ({ sqlite, group }) => {
      const store = new SqliteMeteringStore(sqlite, group);
      return {
        metering: new MeteringService(store, db, new SqliteBulkStore(sqlite, group)),
        gate: new SqliteGate(group, new SqliteKeyLookup(sqlite, group), store, clock),
      };
    },
    postgres: ({ pool }) => {
      const store = new PostgresMeteringStore(pool);
      return {
        metering: new MeteringService(store, db, new PostgresBulkStore(pool)),
        gate: new PostgresGate(new PostgresKeyLookup(pool), store, clock),
      };
    },
  });
}
