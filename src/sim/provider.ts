// The simulated world behind the provider interface, with optional artificial latency and failures
// per call kind (FLIGHTSTATUS_SIM_LATENCY, FLIGHTSTATUS_SIM_FAILURES) so tests can exercise timeouts,
// retries and 500s. Fault draws come from their own seeded sequence: the same calls in the same order
// fail the same way in every run.
import type { Clock } from '../clock.js';
import { onSignal, pause } from '../providers/call.js';
import type {
  AircraftRecord,
  Answer,
  BoardDay,
  BoardRead,
  BoardRow,
  CallKind,
  CallOptions,
  FlightLookup,
  FlightProvider,
  ProviderFlight,
  RotationQuery,
} from '../providers/types.js';
import { hashString, Rng } from './random.js';
import type { SimWorld } from './world.js';
import { DAY } from '../clock.js';
import { addDays, localMidnight } from './time.js';

/** The widest board window one call may ask for. */
export const MAX_BOARD_WINDOW = 2 * DAY;

/** Faults injected into calls, for tests and demos of how the service copes (FLIGHTSTATUS_SIM_*). */
export interface SimFaults {
  /** Artificial latency per call kind, a uniform range in milliseconds. */
  latency: Partial<Record<CallKind, { min: number; max: number }>>;
  /** Share of calls per kind that fail with a provider error. */
  failures: Partial<Record<CallKind, number>>;
}

/** The world's seed and its faults. */
export interface SimSettings extends SimFaults {
  seed: string;
}

export class SimProvider implements FlightProvider {
  readonly name = 'sim';
  /**
   * The simulated world prices its questions as AeroDataBox does (docs/providers.md, "What a call
   * costs"), so that a batch's plan on the simulated world is the one it makes with the real provider.
   */
  readonly costs = { lookup: 1, departuresDay: 2, airportDay: 4 };
  private readonly faults: Rng;

  constructor(
    readonly world: SimWorld,
    private readonly clock: Clock,
    private readonly injection: SimFaults = { latency: {}, failures: {} },
  ) {
    this.faults = new Rng(hashString('faults', world.seed));
  }

  lookupFlight(lookup: FlightLookup, options?: CallOptions): Promise<Answer<ProviderFlight[]>> {
    return onSignal<ProviderFlight[]>(options?.signal, async (signal) => {
      const fault = await this.inject('flight', signal);
      if (fault) return fault;
      const designator = lookup.designator.replace(/\s+/g, '').toUpperCase();
      if (!/^\d{4}-\d{2}-\d{2}$/.test(lookup.flightDate)) return { outcome: 'miss' };
      // A day of the origin's departures that a batch reads whole costs its two requests once; its
      // flights are then answered from it (the same flights as the world's lookup).
      const origin = lookup.origin?.toUpperCase() ?? null;
      const days = options?.departures;
      const meter = options?.meter;
      if (days && origin && days.planned(origin, lookup.flightDate) && this.world.catalogue.includes(origin)) {
        await days.read(`${this.name}|${origin}|${lookup.flightDate}`, async () => {
          if (meter) meter.requests += this.costs.departuresDay;
          return true;
        });
      } else if (meter) meter.requests += this.costs.lookup;
      const flights = this.world.lookup(designator, lookup.flightDate, this.clock.now(), {
        origin: lookup.origin?.toUpperCase() ?? null,
        destination: lookup.destination?.toUpperCase() ?? null,
      });
      if (flights.length === 0) return { outcome: 'miss' };
      return { outcome: flights.every((f) => f.settled) ? 'hit' : 'incomplete', value: flights };
    });
  }

  readBoard(read: BoardRead, options?: CallOptions): Promise<Answer<BoardRow[]>> {
    if (!(read.to > read.from) || read.to - read.from > MAX_BOARD_WINDOW) {
      throw new RangeError(`board window must be positive and at most ${MAX_BOARD_WINDOW / DAY} days`);
    }
    return onSignal<BoardRow[]>(options?.signal, async (signal) => {
      const fault = await this.inject('board', signal);
      if (fault) return fault;
      const airport = read.airport.toUpperCase();
      // Complete boards at the world's catalogue airports; at any other its flights reach (an airport
      // the operator added), those flights; elsewhere none.
      if (!this.world.hasBoards(airport, read.from)) return { outcome: 'miss' };
      return { outcome: 'hit', value: this.world.board(airport, read.board, read.from, read.to, this.clock.now()) };
    });
  }

  /**
   * A past local day of a catalogue airport's board, as it ended. Priced as AeroDataBox prices it
   * (two windows of 12 local hours: two requests), counted on the meter; elsewhere a miss, free.
   */
  readBoardDay(day: BoardDay, options?: CallOptions): Promise<Answer<BoardRow[]>> {
    return onSignal<BoardRow[]>(options?.signal, async (signal) => {
      const fault = await this.inject('board', signal);
      if (fault) return fault;
      const airport = day.airport.toUpperCase();
      const zone = this.world.timezoneOf(airport);
      // Outside what it holds, a miss that costs nothing, as AeroDataBox's coverage check (a free request).
      if (!this.world.catalogue.includes(airport) || !zone || !/^\d{4}-\d{2}-\d{2}$/.test(day.date))
        return { outcome: 'miss' };
      if (options?.meter) options.meter.requests += this.costs.departuresDay;
      const from = localMidnight(zone, day.date);
      const to = localMidnight(zone, addDays(day.date, 1));
      return { outcome: 'hit', value: this.world.board(airport, day.board, from, to, this.clock.now()) };
    });
  }

  lookupRotation(query: RotationQuery, options?: CallOptions): Promise<Answer<ProviderFlight[]>> {
    if (query.to - query.from > MAX_BOARD_WINDOW) throw new RangeError('a rotation is read two days at a time at most');
    return onSignal<ProviderFlight[]>(options?.signal, async (signal) => {
      const fault = await this.inject('rotation', signal);
      if (fault) return fault;
      if (options?.meter) options.meter.requests++;
      if (!this.world.aircraft(query.registration, query.from)) return { outcome: 'miss' };
      return {
        outcome: 'hit',
        value: this.world.flightsOfAircraft(query.registration, query.from, query.to, this.clock.now()),
      };
    });
  }

  lookupAircraft(registration: string, options?: CallOptions): Promise<Answer<AircraftRecord>> {
    return onSignal<AircraftRecord>(options?.signal, async (signal) => {
      const fault = await this.inject('aircraft', signal);
      if (fault) return fault;
      const aircraft = this.world.aircraft(registration, this.clock.now());
      return aircraft ? { outcome: 'hit', value: aircraft } : { outcome: 'miss' };
    });
  }

  /** Waits the configured latency, then maybe fails; undefined when the call may go on. */
  private async inject(
    kind: CallKind,
    signal: AbortSignal,
  ): Promise<{ outcome: 'error'; error: { kind: 'unavailable'; message: string } } | undefined> {
    const latency = this.injection.latency[kind];
    const failure = this.injection.failures[kind] ?? 0;
    // Draw both numbers up front so the sequence does not depend on timing.
    const wait = latency ? latency.min + this.faults.int(latency.max - latency.min + 1) : 0;
    const fails = failure > 0 && this.faults.next() < failure;
    if (wait > 0) await pause(wait, signal);
    if (fails)
      return {
        outcome: 'error',
        error: { kind: 'unavailable', message: `simulated ${kind} failure (FLIGHTSTATUS_SIM_FAILURES)` },
      };
    return undefined;
  }
}
