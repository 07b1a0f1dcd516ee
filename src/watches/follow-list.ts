// Which flights following asks about (docs/watches.md, "Followed through the providers"): a row of
// followed_flights per flight of active watches whose named ends are both outside the catalogue (or
// not named), written in the transaction that makes the watch and caught up once an hour from the
// watches themselves, and per watched flight the board poll saw leave for an airport it does not read
// (its arrival only); who watches each flight when it falls due; forgetting a flight nobody watches.
import type { CompiledQuery } from 'kysely';
import { DAY } from '../clock.js';
import type { DepartedFlight } from '../boards/index.js';
import { readMany, type Database, type FollowedFlightsTable } from '../db/index.js';
import { AFTER_MOVEMENT_MS, firstAskAt, initialState, type FollowState } from './follow-plan.js';

export type Watcher = { id: string; account: string };

type Flight = Pick<FollowedFlightsTable, 'flight_number' | 'flight_date' | 'date_basis' | 'origin' | 'destination'>;

const day = (at: number) => new Date(at).toISOString().slice(0, 10);
const flightKey = (w: Flight) =>
  `${w.flight_number}|${w.flight_date}|${w.date_basis}|${w.origin ?? ''}|${w.destination ?? ''}`;

export class FollowList {
  constructor(
    private readonly db: Database,
    /** A catalogue airport's code (the board poll reads it for watches), null outside the catalogue. */
    private readonly catalogue: (iata: string) => string | null,
  ) {}

  /** A provider-followed flight: neither end a catalogue airport (the board poll follows those). */
  followsThrough(w: Pick<Flight, 'origin' | 'destination'>): boolean {
    return ![w.origin, w.destination].some((iata) => iata && this.catalogue(iata) !== null);
  }

  /**
   * The statements that start following the flights of watches being made, in the transaction that
   * makes them: a flight no polled board shows gets its row, first asked a few hours before its date
   * begins (or at the next run); a flight already followed keeps its row.
   */
  enrolments(watches: Flight[], at: number): CompiledQuery[] {
    const fresh = new Map<string, Flight>();
    for (const w of watches) if (this.followsThrough(w)) fresh.set(flightKey(w), w);
    return this.rowsOf(fresh, at).map((rows) =>
      this.db.kysely
        .insertInto('followed_flights')
        .values(rows)
        .onConflict((oc) => oc.column('flight_key').doNothing())
        .compile(),
    );
  }

  /** A new row following a flight whole, first asked a few hours before its date begins (or now). */
  private rowOf(key: string, f: Flight, at: number): FollowedFlightsTable {
    return {
      flight_key: key,
      flight_number: f.flight_number,
      flight_date: f.flight_date,
      date_basis: f.date_basis,
      origin: f.origin,
      destination: f.destination,
      state: JSON.stringify(initialState()),
      version: 0,
      next_at: firstAskAt(f.flight_date, f.date_basis, at),
      requests: 0,
      created_at: at,
      updated_at: at,
    };
  }

  /** The new rows of `flights` (by key), 500 to a statement. */
  private rowsOf(flights: Map<string, Flight>, at: number): FollowedFlightsTable[][] {
    const rows = [...flights].map(([key, f]) => this.rowOf(key, f, at));
    const chunks: FollowedFlightsTable[][] = [];
    for (let i = 0; i < rows.length; i += 500) chunks.push(rows.slice(i, i + 500));
    return chunks;
  }

