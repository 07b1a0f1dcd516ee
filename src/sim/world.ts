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
import { buildTimetable, FleetRegistry, type Timetable } from './network.js';
import { simulateOwnerDay, type OwnerDay, type SimLeg } from './day.js';
import { boardRow, flightRecord } from './view.js';
import { addDays, localMidnight, seasonOf, utcDate } from './time.js';

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

/** One owner airport's day with the indexes boards and lookups need. */
interface IndexedDay extends OwnerDay {
  departuresFrom: Map<string, SimLeg[]>;
  arrivalsAt: Map<string, SimLeg[]>;
  byPlan: Map<number, SimLeg>;
}

export const DEFAULT_CACHED_DAYS = 400;

export class SimWorld {
  readonly seed: number;
  private readonly fleets: FleetRegistry;
  private readonly catalogueSet: Set<string>;
  private readonly closedFrom = new Map<string, string>();
  private readonly seasons = new LRUCache<string, Timetable>({ max: 4 });
  private readonly days: LRUCache<string, IndexedDay>;

  constructor(private readonly options: SimWorldOptions) {
    this.seed = hashString(String(options.seed));
    this.fleets = new FleetRegistry(this.seed, options.reference);
    this.catalogueSet = new Set(options.catalogue);
    for (const [iata, traffic] of options.reference.traffic) if (traffic.closed) this.closedFrom.set(iata, traffic.closed.from);
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

  /** Everything that happened on one owner airport's local operating day. */
  ownerDay(owner: string, operatingDate: string): IndexedDay {
    const key = `${owner}|${operatingDate}`;
    let day = this.days.get(key);
    if (day) return day;
    const timetable = this.timetable(operatingDate);
    const simulated = simulateOwnerDay(
      { seed: this.seed, timetable, airports: this.options.airports, closedFrom: this.closedFrom },
      owner,
      operatingDate,
    );
    const departuresFrom = new Map<string, SimLeg[]>();
    const arrivalsAt = new Map<string, SimLeg[]>();
    const byPlan = new Map<number, SimLeg>();
    for (const leg of simulated.legs) {
      byPlan.set(leg.plan.id, leg);
      if (this.catalogueSet.has(leg.plan.from.iata)) push(departuresFrom, leg.plan.from.iata, leg);
      if (this.catalogueSet.has(leg.plan.to.iata)) push(arrivalsAt, leg.plan.to.iata, leg);
    }
    day = { ...simulated, departuresFrom, arrivalsAt, byPlan };
    this.days.set(key, day);
    return day;
  }

  /**
   * The owner's operating dates (local) that have legs scheduled in [from, to): usually two, found
   * from the timetable's span of scheduled times so that no day is generated for nothing.
   */
  private operatingDates(owner: string, from: number, to: number): string[] {
    const zone = this.options.airports.find(owner)!.timezone;
    const out: string[] = [];
    for (let date = addDays(utcDate(from), -2); date <= utcDate(to + DAY); date = addDays(date, 1)) {
      const span = this.timetable(date).spans.get(owner);
      if (!span || span.first > span.last) continue;
      const midnight = localMidnight(zone, date);
      if (midnight + span.last * MINUTE >= from && midnight + span.first * MINUTE < to) out.push(date);
    }
    return out;
  }

  /** Owners whose rotations may touch the airport between two instants. */
  private ownersAt(airport: string, from: number, to: number): string[] {
    const owners = new Set([airport]);
    for (let date = addDays(utcDate(from), -2); date <= utcDate(to + DAY); date = addDays(date, 1)) {
      for (const owner of this.timetable(date).visitors.get(airport) ?? []) owners.add(owner);
    }
    return [...owners];
  }

  /** Legs at a catalogue airport whose scheduled time there lies in [from, to). */
  legsAt(airport: string, board: BoardKind, from: number, to: number): SimLeg[] {
    const out: SimLeg[] = [];
    for (const owner of this.ownersAt(airport, from, to)) {
      for (const date of this.operatingDates(owner, from, to)) {
        const day = this.ownerDay(owner, date);
        const legs = (board === 'departures' ? day.departuresFrom : day.arrivalsAt).get(airport);
        if (!legs) continue;
        for (const leg of legs) {
          const at = board === 'departures' ? leg.scheduledDeparture : leg.scheduledArrival;
          if (at >= from && at < to) out.push(leg);
        }
      }
    }
    return out.sort((a, b) =>
      board === 'departures'
        ? a.scheduledDeparture - b.scheduledDeparture || a.plan.id - b.plan.id
        : a.scheduledArrival - b.scheduledArrival || a.plan.id - b.plan.id,
    );
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
      const plans = this.timetable(date).byDesignator.get(designator) ?? [];
      for (const plan of plans) {
        const owner = plan.rotation.owner;
        let dates = datesByOwner.get(owner);
        if (!dates) datesByOwner.set(owner, (dates = this.operatingDates(owner, from, from + DAY)));
        if (!dates.includes(date)) continue;
        const leg = this.ownerDay(plan.rotation.owner, date).byPlan.get(plan.id);
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

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

