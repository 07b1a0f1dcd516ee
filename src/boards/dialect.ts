// What the kept board rows (observed.ts) do differently on each database: observed-sqlite.ts and
// observed-postgres.ts, both of the shape observed-shapes.ts gives. The board store's own dialects
// are chosen in index.ts.
import { forDialect, type Database } from '../db/index.js';
import type { ObservedDialect } from './observed-shapes.js';
import { postgresObserved } from './observed-postgres.js';
import { sqliteObserved } from './observed-sqlite.js';

export type { ObservedDialect, ObservedWrite } from './observed-shapes.js';

export function observedDialect(db: Database): ObservedDialect {
  return forDialect<ObservedDialect>(db, { sqlite: sqliteObserved, postgres: postgresObserved });
}
