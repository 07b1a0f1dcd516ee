// Following watched flights nobody's boards show (docs/watches.md, "Followed through the providers"):
// a watch whose origin and destination are both outside the polled catalogue (or not named) has its
// flight asked of the flight providers on a schedule its phase sets (follow-plan.ts), under a global
// and a per-account budget of requests an hour (follow-budget.ts), never charged credits. Each answer
// is read by the board engine as its origin's and destination's boards would show it, and the events
// it yields are stored as board events (board `followed`) linked to the flight's watches, in one
// transaction with the flight's new state (compare-and-set on its version), then fanned out like the
// board poll's: signed, retried, logged and resendable, to the watches' endpoints only.
import { DAY, HOUR, type Clock } from '../clock.js';
import type { ReferenceAirports } from '../airports/index.js';
import { boardEventData, boardFlightKey, FOLLOWED_BOARD, observe, type Watch } from '../boards/index.js';
import type { BoardEventsTable, Database, FollowedFlightsTable } from '../db/index.js';
import { newId } from '../ids.js';
import { addDays } from '../providers/zones.js';
import type { Logger } from '../logger.js';
import type { CallOptions, FlightProvider, ProviderFlight } from '../providers/index.js';
import { FollowBudget } from './follow-budget.js';
import { saveFollowed } from './follow-save.js';
import { FollowList, type Watcher } from './follow-list.js';
import {
  backoffMs,
  followEndsAt,
  isComplete,
  legOf,
  localDateOf,
  lookupOf,
  MAX_MISSES,
  nextAskAt,
  questionDates,
  rowOf,
  type FollowState,
} from './follow-plan.js';
import { backgroundTurn } from '../foreground.js';
import {
  aircraftToRead,
  lastBeforeDeparture,
  predictFromDay,
  readAircraftDay,
  watchedLegIn,
} from './follow-aircraft.js';

/** Flights asked per run at most (a bound on one run's requests besides the budgets). */
export const FOLLOW_PER_RUN = 200;

/** The airports a flight's answer puts it at, as following follows it (its arrival only, when handed over). */
const endsOf = (leg: ProviderFlight | null, state: FollowState): (string | null)[] =>
  !leg
    ? []
    : state.only === 'arrival'
      ? [leg.arrival.airport.iata]
      : [leg.departure.airport.iata, leg.arrival.airport.iata];

export interface FollowDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  /** Asked in order; the first that finds the flight answers (a corroborating one is never asked). */
  providers: FlightProvider[];
  airports: ReferenceAirports;
  /** A catalogue airport's code (the board poll reads it for watches), null outside the catalogue. */
  catalogue: (iata: string) => string | null;
  /** The airports the board poll reads at `at`: a flight found at one of them is the board poll's to follow. */
  polled: (at: number) => Promise<string[]>;
  /** What the board poll remembers of a flight on one board (BoardStore.watchOf); absent: nothing. */
  boardMemory?: (airport: string, board: 'departures' | 'arrivals', key: string) => Promise<Watch | null>;
  /** Hands the stored events to the webhook fan-out. */
  publish: () => Promise<unknown>;
  budgets: { requestsPerHour: number; accountRequestsPerHour: number };
  /** How often the job runs (FLIGHTSTATUS_FOLLOW_INTERVAL_SECONDS): its first run in each clock hour catches up. */
  intervalMs: number;
  providerTimeoutMs: number;
}

/** `deferred`: due but not asked, a budget being spent this hour. */
export type FollowReport = { asked: number; requests: number; events: number; deferred: number };

export class WatchFollower {
  readonly budget: FollowBudget;
  /** The flights followed, and who watches each. */
  readonly list: FollowList;
  /** The airports the poll read at this process's last run (null before its first). */
  private polledBefore: Set<string> | null = null;

  constructor(private readonly o: FollowDeps) {
    this.budget = new FollowBudget(o.db, o.budgets);
    this.list = new FollowList(o.db, o.catalogue);
  }

