// The flights the board poller saw with their final times (docs/batches.md, "Provider calls", step 3;
// docs/batches.md, "Provider calls"). Each pass keeps the rows its boards show final (departed,
// landed, cancelled, diverted), and those about to leave its window unfinished with their last
// estimate (docs/boards.md, "The hours kept whole": with `keepHours`, every flight of the hours watched is then on a kept row, and
// the circumstances can tell a leg that did not fly from one the poll missed). A batch lookup of a
// flight whose departure the origin's board showed and whose arrival the destination's board showed
// is then answered from them, with no provider request. They answer only where they hold everything
// a verdict needs, and the lookup goes to the providers otherwise:
// - the lookup names its origin (without one, the first leg of the day is asked for, and a leg from an
//   airport nobody watches may be it), and one flight under the designator left it that UTC day;
// - both ends were watched and showed it final: off-block and on-block times, or cancelled on both;
//   or, where the provider's board gives the flight's other end (the simulated world, AeroDataBox,
//   AeroAPI), the origin's departures row alone showed both times, or the cancellation (a destination
//   nobody watches);
// - not diverted (where it landed, and when, is on no board the poller reads);
// - the aircraft is named (the circumstances read its day).
import { sql } from 'kysely';
import type { Database } from '../db/index.js';
import { observedDialect, type ObservedDialect, type ObservedWrite } from './dialect.js';
import { DAY, HOUR } from '../clock.js';
import type { BoardKind, BoardRow, FlightLookup, ObservedFlights, ProviderFlight } from '../providers/index.js';
import { designatorOf, final, kept, plate, plateOf, type ObservedRow } from './observed-rows.js';

/** No scheduled flight is longer than this: an arrival further from the departure is another day's. */
const LONGEST_FLIGHT = 20 * HOUR;

export class ObservedFlightStore implements ObservedFlights {
  /**
   * Per board, the final rows this process last wrote (key → kept JSON): a row stays on the window for
   * hours after it is final, and one unchanged since the last pass is not written again.
   */
  private readonly written = new Map<string, Map<string, string>>();

  /**
   * Writes rows in one transaction: one board's final rows, or a day read whole with its record (the
   * record once: another process's stands).
   */
  private readonly write: ObservedDialect['write'];
  private readonly reads: ObservedDialect['reads'];

  constructor(private readonly db: Database) {
    const dialect = observedDialect(db);
    this.reads = dialect.reads;
    this.write = dialect.write;
  }

  /**
   * Keeps the rows of one board read that show their flight final, and those scheduled before
   * `lastSeen` final or not (they leave the poll's window before its next pass: a flight more than 3
   * hours late is kept with its last estimate), where changed since the last read; returns how many.
   */
  async record(airport: string, board: BoardKind, rows: BoardRow[], at: number, lastSeen = -Infinity): Promise<number> {
    const before = this.written.get(`${board}|${airport}`);
    const now = new Map<string, string>();
    const byKey = new Map<string, ObservedWrite>();
    for (const row of rows) {
      if (!final(row) && row.scheduledAt >= lastSeen) continue;
      const flight = designatorOf(row);
      const key = `${flight}|${row.scheduledAt}`;
      const json = JSON.stringify(kept(row));
      now.set(key, json);
      // One statement may not update a row twice (PostgreSQL): a board listing a flight twice keeps the last.
      if (before?.get(key) !== json)
        byKey.set(key, {
          board,
          airport,
          flight,
          scheduled_at: row.scheduledAt,
          row: json,
          seen_at: at,
          registration: plateOf(row),
        });
    }
    const values = [...byKey.values()];
    if (values.length > 0) await this.write(values, null);
    // Only once written: a failed write is tried again on the next read.
    this.written.set(`${board}|${airport}`, now);
    return values.length;
  }

