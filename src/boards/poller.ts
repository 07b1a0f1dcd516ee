// The poll pass (docs/boards.md, "The poll pass"): every 30 minutes, both boards of every catalogue airport an enabled
// endpoint selects are read through the first provider that covers them, for the window
// [now − 3 h, now + 12 h); each row is compared with its flight's watch, and the events and new
// watches of each board are stored in one transaction. A board that cannot be read is logged and skipped: no event comes from a failed read
// (a row missing from it is not a cancellation), and the other boards go on. Watches not seen for 36
// hours are retired, so state does not grow without bound. The rows a board shows final are also kept
// (observed.ts) for batches to answer from, and forgotten after their retention; so are those about to
// leave the window unfinished, and the hours whose rows were all kept so (docs/weather.md, "The aircraft's day").
import { HOUR, iso } from '../clock.js';
import type { ReferenceAirports } from '../airports/index.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { BoardKind, BoardRow, FlightProvider } from '../providers/index.js';
import { observe, WATCH_ONLY_EVENT_TYPES, type Watch } from './engine.js';
import { boardEventData } from './event-data.js';
import { FollowedFlights, watchLinks } from './followed.js';
import { Fleet } from './chain.js';
import { predict, type PredictionContext } from './predict.js';
import {
  boardFlightKey,
  WINDOW_AFTER_MS,
  WINDOW_BEFORE_MS,
  type BoardStore,
  type DepartedFlight,
  type WatchWrite,
} from './store.js';
import type { ObservedFlightStore } from './observed.js';
import { backgroundTurn } from '../foreground.js';

const WATCH_ONLY: ReadonlySet<string> = new Set(WATCH_ONLY_EVENT_TYPES);

/** Boards are polled every 30 minutes unless configured otherwise (docs/boards.md, "The poll pass"). */
export const POLL_INTERVAL_MS = 30 * 60_000;
/**
 * The scheduled hours, around a pass at `at`, whose rows it keeps final or not (docs/boards.md, "The hours kept whole"): those that
 * leave the window before the next pass, or the one after (a pass that comes late leaves no hour unkept).
 */
const keptHours = (at: number, intervalMs: number) => ({
  from: at - WINDOW_BEFORE_MS,
  to: at - WINDOW_BEFORE_MS + 2 * intervalMs,
});
/** An aircraft that left an airport this long before a departure from it counts as based there for that day. */
const SAME_DAY_MS = 20 * HOUR;
/** A watch not seen for this long is forgotten (its flight has left both windows for good). */
export const RETIRE_AFTER_MS = 36 * HOUR;
const BOARDS: BoardKind[] = ['departures', 'arrivals'];

export interface PassReport {
  at: string;
  airports: number;
  boards: number;
  failedBoards: string[];
  rows: number;
  events: number;
  retired: number;
  /** Rows kept as final observations (a batch's plan step 3), and those forgotten past their retention. */
  observed: number;
  forgotten: number;
  /** Ended early because the process is shutting down. */
  stopped?: boolean;
}

export class BoardPoller {
  constructor(
    private readonly deps: {
      store: BoardStore;
      /** Asked in order: the first that covers a board reads it (a `miss` or an error goes on to the next). */
      providers: FlightProvider[];
      airports: ReferenceAirports;
      logger: Logger;
      providerTimeoutMs: number;
      /** How often passes run (FLIGHTSTATUS_POLL_INTERVAL_MINUTES; default the spec's 30 minutes): the hours each keeps whole follow it. */
      intervalMs?: number;
      /** Where the rows boards show final are kept, and for how long (absent: not kept). */
      observed?: { store: ObservedFlightStore; retentionMs: number };
    },
  ) {}