  async run(at: number, stopping?: AbortSignal): Promise<FollowReport> {
    const report: FollowReport = { asked: 0, requests: 0, events: 0, deferred: 0 };
    // A watch's flight is enrolled when the watch is made (enrolments()); once an hour the active
    // watches are read whole as well, for what that missed (an airport leaving the catalogue, an
    // account enabled again, a flight forgotten while a new watch of it was being made). Every other
    // run is one indexed read: a simulated month is 8,640 runs of five minutes.
    const hourly = Math.floor(at / HOUR) !== Math.floor((at - this.o.intervalMs) / HOUR);
    if (hourly) await this.list.sync(at);
    // Flights left to boards the poll no longer reads (the watch or endpoint that had them read ended)
    // are taken back, due now: looked for when an airport has left the poll since the last run.
    const polled = new Set(await this.o.polled(at));
    if (this.polledBefore === null || [...this.polledBefore].some((iata) => !polled.has(iata)))
      await this.takeBack(polled, at);
    this.polledBefore = polled;
    const due = await this.o.db.kysely
      .selectFrom('followed_flights')
      .selectAll()
      .where('next_at', '<=', at)
      .orderBy('next_at')
      .orderBy('flight_key')
      .limit(FOLLOW_PER_RUN)
      .execute();
    const states = new Map(due.map((f) => [f.flight_key, JSON.parse(f.state) as FollowState]));
    const arrivals = new Set([...states].filter(([, s]) => s.only === 'arrival').map(([key]) => key));
    const watchers = due.length > 0 ? await this.list.watchersOf(due, arrivals) : new Map<string, Watcher[]>();
    for (const flight of due) {
      // One flight a turn of the event loop (the provider and the database may answer at once).
      await backgroundTurn();
      if (stopping?.aborted) break;
      const state = states.get(flight.flight_key)!;
      const watching = watchers.get(flight.flight_key) ?? [];
      if (watching.length === 0) {
        // Nobody watches it any more: forgotten, so that a new watch of it starts afresh.
        await this.list.forget(flight);
        continue;
      }
      if (at > followEndsAt(flight.flight_date, flight.date_basis)) {
        await this.save(flight, { ...state, done: 'expired' }, null, 0, [], [], at);
        continue;
      }
      const payer = await this.budget.payer([...new Set(watching.map((w) => w.account))].sort(), at);
      if (payer === null) {
        report.deferred += 1;
        // The budgets are counted by the hour: asked again when the next one begins.
        await this.save(flight, state, Math.floor(at / HOUR) * HOUR + HOUR, 0, [], [], at);
        continue;
      }
      report.asked += 1;
      const asked = await this.ask(flight, state, at, stopping);
      report.requests += asked.requests;
      await this.budget.spend(payer, at, asked.requests);
      // Found at an airport the board poll reads (a watch that named neither end; a handed-over
      // arrival's destination read after all): the boards follow it from here.
      if (endsOf(asked.leg, state).some((iata) => iata !== null && polled.has(iata))) {
        await this.save(flight, { ...state, done: 'on_boards', last: asked.leg }, null, asked.requests, [], [], at);
        continue;
      }
      report.events += await this.answered(flight, state, asked, watching, at);
    }
    if (report.events > 0) await this.o.publish();
    if (hourly) {
      await this.budget.prune(at - DAY);
      await this.list.prune(at);
    }
    return report;
  }

