// The simulated world: deterministic from a seed, answering the provider questions (a flight by
// designator and date, a board at a moment, an aircraft by registration) and the operator's ground
// truth. Seasons' timetables and owner airports' days are generated on demand and kept in bounded
// LRU caches; nothing is stored, so any date, past or future, can be asked.
import { LRUCache } from 'lru-cache';
import { DAY, MINUTE } from '../clock.js';
import type { ReferenceAirports } from '../airports/index.js';
import type { AircraftRecord, BoardKind, BoardRow, ProviderFlight } from '../providers/types.js';
import { hashString } from './random.js';
import { operationOf, type Airline, type SimReference } from './reference.js';
import { buildTimetable, FleetRegistry, type LegPlan, type RotationPlan, type Timetable } from './network.js';
import { Hazards } from './hazards.js';
import { SimWeather } from './weather.js';
import { dayFrame, simulateRotationDay, type DayFrame, type DayInputs, type SimLeg } from './day.js';
import { boardRow, flightRecord } from './view.js';
import { addDays, dayNumber, localMidnight, seasonOf, utcDate } from './time.js';

export interface SimWorldOptions {
  /** Any text or number; the same seed gives the same world. */
  seed: string;
  /** IATA codes of the catalogue airports whose traffic is simulated. */
  catalogue: readonly string[];
  airports: ReferenceAirports;
  reference: SimReference;
  /** Owner airport-days kept in memory (each a few hundred kB at the largest airports). */
  cachedDays?: number;
}

/**
 * One owner airport's operating day, simulated rotation by rotation as questions need them: a board
 * simulates only the rotations with a leg in its window, a lookup only the rotation it asks about.
 * Rotations are independent, so the answer never depends on what was asked first.
 */
export class OwnerDay {
  /** The owner's rotations in the timetable, and their legs that day by the rotation's `slot` once simulated. */
  private readonly plans: RotationPlan[];
  private readonly simulated: (SimLeg[] | null)[];
  private all: SimLeg[] | null = null;

  constructor(
    private readonly inputs: DayInputs,
    readonly frame: DayFrame,
  ) {
    this.plans = inputs.timetable.byOwner.get(frame.owner) ?? [];
    this.simulated = new Array<SimLeg[] | null>(this.plans.length).fill(null);
  }

  get timetable(): Timetable {
    return this.inputs.timetable;
  }

  /** The rotation's legs that day, in order (empty when it does not operate). */
  rotation(plan: RotationPlan): SimLeg[] {
    return this.rotationAt(plan.slot);
  }

  /** The legs of the rotation in `slot` (its position among the owner's rotations). */
  rotationAt(slot: number): SimLeg[] {
    let legs = this.simulated[slot]!;
    if (legs === null) {
      legs = simulateRotationDay(this.inputs, this.plans[slot]!, this.frame);
      this.simulated[slot] = legs;
    }
    return legs;
  }

  leg(plan: LegPlan): SimLeg | undefined {
    return this.rotationAt(plan.rotation.slot)[plan.index];
  }

  /** Every leg of the day (simulates the rotations not simulated yet). */
  get legs(): SimLeg[] {
    if (this.all === null) {
      const all: SimLeg[] = [];
      for (let slot = 0; slot < this.plans.length; slot++) for (const leg of this.rotationAt(slot)) all.push(leg);
      this.all = all;
    }
    return this.all;
  }
}

export const DEFAULT_CACHED_DAYS = 400;

export class SimWorld {
  readonly seed: number;
  /** The world's weather and airport-wide hazards, which delay, divert and cancel its flights. */
  readonly weather: SimWeather;
  readonly hazards: Hazards;
  private readonly fleets: FleetRegistry;
  private readonly seasons = new LRUCache<string, Timetable>({ max: 4 });
  private readonly days: LRUCache<string, OwnerDay>;
  /** Memos of small derived facts, by UTC day number (plain maps, cleared when large: cheaper than an LRU). */
  private readonly spans = new Map<number, Map<string, Span>>();
  private readonly owners = new Map<string, string[]>();

  constructor(private readonly options: SimWorldOptions) {
    this.seed = hashString(String(options.seed));
    this.weather = new SimWeather(this.seed);
    this.hazards = new Hazards(this.seed, this.weather, new Set(options.catalogue));
    this.fleets = new FleetRegistry(this.seed, options.reference);
    this.days = new LRUCache({ max: options.cachedDays ?? DEFAULT_CACHED_DAYS });
  }

