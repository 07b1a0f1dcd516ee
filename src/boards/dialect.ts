// What the kept board rows (observed.ts) do differently on each database: observed-sqlite.ts and
// observed-postgres.ts. The board store's own dialects are chosen in index.ts.
import { forDialect, type AirportDaysTable, type Database } from '../db/index.js';
import type { BoardKind } from '../providers/index.js';
import { postgresObserved } from './observed-postgres.js';
import { sqliteObserved } from './observed-sqlite.js';

/** A kept row as written. */
export type ObservedWrite = { board: BoardKind; airport: string; flight: string; scheduled_at: number; row: string; seen_at: number; registration: string | null };
/** A kept row as read back (its row still JSON). */
export type KeptRow = { board: BoardKind; airport: string; row: string };

export interface ObservedDialect {
  /** The reads a disrupted lookup makes several of: an airport's kept hours and rows, an aircraft's rows. */
  reads: {
    keptHours(airport: string, from: number, to: number): Promise<{ from_at: number | string; to_at: number | string }[]>;
    around(airport: string, from: number, to: number): Promise<KeptRow[]>;
    aircraft(plate: string, from: number, to: number): Promise<KeptRow[]>;
  };
  /** Writes rows in one transaction: one board's final rows, or a day read whole with its record (the record once: another process's stands). */
  write(values: ObservedWrite[], day: AirportDaysTable | null): Promise<void>;
}

export function observedDialect(db: Database): ObservedDialect {
  return forDialect<ObservedDialect>(db, { sqlite: sqliteObserved, postgres: postgresObserved });
}
