// Airport evidence for any past window (docs/boards.md, "A past day's boards").
// Where the poller did not watch an airport when a flight flew, the circumstances ask for the airport's
// boards of that local day, read whole from the first provider that can read a past day's board
// (`FlightProvider.readBoardDay`): both boards, as the day ended. The rows are kept as the poll keeps
// its final rows (observed_flights) with a record of the day (airport_days), so a day is read once:
// every later lookup, batch row and evidence PDF of that airport-day, in any process, reads it from
// the database. Concurrent asks in one process share one read; two processes that read the same day
// at once both pay, and the first record stands.
import { LRUCache } from 'lru-cache';
import { DAY, fromUtcDays, HOUR, type Clock } from '../clock.js';
import type { ReferenceAirports } from '../airports/index.js';
import type { DayRead, PastBoards, PastMovement } from '../circumstances/index.js';
import { designatorsOf, type BoardKind, type BoardRow, type FlightProvider } from '../providers/index.js';
import { addDays, localMinute, zonedToUtc } from '../providers/zones.js';
import { lruCache } from '../lru.js';
import type { ObservedFlightStore } from './observed.js';
import type { ObservedRow } from './observed-rows.js';

/** A day is read once its last flights are final: its local end this long ago. */
export const DAY_SETTLES = 6 * HOUR;
/** How long a day the provider could not give is not asked again in this process (an outage passes; a range does not move fast). */
const UNAVAILABLE_FOR = 10 * 60_000;

export interface AirportDaysDeps {
  /** The flight providers as the lookup asks them (bounded and counted): the first that reads a past day's board is asked. */
  providers: FlightProvider[];
  observed: ObservedFlightStore;
  airports: ReferenceAirports;
  clock: Clock;
  timeoutMs: number;
}

export class AirportDays implements PastBoards {
  /** Days known read (kept in the database), by `airport|date`. */
  private readonly known = lruCache<string, true>(20_000);
  /** Days the provider could not give, by `airport|date`, until when. */
  private readonly unavailable = lruCache<string, number>(20_000);
  /** Days found not read (`held`), by `airport|date`, until when that is believed. */
  private readonly unread = lruCache<string, number>(20_000);
  /** Reads under way in this process, by `airport|date`. */
  private readonly reading = new Map<string, Promise<DayRead>>();
  /** Per airport, how many of its days this process has kept: the rows cached before a day was kept lack it. */
  private readonly generation = new Map<string, number>();
  /** Rows of settled windows, by `airport|generation|from|to` (the figures of one airport-day are asked by every lookup there). */
  private readonly windows = new LRUCache<string, PastMovement[]>({
    maxSize: 200_000,
    sizeCalculation: (rows) => rows.length + 1,
  });
  /** Rows of UTC days over for a day, by `airport|generation|day start`: the windows above are cut from them. */
  private readonly days = new LRUCache<string, PastMovement[]>({
    maxSize: 200_000,
    sizeCalculation: (rows) => rows.length + 1,
  });

  constructor(private readonly deps: AirportDaysDeps) {}

  /** The instant the airport's local date begins; null for an airport without a known zone. */
  dayStart(airport: string, date: string): number | null {
    const zone = this.deps.airports.find(airport)?.timezone;
    return zone ? zonedToUtc(`${date}T00:00`, zone) : null;
  }

  async read(
    airport: string,
    date: string,
    call: { signal: AbortSignal; meter?: { requests: number }; background?: boolean },
  ): Promise<DayRead> {
    const key = `${airport}|${date}`;
    if (this.known.has(key)) return 'read';
    const end = this.dayStart(airport, addDays(date, 1));
    const now = this.deps.clock.now();
    if (end === null) return 'not_available';
    if (end + DAY_SETTLES > now) return 'not_over';
    const provider = this.deps.providers.find((p) => p.readBoardDay && !p.corroborates);
    if (!provider) return 'not_offered';
    if ((this.unavailable.get(key) ?? 0) > now) return 'not_available';
    let pending = this.reading.get(key);
    if (!pending) {
      pending = this.fetch(provider, airport, date, call).finally(() => this.reading.delete(key));
      this.reading.set(key, pending);
    }
    const outcome = await pending;
    if (outcome === 'read') {
      this.known.set(key, true);
      this.unread.delete(key);
    }
    return outcome;
  }

  private async fetch(
    provider: FlightProvider,
    airport: string,
    date: string,
    call: { signal: AbortSignal; meter?: { requests: number }; background?: boolean },
  ): Promise<DayRead> {
    const key = `${airport}|${date}`;
    if ((await this.deps.observed.dayRead(airport, date)) !== null) return 'read';
    const boards: { board: BoardKind; rows: BoardRow[] }[] = [];
    for (const board of ['departures', 'arrivals'] as const) {
      const answer = await provider.readBoardDay!(
        { airport, board, date },
        { ...call, timeoutMs: this.deps.timeoutMs },
      );
      // Only a whole day is kept: a day cut short (a provider's page limit) would read as a quiet one where its rows stop.
      if (answer.outcome !== 'hit') {
        // Not asked again for a while; an aborted ask (its caller left) says nothing of the provider.
        if (!call.signal.aborted) this.unavailable.set(key, this.deps.clock.now() + UNAVAILABLE_FOR);
        return 'not_available';
      }
      boards.push({ board, rows: answer.value });
    }
    await this.deps.observed.keepDay(airport, date, provider.name, boards, this.deps.clock.now());
    // The airport's windows and days kept in the process before lack these rows.
    this.generation.set(airport, (this.generation.get(airport) ?? 0) + 1);
    return 'read';
  }