  get catalogue(): readonly string[] {
    return this.options.catalogue;
  }

  /** The timetable of the IATA season a (local or UTC) date falls in. */
  timetable(date: string): Timetable {
    const season = seasonOf(date);
    let timetable = this.seasons.get(season.key);
    if (!timetable) {
      timetable = buildTimetable({
        seed: this.seed,
        season: season.key,
        summer: season.summer,
        seasonStart: season.start,
        reference: this.options.reference,
        airports: this.options.airports,
        catalogue: this.options.catalogue,
        fleets: this.fleets,
      });
      this.seasons.set(season.key, timetable);
    }
    return timetable;
  }

  /** One owner airport's local operating day (its rotations are simulated on demand). */
  ownerDay(owner: string, operatingDate: string, key = dayKey(owner, operatingDate)): OwnerDay {
    let day = this.days.get(key);
    if (!day) {
      const inputs: DayInputs = {
        seed: this.seed,
        timetable: this.timetable(operatingDate),
        airports: this.options.airports,
        hazards: this.hazards,
      };
      day = new OwnerDay(inputs, dayFrame(inputs, owner, operatingDate));
      this.days.set(key, day);
    }
    return day;
  }

  /**
   * The owner's operating dates (local) that have legs scheduled in [from, to): usually two, found
   * from the timetable's span of scheduled times so that no day is generated for nothing.
   */
  private operatingDates(owner: string, from: number, to: number): string[] {
    const out: string[] = [];
    for (let day = dayNumber(from) - 2, last = dayNumber(to + DAY); day <= last; day++) {
      const span = this.spanOf(owner, day);
      if (span.end >= from && span.start < to) out.push(utcDate(day * DAY));
    }
    return out;
  }

  /** First and last scheduled instant of an owner's operating day (memoised: boards ask it often). */
  private spanOf(owner: string, day: number): Span {
    let owners = this.spans.get(day);
    if (!owners) {
      if (this.spans.size > 5_000) this.spans.clear();
      this.spans.set(day, (owners = new Map()));
    }
    let span = owners.get(owner);
    if (span === undefined) {
      const date = utcDate(day * DAY);
      const planned = this.timetable(date).spans.get(owner);
      if (!planned || planned.first > planned.last) span = NO_SPAN;
      else {
        const midnight = localMidnight(this.options.airports.find(owner)!.timezone, date);
        span = {
          start: midnight + planned.first * MINUTE,
          end: midnight + planned.last * MINUTE,
          midnight,
          dayKey: dayKey(owner, date),
        };
      }
      owners.set(owner, span);
    }
    return span;
  }

  /** Owners whose rotations may touch the airport between two instants. */
  private ownersAt(airport: string, from: number, to: number): string[] {
    const first = dayNumber(from) - 2;
    const last = dayNumber(to + DAY);
    const key = `${airport}|${first}|${last}`;
    let owners = this.owners.get(key);
    if (!owners) {
      const set = new Set([airport]);
      for (let day = first; day <= last; day++) {
        for (const owner of this.timetable(utcDate(day * DAY)).visitors.get(airport) ?? []) set.add(owner);
      }
      owners = [...set];
      if (this.owners.size > 5_000) this.owners.clear();
      this.owners.set(key, owners);
    }
    return owners;
  }

  /**
   * Whether the world shows boards at an airport around `at`: every catalogue airport, and any other
   * its legs reach in that season (showing only those legs: an airport the operator added to the catalogue).
   */
  hasBoards(airport: string, at: number): boolean {
    return this.options.catalogue.includes(airport) || this.timetable(utcDate(at)).stops.has(airport);
  }