  /**
   * One question, of the providers in order: the first that finds the flight answers. A local-date
   * watch's first question asks the UTC dates its day spans in turn (questionDates), as a lookup by
   * local date does, and keeps the leg that departs on its date at its origin's clock.
   */
  private async ask(flight: FollowedFlightsTable, state: FollowState, at: number, stopping?: AbortSignal) {
    const meter = { requests: 0 };
    let retryAfterMs = 0;
    let failed = false;
    // The aircraft known from an earlier answer, the flight still to leave: its day is the question.
    if (aircraftToRead(state.last, state, at) !== null) {
      const day = await readAircraftDay(this.o.providers, state.last!, this.callOptions(meter, stopping));
      const leg = day && watchedLegIn(day, flight, this.o.airports);
      if (leg) return { leg, day, failed: false, retryAfterMs, ...meter };
    }
    const dates = questionDates(this.o.airports, flight, state);
    for (let i = 0; i < dates.length; i++)
      for (const provider of this.o.providers) {
        if (provider.corroborates) continue;
        const answer = await provider.lookupFlight(
          lookupOf(flight, state, dates[i]!),
          this.callOptions(meter, stopping),
        );
        if (answer.outcome === 'hit' || answer.outcome === 'incomplete') {
          const leg = legOf(answer.value, flight, this.o.airports);
          // The aircraft named for the first time at the flight's last question before it leaves: its day now.
          const day =
            leg && aircraftToRead(leg, state, at) !== null && lastBeforeDeparture(leg, at, state.overdue ?? 0)
              ? await readAircraftDay(this.o.providers, leg, this.callOptions(meter, stopping))
              : null;
          if (leg) return { leg, day, failed: false, retryAfterMs, ...meter };
          // The number flies that date, but not the watch's flight: another day's, whose local date
          // says which neighbour holds it (the other is not asked), as a lookup by local date does.
          const other = answer.value.map((l) => localDateOf(this.o.airports, l)).find((d) => d !== null);
          if (other && i === 0 && dates.length > 2)
            dates.splice(1, dates.length - 1, addDays(dates[0]!, other > flight.flight_date ? -1 : 1));
          break;
        }
        if (answer.outcome === 'error') {
          failed = true;
          // A refusal (429, quota): not before the provider's Retry-After.
          if (answer.error.kind === 'rate_limited')
            retryAfterMs = Math.max(retryAfterMs, provider.status?.().retryAfterMs ?? 0);
          this.o.logger.warn(
            {
              provider: provider.name,
              flight: flight.flight_key,
              kind: answer.error.kind,
              reason: answer.error.message,
            },
            'a followed flight could not be asked; asked again after a back-off',
          );
        }
      }
    return { leg: null, day: null, failed, retryAfterMs, ...meter };
  }

  /**
   * The flights left to the boards whose ends the poll no longer reads (`polled`): followed again from
   * here, due now, each over the version read (once).
   */
  private async takeBack(polled: ReadonlySet<string>, at: number): Promise<void> {
    const left = await this.o.db.kysely
      .selectFrom('followed_flights')
      .selectAll()
      .where('next_at', 'is', null)
      .where('state', 'like', '%"done":"on_boards"%')
      .execute();
    for (const flight of left) {
      const state = JSON.parse(flight.state) as FollowState;
      if (state.done !== 'on_boards' || !state.last) continue;
      if (endsOf(state.last, state).some((iata) => iata !== null && polled.has(iata))) continue;
      await this.save(flight, await this.takenBack(flight, state), at, 0, [], [], at);
    }
  }

  /**
   * A flight left to the boards, taken back: what the boards the poll no longer reads remembered of it
   * (its flight id, what they sent) becomes following's memory of each end, where they have it.
   */
  private async takenBack(flight: FollowedFlightsTable, state: FollowState): Promise<FollowState> {
    const next: FollowState = { ...state, done: null };
    const memory = this.o.boardMemory;
    for (const direction of state.only === 'arrival' ? (['arrival'] as const) : (['departure', 'arrival'] as const)) {
      const row = state.last && rowOf(state.last, direction, flight.flight_number);
      const airport = row && (direction === 'departure' ? row.origin.iata : row.destination.iata);
      const seen = memory && row && airport ? await memory(airport, `${direction}s`, boardFlightKey(row)) : null;
      if (seen) next[direction] = seen;
    }
    return next;
  }

