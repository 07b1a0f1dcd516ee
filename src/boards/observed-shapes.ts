// What the kept board rows' dialect files (observed-sqlite.ts, observed-postgres.ts) implement.
import type { AirportDaysTable } from '../db/index.js';
import type { BoardKind } from '../providers/index.js';

/** A kept row as written. */
export type ObservedWrite = {
  board: BoardKind;
  airport: string;
  flight: string;
  scheduled_at: number;
  row: string;
  seen_at: number;
  registration: string | null;
};
/** A kept row as read back (its row still JSON). */
export type KeptRow = { board: BoardKind; airport: string; row: string };

export interface ObservedDialect {
  /** The reads a disrupted lookup makes several of: an airport's kept hours and rows, an aircraft's rows. */
  reads: {
    keptHours(
      airport: string,
      from: number,
      to: number,
    ): Promise<{ from_at: number | string; to_at: number | string }[]>;
    around(airport: string, from: number, to: number): Promise<KeptRow[]>;
    aircraft(plate: string, from: number, to: number): Promise<KeptRow[]>;
  };
  /** Writes rows in one transaction: one board's final rows, or a day read whole with its record (the record once: another process's stands). */
  write(values: ObservedWrite[], day: AirportDaysTable | null): Promise<void>;
}
