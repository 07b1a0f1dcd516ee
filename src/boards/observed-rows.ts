// What is kept of a board row (observed.ts): the fields a flight's record is built from, the
// designator and plate it is found by, and whether the row shows its flight final.
import type { BoardRow } from '../providers/index.js';

/** What is kept of a board row: what a flight's record is built from. */
export type ObservedRow = Pick<
  BoardRow,
  | 'flightIata'
  | 'flightIcao'
  | 'callsign'
  | 'airline'
  | 'codeshares'
  | 'operation'
  | 'aircraftType'
  | 'registration'
  | 'origin'
  | 'destination'
  | 'scheduledAt'
  | 'estimatedAt'
  | 'actualAt'
  | 'status'
  | 'cancelled'
  | 'diverted'
  | 'runway'
  | 'otherEnd'
>;

/** A registration as a plate: letters and digits, upper case (`G-EZTH` and `GEZTH` are one aircraft). */
export const plate = (registration: string): string => registration.replace(/[^A-Z0-9]/gi, '').toUpperCase();

export const plateOf = (row: BoardRow): string | null => (row.registration ? plate(row.registration) || null : null);

export const final = (row: Pick<BoardRow, 'cancelled' | 'diverted' | 'actualAt'>): boolean =>
  row.cancelled || row.diverted || row.actualAt !== null;

/** The designator as a lookup normalises it: the board's IATA number, else its ICAO one, else as printed. */
export const designatorOf = (row: Pick<BoardRow, 'flightIata' | 'flightIcao' | 'flightNumber'>): string =>
  (row.flightIata ?? row.flightIcao ?? row.flightNumber).replace(/\s+/g, '').toUpperCase();

export function kept(row: BoardRow): ObservedRow {
  const {
    flightIata,
    flightIcao,
    callsign,
    airline,
    codeshares,
    operation,
    aircraftType,
    registration,
    origin,
    destination,
    scheduledAt,
    estimatedAt,
    actualAt,
    status,
    cancelled,
    diverted,
    runway,
  } = row;
  // The other end only once it is final too: its estimates would rewrite the row on every pass.
  const otherEnd = row.otherEnd && (cancelled || row.otherEnd.actualAt !== null) ? row.otherEnd : undefined;
  return {
    flightIata,
    flightIcao,
    callsign,
    airline,
    codeshares,
    operation,
    aircraftType,
    registration,
    origin,
    destination,
    scheduledAt,
    estimatedAt,
    actualAt,
    status,
    cancelled,
    diverted,
    runway,
    otherEnd,
  };
}