  /** A question's requests: counted on its meter, in the background, stopped with the job. */
  private callOptions(meter: { requests: number }, stopping?: AbortSignal): CallOptions {
    return { meter, background: true, timeoutMs: this.o.providerTimeoutMs, ...(stopping ? { signal: stopping } : {}) };
  }

  /** Reads an answer into events and the next question, and stores them; how many events were stored. */
  private async answered(
    flight: FollowedFlightsTable,
    state: FollowState,
    asked: {
      leg: ProviderFlight | null;
      day: ProviderFlight[] | null;
      failed: boolean;
      retryAfterMs: number;
      requests: number;
    },
    watching: Watcher[],
    at: number,
  ): Promise<number> {
    const { leg } = asked;
    if (!leg) {
      const next = { ...state };
      if (asked.failed) next.failures += 1;
      else next.misses += 1;
      const giveUp = !asked.failed && next.misses >= MAX_MISSES;
      const nextAt = giveUp ? null : at + backoffMs(next.failures + next.misses, asked.retryAfterMs);
      if (giveUp) next.done = 'not_found';
      await this.save(flight, next, nextAt, asked.requests, [], [], at);
      return 0;
    }
    const route = {
      origin: leg.departure.airport.iata,
      destination: leg.arrival.airport.iata,
      localDate: localDateOf(this.o.airports, leg),
      utcDate: leg.departure.scheduled === null ? null : new Date(leg.departure.scheduled).toISOString().slice(0, 10),
    };
    const next: FollowState = { ...state, failures: 0, misses: 0, last: leg, route };
    const events: BoardEventsTable[] = [];
    // One random stem for the observation, numbered: the fan-out takes events of one moment in id order.
    const stem = newId('evt').slice(0, -2);
    // A flight handed over after its departure: its origin's board sent the departure's events.
    for (const direction of state.only === 'arrival' ? (['arrival'] as const) : (['departure', 'arrival'] as const)) {
      const row = rowOf(leg, direction, flight.flight_number);
      if (!row) continue;
      const prediction =
        direction === 'departure' && asked.day
          ? predictFromDay(leg, asked.day, flight.flight_number, this.o.airports, at)
          : null;
      const { events: seen, watch } = observe(state[direction], row, at, () => newId('fl'), prediction);
      next[direction] = watch;
      const airport = (direction === 'departure' ? row.origin.iata : row.destination.iata) ?? '';
      for (const event of seen)
        events.push({
          id: `${stem}${String(events.length).padStart(2, '0')}`,
          type: event.type,
          airport,
          board: FOLLOWED_BOARD,
          flight_id: watch.flightId,
          created_at: at,
          data: JSON.stringify(boardEventData(this.o.airports, row, watch, event)),
          change_key: `${flight.flight_key}|${direction}|${event.type}|${flight.version}`,
          scheduled_at: row.scheduledAt,
          carrier: row.airline.iata ?? row.airline.icao ?? null,
        });
    }
    const complete = isComplete(leg);
    if (complete) next.done = 'settled';
    const ids = watching.map((w) => w.id);
    const ask = nextAskAt(leg, at, state.overdue ?? 0);
    next.overdue = ask.overdue;
    // Past following's end the settle job asks (with its own back-off).
    const nextAt = ask.at !== null && ask.at > followEndsAt(flight.flight_date, flight.date_basis) ? null : ask.at;
    if (nextAt === null && !complete) next.done = 'expired';
    return this.save(flight, next, nextAt, asked.requests, events, complete ? ids : [], at, ids);
  }

  private save(
    flight: FollowedFlightsTable,
    state: FollowState,
    nextAt: number | null,
    requests: number,
    events: BoardEventsTable[],
    settleNow: string[],
    at: number,
    watches: string[] = [],
  ): Promise<number> {
    return saveFollowed(this.o.db, flight, { state, nextAt, requests, events, settleNow, at, watches });
  }
}