  version(airport: string): number {
    return this.generation.get(airport) ?? 0;
  }

  async movements(airport: string, from: number, to: number): Promise<PastMovement[]> {
    const key = `${airport}|${this.generation.get(airport) ?? 0}|${from}|${to}`;
    const kept = this.windows.get(key);
    if (kept) return kept;
    // A UTC day over for a day is read whole once and kept (its rows no longer change, and every lookup
    // at the airport asks windows of the same days); the rest of the window is read as it is.
    const settled = this.deps.clock.now() - DAY;
    const rows = await fromUtcDays(
      from,
      to,
      settled,
      (day) => this.utcDay(airport, day),
      (a, b) => this.rowsOf(airport, a, b),
    );
    if (to < settled) this.windows.set(key, rows);
    return rows;
  }

  private async utcDay(airport: string, day: number): Promise<PastMovement[]> {
    const key = `${airport}|${this.generation.get(airport) ?? 0}|${day}`;
    let rows = this.days.get(key);
    if (!rows) this.days.set(key, (rows = await this.rowsOf(airport, day, day + DAY)));
    return rows;
  }

  private async rowsOf(airport: string, from: number, to: number): Promise<PastMovement[]> {
    return (await this.deps.observed.around(airport, from, to)).map(({ board, row }) =>
      movementOf(board, airport, row),
    );
  }

  async aircraft(registration: string, from: number, to: number): Promise<PastMovement[]> {
    // Read each time: another process's day read after the fact adds the aircraft's rows at that airport,
    // and a cached day without them would read as nothing flown there (the walk then takes the day as held).
    return (await this.deps.observed.aircraft(registration, from, to)).map(({ board, airport, row }) =>
      movementOf(board, airport, row),
    );
  }

  /** Whether every row of the airport's boards in [from, to) is kept: hours the poll kept whole (`keepHours`), the rest in days read whole. */
  async held(airport: string, from: number, to: number): Promise<boolean> {
    const zone = this.deps.airports.find(airport)?.timezone;
    if (!zone || to <= from) return false;
    for (const gap of gaps(await this.deps.observed.keptHours(airport, from, to), from, to)) {
      if (!(await this.daysRead(airport, zone, gap.from, gap.to))) return false;
    }
    return true;
  }

  private async daysRead(airport: string, zone: string, from: number, to: number): Promise<boolean> {
    const first = localMinute(from, zone).slice(0, 10);
    const last = localMinute(to - 1, zone).slice(0, 10);
    for (let date = first; date <= last; date = addDays(date, 1)) {
      const key = `${airport}|${date}`;
      if (this.known.has(key)) continue;
      // A day not read is asked again after a while (another process may read it meanwhile; this one's reads mark it known at once).
      if ((this.unread.get(key) ?? 0) > this.deps.clock.now()) return false;
      if ((await this.deps.observed.dayRead(airport, date)) === null) {
        this.unread.set(key, this.deps.clock.now() + UNAVAILABLE_FOR);
        return false;
      }
      this.known.set(key, true);
    }
    return true;
  }
}

/** The parts of [from, to) that no span covers (spans in order of their start). */
export function gaps(spans: { from: number; to: number }[], from: number, to: number): { from: number; to: number }[] {
  const open: { from: number; to: number }[] = [];
  let at = from;
  for (const span of spans) {
    if (span.from > at) open.push({ from: at, to: Math.min(span.from, to) });
    at = Math.max(at, span.to);
    if (at >= to) return open;
  }
  if (at < to) open.push({ from: at, to });
  return open;
}

function movementOf(board: BoardKind, airport: string, row: ObservedRow): PastMovement {
  const other = board === 'departures' ? row.destination : row.origin;
  const designators = designatorsOf(row);
  return {
    airport,
    actualAt: row.cancelled ? null : row.actualAt,
    otherScheduledAt: row.otherEnd?.scheduledAt ?? null,
    otherActualAt: row.cancelled ? null : (row.otherEnd?.actualAt ?? null),
    board,
    flight: designators[0] ?? '',
    designators,
    carrier: row.airline.iata ?? row.airline.icao ?? null,
    scheduledAt: row.scheduledAt,
    at: row.actualAt ?? row.estimatedAt,
    cancelled: row.cancelled,
    diverted: row.diverted,
    registration: row.registration,
    other: other.iata ?? other.icao ?? null,
  };
}