  /** `stopping`: the process is shutting down; no further board is read, and those read are compared and stored (the rest is read next pass). */
  async pass(at: number, stopping?: AbortSignal): Promise<PassReport> {
    const { store } = this.deps;
    const airports = await store.watchedAirports(at);
    // Accounts' watched flights around the pass, read once: each row read is matched to them in memory.
    const followed = new FollowedFlights(await store.watchedFlights(at), this.deps.airports);
    const kept = keptHours(at, this.deps.intervalMs ?? POLL_INTERVAL_MS);
    const report: PassReport = {
      at: iso(at),
      airports: airports.length,
      boards: 0,
      failedBoards: [],
      rows: 0,
      events: 0,
      retired: 0,
      observed: 0,
      forgotten: 0,
    };
    // Every board is read before any is compared: a prediction follows the aircraft through the legs
    // other airports' boards show (chain.ts), so all of the pass's rows are in hand first.
    const reads: { airport: string; read: Partial<Record<BoardKind, BoardRow[]>>; whole: number }[] = [];
    for (const airport of airports) {
      if (stopping?.aborted) {
        report.stopped = true;
        break;
      }
      reads.push({ airport, ...(await this.readBoards(airport, at, report)) });
      // A provider that answers at once (the simulated world) would hold requests for every board's read.
      await backgroundTurn();
    }
    const fleet = Fleet.of(reads.flatMap(({ read }) => BOARDS.map((board) => read[board] ?? [])));
    const gone: { key: string; flight: DepartedFlight }[] = [];
    const seen = { fleet, followed, read: new Set(airports), gone };
    for (const { airport, read, whole } of reads) {
      for (const board of BOARDS) {
        const rows = read[board];
        if (!rows) continue;
        const written = await this.observeBoard(airport, board, rows, at, seen);
        report.boards++;
        report.rows += rows.length;
        report.events += written;
        if (this.deps.observed)
          report.observed += await this.deps.observed.store.record(airport, board, rows, at, kept.to);
        await backgroundTurn();
      }
      // Both boards whole and kept: every flight of the hours about to leave the window is on a kept row.
      if (this.deps.observed && whole === BOARDS.length)
        await this.deps.observed.store.keepHours(airport, kept.from, kept.to);
    }
    // Watched flights gone to airports no board read shows: their watches follow the landing another
    // way. Handed over once per process (the subscriber keeps the first; a restarted one hands again).
    try {
      await store.departed(
        gone.map((g) => g.flight),
        at,
      );
      for (const { key, flight } of gone) this.handedOver.set(key, flight.scheduledAt);
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'watched departures could not be handed over; again next pass');
    }
    this.forgetHandedOver(at);
    // The pass ends once every event it stored has its deliveries (the fan-out ran alongside).
    await store.fannedOut();
    report.retired = await store.retire(at - RETIRE_AFTER_MS);
    if (this.deps.observed)
      report.forgotten = await this.deps.observed.store.prune(at - this.deps.observed.retentionMs, WINDOW_AFTER_MS);
    return report;
  }

  /** Both boards of an airport, each through the first provider that covers it; `whole`: how many came whole (not cut short by a page limit). */
  private async readBoards(airport: string, at: number, report: PassReport) {
    const read: Partial<Record<BoardKind, BoardRow[]>> = {};
    let whole = 0;
    for (const board of BOARDS) {
      const reasons: string[] = [];
      for (const provider of this.deps.providers) {
        const answer = await provider.readBoard(
          { airport, board, from: at - WINDOW_BEFORE_MS, to: at + WINDOW_AFTER_MS },
          { timeoutMs: this.deps.providerTimeoutMs },
        );
        if (answer.outcome === 'hit' || answer.outcome === 'incomplete') {
          read[board] = answer.value;
          if (answer.outcome === 'hit') whole++;
          break;
        }
        reasons.push(
          `${provider.name}: ${answer.outcome === 'error' ? `${answer.error.kind}: ${answer.error.message}` : 'does not cover it'}`,
        );
      }
      if (!read[board]) {
        this.deps.logger.warn(
          { airport, board, reason: reasons.join('; ') },
          'board read failed; retried on the next pass',
        );
        report.failedBoards.push(`${airport} ${board}`);
      }
    }
    return { read, whole };
  }

  private async observeBoard(
    airport: string,
    board: BoardKind,
    rows: BoardRow[],
    at: number,
    seen: {
      fleet: Fleet;
      followed: FollowedFlights;
      read: ReadonlySet<string>;
      gone: { key: string; flight: DepartedFlight }[];
    },
  ): Promise<number> {
    const { followed } = seen;
    const watches = await this.deps.store.watches(airport, board);
    const writes: WatchWrite[] = [];
    const context = board === 'departures' ? this.predictionContext(seen.fleet, watches) : null;
    for (const row of rows) {
      const key = boardFlightKey(row);
      const prediction = context ? predict(row, context, at) : null;
      const before = watches.get(key) ?? null;
      const { events: observed, watch } = observe(before, row, at, () => newId('fl'), prediction);
      // The change's identity: this flight, this type, from this stored watch. Two passes that read
      // the same watch (processes racing on one board) compute the same keys; the second stores nothing.
      const basis = before?.lastSeenAt ?? null;
      // A watch-only event (flight.landed) is stored only for a flight some watch follows: no one else receives it.
      const following = followed.match(airport, board, row);
      const kept = following.length > 0 ? observed : observed.filter((e) => !WATCH_ONLY.has(e.type));
      const events = kept.map((event) => ({
        id: newId('evt'),
        type: event.type,
        airport,
        board,
        flight_id: watch.flightId,
        created_at: at,
        data: JSON.stringify(boardEventData(this.deps.airports, row, watch, event)),
        change_key: `${key}|${event.type}|${basis ?? 'new'}`,
        scheduled_at: row.scheduledAt,
        carrier: row.airline.iata ?? row.airline.icao ?? null,
      }));
      writes.push({ key, watch, basis, events, links: watchLinks(events, following) });
      const gone = this.handedOver.has(key) ? null : followed.departed(airport, row, following, seen.read);
      if (gone) seen.gone.push({ key, flight: gone });
    }
    return this.deps.store.save(airport, board, writes);
  }

  /** Departures handed over (BoardSubscribers.departed), by their key, until they leave the window. */
  private readonly handedOver = new Map<string, number>();

  private forgetHandedOver(at: number): void {
    for (const [key, scheduledAt] of this.handedOver)
      if (scheduledAt < at - WINDOW_BEFORE_MS - HOUR) this.handedOver.delete(key);
  }

  /** What predictions at an airport read: the pass's fleet, and the aircraft its departures board showed leaving earlier (its watches). */
  private predictionContext(fleet: Fleet, watches: Map<string, Watch>): PredictionContext {
    const left = new Map<string, number[]>();
    for (const [key, watch] of watches) {
      if (!watch.registration) continue;
      const list = left.get(watch.registration) ?? [];
      if (list.length === 0) left.set(watch.registration, list);
      list.push(Number(key.slice(key.lastIndexOf('|') + 1)));
    }
    return {
      fleet,
      leftHere: (registration, before) =>
        left.get(registration)?.some((at) => at < before && at >= before - SAME_DAY_MS) ?? false,
      zone: (iata) => (iata ? (this.deps.airports.find(iata)?.timezone ?? null) : null),
    };
  }
}