  /**
   * The board poll saw these watched flights leave for an airport it does not read: each gets a row
   * that follows its arrival only (`only: 'arrival'`), first asked just after it is due down. A
   * flight already followed keeps its row; one provider-followed whole needs none.
   */
  async handOver(flights: DepartedFlight[], at: number): Promise<void> {
    const ids = [...new Set(flights.flatMap((f) => f.watches))];
    const watches = new Map<string, Flight>();
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await this.watchQuery()
        .where('w.id', 'in', ids.slice(i, i + 500))
        .execute();
      for (const w of rows) watches.set(w.id, w);
    }
    const rows = new Map<string, FollowedFlightsTable>();
    // Watches that name neither end: following found their flight at a polled origin and left it to
    // the boards (`on_boards`); their row follows the arrival from here.
    const revived = new Map<string, { route: FollowState['route']; nextAt: number }>();
    for (const f of flights)
      for (const id of f.watches) {
        const w = watches.get(id);
        if (!w) continue;
        const key = flightKey(w);
        const route = {
          origin: f.origin,
          destination: f.destination,
          localDate: f.localDate,
          utcDate: day(f.scheduledAt),
        };
        const nextAt = Math.max(at, f.arrivesAt + AFTER_MOVEMENT_MS);
        if (this.followsThrough(w)) revived.set(key, { route, nextAt });
        else if (!rows.has(key))
          rows.set(key, {
            ...this.rowOf(key, w, at),
            state: JSON.stringify({ ...initialState(), route, only: 'arrival' } satisfies FollowState),
            next_at: nextAt,
          });
      }
    for (const [key, { route, nextAt }] of revived) await this.revive(key, route, nextAt, at);
    const all = [...rows.values()];
    for (let i = 0; i < all.length; i += 500)
      await this.db.kysely
        .insertInto('followed_flights')
        .values(all.slice(i, i + 500))
        .onConflict((oc) => oc.column('flight_key').doNothing())
        .execute();
  }

  /** A row following left to the boards follows the flight's arrival (over the version read: once). */
  private async revive(key: string, route: FollowState['route'], nextAt: number, at: number): Promise<void> {
    const row = await this.db.kysely
      .selectFrom('followed_flights')
      .select(['state', 'version'])
      .where('flight_key', '=', key)
      .where('next_at', 'is', null)
      .executeTakeFirst();
    const state = row ? (JSON.parse(row.state) as FollowState) : null;
    if (!row || state?.done !== 'on_boards') return;
    await this.db.kysely
      .updateTable('followed_flights')
      .set({
        state: JSON.stringify({ ...state, done: null, only: 'arrival', route: { ...state.route, ...route } }),
        version: Number(row.version) + 1,
        next_at: nextAt,
        updated_at: at,
      })
      .where('flight_key', '=', key)
      .where('version', '=', row.version)
      .execute();
  }

  /**
   * The active watches (of enabled accounts) of followed flights, by flight key: provider-followed
   * whole, or (`arrivals`, by key) handed over by the board poll.
   */
  private async watching(
    narrow: (q: ReturnType<FollowList['watchQuery']>) => ReturnType<FollowList['watchQuery']>,
    arrivals: ReadonlySet<string> = new Set(),
  ): Promise<{ byKey: Map<string, Watcher[]>; flights: Map<string, Flight> }> {
    // Read off the event loop on SQLite: the hourly catch-up reads every active watch around the hour.
    const rows = await readMany(this.db, narrow(this.watchQuery()).compile());
    const byKey = new Map<string, Watcher[]>();
    const flights = new Map<string, Flight>();
    for (const w of rows) {
      const key = flightKey(w);
      if (!arrivals.has(key) && !this.followsThrough(w)) continue;
      const list = byKey.get(key) ?? [];
      list.push({ id: w.id, account: w.account_id });
      byKey.set(key, list);
      flights.set(key, w);
    }
    return { byKey, flights };
  }

  private watchQuery() {
    return this.db.kysely
      .selectFrom('flight_watches as w')
      .innerJoin('accounts as a', 'a.id', 'w.account_id')
      .select(['w.id', 'w.account_id', 'w.flight_number', 'w.flight_date', 'w.date_basis', 'w.origin', 'w.destination'])
      .where('w.state', '=', 'active')
      .where('a.disabled', '=', 0);
  }

  /** Who watches each of the due flights (`arrivals`: the keys of those handed over by the board poll). */
  async watchersOf(due: FollowedFlightsTable[], arrivals: ReadonlySet<string>): Promise<Map<string, Watcher[]>> {
    const numbers = [...new Set(due.map((f) => f.flight_number))];
    const dates = [...new Set(due.map((f) => f.flight_date))];
    const { byKey } = await this.watching(
      (q) => q.where('w.flight_number', 'in', numbers).where('w.flight_date', 'in', dates),
      arrivals,
    );
    return byKey;
  }

  /** Every provider-followed flight of active watches dated around `at` has its row (the hourly catch-up). */
  async sync(at: number): Promise<void> {
    const { flights } = await this.watching((q) =>
      q.where('w.flight_date', '>=', day(at - 2 * DAY)).where('w.flight_date', '<=', day(at + 2 * DAY)),
    );
    const keys = [...flights.keys()];
    for (let i = 0; i < keys.length; i += 500) {
      const found = await this.db.kysely
        .selectFrom('followed_flights')
        .select('flight_key')
        .where('flight_key', 'in', keys.slice(i, i + 500))
        .execute();
      for (const f of found) flights.delete(f.flight_key);
    }
    for (const rows of this.rowsOf(flights, at))
      await this.db.kysely
        .insertInto('followed_flights')
        .values(rows)
        .onConflict((oc) => oc.column('flight_key').doNothing())
        .execute();
  }

  /** Deletes a flight's row unless another worker moved it on meanwhile. */
  async forget(flight: FollowedFlightsTable): Promise<void> {
    await this.db.kysely
      .deleteFrom('followed_flights')
      .where('flight_key', '=', flight.flight_key)
      .where('version', '=', flight.version)
      .execute();
  }

  /** Flights nothing is asked about any more are forgotten once their date is out of the watches' reach. */
  async prune(at: number): Promise<void> {
    await this.db.kysely
      .deleteFrom('followed_flights')
      .where('next_at', 'is', null)
      .where('flight_date', '<', day(at - 3 * DAY))
      .execute();
  }
}