  /**
   * Legs at an airport whose scheduled time there lies in [from, to), by scheduled time there, then
   * leg id: all of them at a catalogue airport, those to and from the catalogue elsewhere.
   */
  legsAt(airport: string, board: BoardKind, from: number, to: number): SimLeg[] {
    const legs: SimLeg[] = [];
    // Each leg's sort key (its scheduled time there, then its id) and where each owner-day's run of
    // legs starts: the season's stops are sorted already, so the runs only need merging.
    const times: number[] = [];
    const ids: number[] = [];
    const runs: number[] = [];
    for (let day = dayNumber(from) - 2, last = dayNumber(to + DAY); day <= last; day++) {
      const date = utcDate(day * DAY);
      // The owners with legs at the airport in the season of that operating day.
      for (const stops of this.timetable(date).stops.get(airport)?.[board] ?? []) {
        const span = this.spanOf(stops.owner, day);
        if (!(span.end >= from && span.start < to)) continue;
        const { minutes } = stops;
        const high = (to - span.midnight) / MINUTE;
        let i = lowerBound(minutes, (from - span.midnight) / MINUTE);
        if (i >= minutes.length || minutes[i]! >= high) continue;
        const ownerDay = this.ownerDay(stops.owner, date, span.dayKey);
        runs.push(legs.length);
        for (; i < minutes.length && minutes[i]! < high; i++) {
          const leg = ownerDay.rotationAt(stops.slots[i]!)[stops.indexes[i]!];
          // `=== undefined`, not `!leg`: truthiness would load the leg's (scattered) object header.
          if (leg === undefined) continue; // the rotation does not fly that day
          legs.push(leg);
          // The same sum as the leg's scheduled time (day.ts): the owner's local midnight plus whole minutes.
          times.push(span.midnight + minutes[i]! * MINUTE);
          ids.push(stops.ids[i]!);
        }
      }
    }
    return mergeRuns(legs, times, ids, runs);
  }

  /** The IANA zone of an airport the world knows; undefined otherwise. */
  timezoneOf(iata: string): string | undefined {
    return this.options.airports.find(iata)?.timezone;
  }

  /** The board as it looked at `at`. */
  board(airport: string, board: BoardKind, from: number, to: number, at: number): BoardRow[] {
    return this.legsAt(airport, board, from, to).map((leg) => boardRow(leg, board, at));
  }

  /** Every leg flown under a designator (IATA, ICAO or codeshare) with its flight date (UTC). */
  legsFor(designator: string, flightDate: string): SimLeg[] {
    const from = Date.parse(`${flightDate}T00:00:00Z`);
    const found: SimLeg[] = [];
    const seen = new Set<SimLeg>();
    const datesByOwner = new Map<string, string[]>();
    for (let date = addDays(flightDate, -1); date <= addDays(flightDate, 1); date = addDays(date, 1)) {
      const plans = this.timetable(date).byDesignator.get(designator);
      for (const plan of plans) {
        const owner = plan.rotation.owner;
        let dates = datesByOwner.get(owner);
        if (!dates) datesByOwner.set(owner, (dates = this.operatingDates(owner, from, from + DAY)));
        if (!dates.includes(date)) continue;
        const leg = this.ownerDay(plan.rotation.owner, date).leg(plan);
        if (leg && leg.flightDate === flightDate && !seen.has(leg)) {
          seen.add(leg);
          found.push(leg);
        }
      }
    }
    return found.sort((a, b) => a.scheduledDeparture - b.scheduledDeparture);
  }

  /** The flights a lookup at `at` returns, narrowed by origin and destination when given. */
  lookup(
    designator: string,
    flightDate: string,
    at: number,
    filter: { origin?: string | null; destination?: string | null } = {},
  ): ProviderFlight[] {
    return this.legsFor(designator, flightDate)
      .filter((leg) => !filter.origin || leg.plan.from.iata === filter.origin)
      .filter((leg) => !filter.destination || leg.plan.to.iata === filter.destination)
      .map((leg) => flightRecord(leg, at, designator, (code) => this.airline(code)));
  }

  airline(code: string): Airline | undefined {
    return this.options.reference.airlines.get(code);
  }

  /** The legs one aircraft flies with a scheduled departure in [from, to), in order. */
  legsOfAircraft(registration: string, from: number, to: number): SimLeg[] {
    const wanted = registration.trim().toUpperCase();
    const found: SimLeg[] = [];
    const seen = new Set<SimLeg>();
    for (let date = addDays(utcDate(from), -1); date <= utcDate(to); date = addDays(date, 1)) {
      const rotation = this.timetable(date).rotationOf.get(wanted);
      if (!rotation) continue;
      for (const leg of this.ownerDay(rotation.owner, date).rotation(rotation)) {
        if (
          leg.aircraft.registration === wanted &&
          leg.scheduledDeparture >= from &&
          leg.scheduledDeparture < to &&
          !seen.has(leg)
        ) {
          seen.add(leg);
          found.push(leg);
        }
      }
    }
    return found.sort((a, b) => a.scheduledDeparture - b.scheduledDeparture);
  }