  /**
   * Records that every row the airport's two boards listed for flights scheduled in [from, to) is kept
   * (`record` with `lastSeen` ≥ `to`, both boards read whole): it extends the span it follows or
   * overlaps, else starts one.
   */
  async keepHours(airport: string, from: number, to: number): Promise<void> {
    const extended = await this.db.kysely
      .updateTable('kept_hours')
      .set((eb) => ({
        to_at: sql<number>`CASE WHEN ${eb.ref('to_at')} < ${to} THEN ${to} ELSE ${eb.ref('to_at')} END`,
      }))
      .where('airport', '=', airport)
      .where('from_at', '<=', from)
      .where('to_at', '>=', from)
      .executeTakeFirst();
    if (Number(extended.numUpdatedRows) === 0)
      await this.db.kysely.insertInto('kept_hours').values({ airport, from_at: from, to_at: to }).execute();
  }

  /** The spans of [from, to) in which the airport's boards were kept whole (`keepHours`), in time order, possibly overlapping. */
  async keptHours(airport: string, from: number, to: number): Promise<{ from: number; to: number }[]> {
    return (await this.reads.keptHours(airport, from, to)).map((r) => ({
      from: Number(r.from_at),
      to: Number(r.to_at),
    }));
  }

  /**
   * Forgets flights last seen before `before`, and the airport-days read whole before then (their rows
   * go with them); returns how many flights. A row is first kept at most `reach` before its scheduled
   * time (the poll window's front), so the kept hours before `before + reach` are trimmed: their rows
   * may be gone.
   */
  async prune(before: number, reach = 0): Promise<number> {
    await this.db.kysely.deleteFrom('airport_days').where('read_at', '<', before).execute();
    const trimmed = before + reach;
    await this.db.kysely.deleteFrom('kept_hours').where('to_at', '<=', trimmed).execute();
    await this.db.kysely.updateTable('kept_hours').set({ from_at: trimmed }).where('from_at', '<', trimmed).execute();
    const result = await this.db.kysely.deleteFrom('observed_flights').where('seen_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * Keeps an airport's boards of one past local day, read whole (src/boards/days.ts): every row, final
   * or not (the day is over: what the provider knows of it is all there will be), with the day's
   * record, in one transaction. A day another process kept meanwhile is kept once.
   */
  async keepDay(
    airport: string,
    date: string,
    provider: string,
    boards: { board: BoardKind; rows: BoardRow[] }[],
    at: number,
  ): Promise<void> {
    const byKey = new Map<string, ObservedWrite>();
    for (const { board, rows } of boards) {
      for (const row of rows) {
        const flight = designatorOf(row);
        byKey.set(`${board}|${flight}|${row.scheduledAt}`, {
          board,
          airport,
          flight,
          scheduled_at: row.scheduledAt,
          row: JSON.stringify(kept(row)),
          seen_at: at,
          registration: plateOf(row),
        });
      }
    }
    const day = { airport, date, provider, rows: byKey.size, read_at: at };
    await this.write([...byKey.values()], day);
  }

  /** When the airport's boards of this local date were read whole; null when they were not (or no longer are) kept. */
  async dayRead(airport: string, date: string): Promise<number | null> {
    const row = await this.db.kysely
      .selectFrom('airport_days')
      .select('read_at')
      .where('airport', '=', airport)
      .where('date', '=', date)
      .executeTakeFirst();
    return row ? Number(row.read_at) : null;
  }

  /** The airport's kept rows (both boards) of flights scheduled there in [from, to). */
  async around(airport: string, from: number, to: number): Promise<{ board: BoardKind; row: ObservedRow }[]> {
    return (await this.reads.around(airport, from, to)).map((r) => ({
      board: r.board,
      row: JSON.parse(r.row) as ObservedRow,
    }));
  }

  /** Every kept row (both boards, every airport) of the aircraft with this plate, scheduled in [from, to). */
  async aircraft(
    registration: string,
    from: number,
    to: number,
  ): Promise<{ board: BoardKind; airport: string; row: ObservedRow }[]> {
    return (await this.reads.aircraft(plate(registration), from, to)).map((r) => ({
      board: r.board,
      airport: r.airport,
      row: JSON.parse(r.row) as ObservedRow,
    }));
  }

  async find(lookup: FlightLookup): Promise<ProviderFlight | null> {
    const origin = lookup.origin?.toUpperCase();
    const dayStart = Date.parse(`${lookup.flightDate}T00:00:00Z`);
    if (!origin || Number.isNaN(dayStart)) return null;
    const departures = await this.rows('departures', origin, lookup.designator, dayStart, dayStart + DAY);
    if (departures.length !== 1) return null;
    const dep = departures[0]!;
    const destination = dep.row.destination.iata;
    if (dep.row.diverted || !destination) return null;
    if (lookup.destination && lookup.destination.toUpperCase() !== destination) return null;
    // An arrivals row kept unfinished (it left the window before the landing) holds nothing the departures row's other end does not.
    const arrivals = (
      await this.rows(
        'arrivals',
        destination,
        lookup.designator,
        dep.row.scheduledAt + 1,
        dep.row.scheduledAt + LONGEST_FLIGHT,
      )
    ).filter((a) => a.row.origin.iata === origin && final(a.row));
    if (arrivals.length > 1) return null;
    const d = dep.row;
    const a = arrivals[0]?.row ?? null;
    if (a) {
      if (a.diverted || a.cancelled !== d.cancelled) return null;
      if (!d.cancelled && (d.actualAt === null || a.actualAt === null)) return null;
    } else if (!d.otherEnd || (!d.cancelled && (d.actualAt === null || d.otherEnd.actualAt === null))) {
      // No arrivals row (the destination is not watched, or its row left the window unfinished): the
      // departures row's other end, where the board gives it, must hold the landing.
      return null;
    }
    const registration = d.registration ?? a?.registration;
    if (!registration) return null;
    const arrival = a
      ? {
          airport: a.destination,
          scheduled: a.scheduledAt,
          estimated: a.estimatedAt,
          actual: a.cancelled ? null : a.actualAt,
          runway: a.runway,
        }
      : {
          airport: d.destination,
          scheduled: d.otherEnd!.scheduledAt,
          estimated: d.otherEnd!.estimatedAt,
          actual: d.cancelled ? null : d.otherEnd!.actualAt,
          runway: null,
        };
    return {
      provider: 'boards',
      flightIata: d.flightIata,
      flightIcao: d.flightIcao,
      callsign: d.callsign ?? a?.callsign ?? null,
      airline: d.airline,
      operating: null,
      codeshares: d.codeshares,
      operation: d.operation,
      departure: {
        airport: d.origin,
        scheduled: d.scheduledAt,
        estimated: d.estimatedAt,
        actual: d.cancelled ? null : d.actualAt,
        runway: d.runway,
      },
      arrival,
      divertedTo: null,
      phase: d.cancelled ? 'cancelled' : 'landed',
      cancelled: d.cancelled,
      diverted: false,
      statusRaw: (a ?? d).status,
      aircraft: {
        registration,
        icao24: null,
        typeIcao: null,
        typeIata: null,
        label: d.aircraftType ?? a?.aircraftType ?? null,
      },
      observedAt: Math.max(dep.seenAt, arrivals[0]?.seenAt ?? 0),
      settled: true,
    };
  }

  private async rows(
    board: BoardKind,
    airport: string,
    flight: string,
    from: number,
    to: number,
  ): Promise<{ row: ObservedRow; seenAt: number }[]> {
    const found = await this.db.kysely
      .selectFrom('observed_flights')
      .select(['row', 'seen_at'])
      .where('board', '=', board)
      .where('airport', '=', airport)
      .where('flight', '=', flight)
      .where('scheduled_at', '>=', from)
      .where('scheduled_at', '<', to)
      .execute();
    return found.map((r) => ({ row: JSON.parse(r.row) as ObservedRow, seenAt: Number(r.seen_at) }));
  }
}