  /** The aircraft's flights in [from, to) as a provider gives them at `at`. */
  flightsOfAircraft(registration: string, from: number, to: number, at: number): ProviderFlight[] {
    return this.legsOfAircraft(registration, from, to).map((leg) =>
      flightRecord(leg, at, leg.plan.designator, (code) => this.airline(code)),
    );
  }

  /** The aircraft behind a registration, in the fleets flying around `at`. */
  aircraft(registration: string, at: number): AircraftRecord | undefined {
    const wanted = registration.trim().toUpperCase();
    const date = utcDate(at);
    for (const day of [date, addDays(date, -120), addDays(date, 120)]) {
      const aircraft = this.timetable(day).aircraft.get(wanted);
      if (!aircraft) continue;
      const { airline, type } = aircraft;
      return {
        registration: aircraft.registration,
        icao24: aircraft.icao24,
        typeIcao: type.icao,
        typeIata: type.iata,
        label: type.label,
        airline: { name: airline.name, iata: airline.iata, icao: airline.icao },
        operation: operationOf(airline),
        seats: type.category === 'freighter' ? 0 : type.seats,
      };
    }
    return undefined;
  }

  /** Every leg touching a catalogue airport (or the given one) with its flight date on `date`. */
  legsOn(date: string, airport?: string): SimLeg[] {
    const from = Date.parse(`${date}T00:00:00Z`);
    const owners = airport ? this.ownersAt(airport, from, from + DAY) : this.options.catalogue;
    const out = new Set<SimLeg>();
    for (const owner of owners) {
      for (const operatingDate of this.operatingDates(owner, from, from + DAY)) {
        for (const leg of this.ownerDay(owner, operatingDate).legs) {
          if (leg.flightDate !== date) continue;
          if (airport && leg.plan.from.iata !== airport && leg.plan.to.iata !== airport) continue;
          out.add(leg);
        }
      }
    }
    return [...out].sort((a, b) => a.scheduledDeparture - b.scheduledDeparture || a.plan.id - b.plan.id);
  }
}

/** The span of an owner with no legs that day: overlaps no window. */
const NO_SPAN: Span = { start: Infinity, end: -Infinity, midnight: 0, dayKey: '' };

/** An owner's operating day as boards need it: its scheduled extent, local midnight and day-cache key. */
interface Span {
  start: number;
  end: number;
  midnight: number;
  /**
   * The key of `ownerDay`'s cache, built once: a board asks for the day with it for every owner with
   * legs in its window, and a new string would be hashed again on every lookup.
   */
  dayKey: string;
}

function dayKey(owner: string, operatingDate: string): string {
  return `${owner}|${operatingDate}`;
}

/** The first index whose minute is at or after `minute` (`minutes` ascending). */
function lowerBound(minutes: readonly number[], minute: number): number {
  let low = 0;
  let high = minutes.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (minutes[mid]! < minute) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * `items` ordered by (time, id): the runs starting at the offsets in `runs` are each sorted already,
 * so they are merged pairwise, comparing the parallel numbers only. A comparator sort over the items
 * cost a third of a warm board pass (it loaded two scattered objects per comparison).
 */
function mergeRuns<T>(items: T[], times: number[], ids: number[], runs: number[]): T[] {
  const n = items.length;
  if (runs.length <= 1) return items;
  let bounds = [...runs, n];
  let from = { items, times, ids };
  let into = { items: new Array<T>(n), times: new Array<number>(n), ids: new Array<number>(n) };
  while (bounds.length > 2) {
    const next = [0];
    for (let r = 0; r + 1 < bounds.length; r += 2) {
      const low = bounds[r]!;
      const middle = bounds[r + 1]!;
      const high = r + 2 < bounds.length ? bounds[r + 2]! : middle;
      let a = low;
      let b = middle;
      for (let k = low; k < high; k++) {
        const takeA =
          b >= high ||
          (a < middle &&
            (from.times[a]! < from.times[b]! || (from.times[a] === from.times[b] && from.ids[a]! < from.ids[b]!)));
        const j = takeA ? a++ : b++;
        into.items[k] = from.items[j]!;
        into.times[k] = from.times[j]!;
        into.ids[k] = from.ids[j]!;
      }
      next.push(high);
    }
    [from, into] = [into, from];
    bounds = next;
  }
  return from.items;
}
