// The timetable of one IATA season: who flies where, when, under which number, on which days, with
// which aircraft pool. Built from the world seed, the season and the reference data, once per season
// (cached by the world); the daily simulation (day.ts) then decides what actually happened.
//
// Ownership keeps days independent: every rotation (one aircraft's legs in one operating day) is
// owned by one catalogue airport and each of its legs touches that airport, so an airport's day can
// be generated on its own. A board at airport X collects X's own rotations and those of the owners
// listed in `visitors`, whose rotations also touch X.
import { distanceKm, type ReferenceAirport, type ReferenceAirports } from '../airports/index.js';
import type { Operation } from '../providers/types.js';
import { hashString, Rng } from './random.js';
import { offsetMinutes } from './time.js';
import { operationOf, type AircraftType, type Airline, type SimReference } from './reference.js';

export interface SimAircraft {
  registration: string;
  icao24: string;
  type: AircraftType;
  airline: Airline;
}

/** One scheduled leg of a rotation. */
export interface LegPlan {
  /** Unique within the season's timetable. */
  id: number;
  rotation: RotationPlan;
  /** Position in the rotation. */
  index: number;
  /** IATA designator (`W63101`), or the ICAO one for operators without an IATA code. */
  designator: string;
  icaoDesignator: string;
  /** As a board prints it: `W6 3101`. */
  printed: string;
  callsign: string;
  /** Marketing designators of partners sold on this leg. */
  codeshares: string[];
  from: ReferenceAirport;
  to: ReferenceAirport;
  /** Scheduled departure in minutes after local midnight (owner's zone) of the operating day; may be negative or past 1440. */
  departureMinute: number;
  /** Scheduled block time (gate to gate), minutes. */
  blockMinutes: number;
  /** Expected airborne time without padding, minutes. */
  airborneMinutes: number;
  distanceKm: number;
}

export interface RotationPlan {
  id: number;
  owner: string;
  /** The operator: its aircraft, callsigns and crews. */
  airline: Airline;
  /** The carrier whose name and numbers the flights are sold under (the operator, or its group). */
  seller: Airline;
  type: AircraftType;
  operation: Operation;
  /** Weekdays it operates: bit 0 = Monday … bit 6 = Sunday. */
  days: number;
  /**
   * The aircraft that flies it (the first of `tails`). A dedicated tail, home before the first
   * departure of the next day it flies (day.ts enforces that), can never be in two places.
   */
  aircraft: SimAircraft;
  /**
   * The tails that fly it in turn, one a day: one, unless its day does not end in time for the next
   * day's first departure (a long-haul visitor's out and back takes over a day), as airlines fly such
   * a daily route with two or three aircraft.
   */
  tails: SimAircraft[];
  legs: LegPlan[];
  turnaroundMinutes: number;
  /** Position among its owner's rotations (`byOwner`), so that an owner's day can keep them in an array. */
  slot: number;
  /** The date from which it does not fly because one of its airports is closed (Kharkiv); null if none is. */
  closedFrom: string | null;
}

export interface Timetable {
  season: string;
  byOwner: Map<string, RotationPlan[]>;
  byDesignator: DesignatorIndex;
  /** For each catalogue airport, the other owners whose rotations touch it. */
  visitors: Map<string, string[]>;
  aircraft: Map<string, SimAircraft>;
  /** The rotation each registration flies (a tail flies one rotation; a rotation may have several tails). */
  rotationOf: Map<string, RotationPlan>;
  /** Per owner: earliest and latest scheduled time of its legs, minutes from local midnight of the operating day. */
  spans: Map<string, { first: number; last: number }>;
  /**
   * By airport and board: for each owner whose legs leave (reach) it, those legs sorted by their
   * scheduled minute there, so a board finds its window by binary search. Complete at the catalogue
   * airports; elsewhere only the legs to and from them (the world simulates no other traffic).
   */
  stops: Map<string, Record<'departures' | 'arrivals', StopList[]>>;
  legCount: number;
}

/**
 * Legs by designator (IATA, ICAO and codeshare numbers). Nearly every designator names one leg in a
 * season (38,806 of 38,980), so a lone leg is kept as itself rather than in a one-element array: those
 * arrays were a fifth of the timetable's memory.
 */
export class DesignatorIndex {
  private readonly legs = new Map<string, LegPlan | LegPlan[]>();

  add(designator: string, leg: LegPlan): void {
    const found = this.legs.get(designator);
    if (found === undefined) this.legs.set(designator, leg);
    else if (Array.isArray(found)) found.push(leg);
    else this.legs.set(designator, [found, leg]);
  }

  /** The legs flown under a designator, in timetable order. */
  get(designator: string): readonly LegPlan[] {
    const found = this.legs.get(designator);
    return found === undefined ? [] : Array.isArray(found) ? found : [found];
  }
}

/**
 * One owner's legs leaving (or reaching) one airport, sorted by their scheduled minute
 * there (from the owner's local midnight), then by leg id. Kept as parallel arrays of numbers rather
 * than an object per leg: a board pass binary-searches `minutes`, then finds each leg's simulated day
 * by `slots` and `indexes` and orders the owners' legs by minute and id, all without loading a plan
 * (the plans are scattered over the heap, and these lookups were most of a warm board's time).
 */
export interface StopList {
  owner: string;
  minutes: number[];
  ids: number[];
  /** The rotation's `slot` and the leg's `index` in it. */
  slots: number[];
  indexes: number[];
  plans: LegPlan[];
}

const ALL_DAYS = 0b1111111;
/** Countries whose airspace the simulated airlines avoid (closed since 2022 to EU carriers, or war). */
export const AVOIDED_COUNTRIES: ReadonlySet<string> = new Set(['RU', 'BY', 'UA', 'IR', 'SY', 'YE', 'LY', 'AF']);
/** Where European leisure flights go. */
const SUN_COUNTRIES = new Set(['ES', 'PT', 'GR', 'IT', 'CY', 'TR', 'EG', 'MA', 'TN', 'HR', 'BG', 'MT', 'ME', 'AL']);
/** Bank centres in local minutes: morning, late morning, midday, afternoon, evening. */
const BANKS = [7 * 60, 10 * 60 + 30, 13 * 60 + 30, 17 * 60, 20 * 60];

export interface NetworkInputs {
  seed: number;
  season: string;
  summer: boolean;
  /** First day of the season (YYYY-MM-DD). */
  seasonStart: string;
  reference: SimReference;
  airports: ReferenceAirports;
  catalogue: readonly string[];
  fleets: FleetRegistry;
}

/** Spare time a tail has, after its day's last arrival and turnaround, before its next first departure. */
const TAIL_SPARE_MINUTES = 60;

/** How many tails a rotation needs to fly every day: its day, turned round, must end before the next first departure of its tail. */
function tailsNeeded(rotation: RotationPlan): number {
  const first = rotation.legs[0];
  const last = rotation.legs[rotation.legs.length - 1];
  if (!first || !last) return 1;
  const span =
    last.departureMinute +
    last.blockMinutes +
    rotation.turnaroundMinutes +
    5 +
    TAIL_SPARE_MINUTES -
    first.departureMinute;
  return Math.max(1, Math.ceil(span / (24 * 60)));
}

/** The tail that flies a rotation on an operating day (days since the epoch). */
export function tailOn(rotation: RotationPlan, day: number): SimAircraft {
  return rotation.tails[day % rotation.tails.length] ?? rotation.aircraft;
}

export function buildTimetable(inputs: NetworkInputs): Timetable {
  return new NetworkBuilder(inputs).build();
}

class NetworkBuilder {
  private readonly rotations: RotationPlan[] = [];
  private readonly byOwner = new Map<string, RotationPlan[]>();
  private readonly usedNumbers = new Map<string, Set<number>>();
  private readonly fleetCursor = new Map<string, number>();
  private legId = 0;
  private readonly catalogueSet: Set<string>;

  constructor(private readonly inputs: NetworkInputs) {
    this.catalogueSet = new Set(inputs.catalogue);
  }

  build(): Timetable {
    const { catalogue, airports } = this.inputs;
    for (const owner of catalogue) {
      const airport = airports.find(owner);
      if (!airport) throw new Error(`simulated world: catalogue airport ${owner} is not a reference airport`);
      this.byOwner.set(owner, []);
      this.buildOwner(airport);
    }

    for (const rotation of this.rotations) rotation.closedFrom = this.closedFrom(rotation);
    // Tails after every rotation's first: the first tails' registrations do not depend on how many more there are.
    for (const rotation of this.rotations) {
      rotation.tails = [rotation.aircraft];
      while (rotation.tails.length < tailsNeeded(rotation))
        rotation.tails.push(this.nextAircraft(rotation.airline, rotation.type));
    }

    const byDesignator = new DesignatorIndex();
    const touching = new Map<string, Set<string>>(catalogue.map((c) => [c, new Set<string>()]));
    let legCount = 0;
    for (const rotation of this.rotations) {
      for (const leg of rotation.legs) {
        legCount++;
        for (const designator of [leg.designator, leg.icaoDesignator, ...leg.codeshares])
          byDesignator.add(designator, leg);
        for (const end of [leg.from.iata, leg.to.iata]) {
          if (end !== rotation.owner) touching.get(end)?.add(rotation.owner);
        }
      }
    }
    const aircraft = new Map<string, SimAircraft>();
    const rotationOf = new Map<string, RotationPlan>();
    for (const rotation of this.rotations) {
      for (const tail of rotation.tails) {
        aircraft.set(tail.registration, tail);
        rotationOf.set(tail.registration, rotation);
      }
    }
    const visitors = new Map([...touching].map(([airport, owners]) => [airport, [...owners].sort()]));
    const spans = new Map<string, { first: number; last: number }>();
    for (const [owner, rotations] of this.byOwner) {
      let first = Infinity;
      let last = -Infinity;
      for (const leg of rotations.flatMap((r) => r.legs)) {
        first = Math.min(first, leg.departureMinute);
        last = Math.max(last, leg.departureMinute + leg.blockMinutes);
      }
      spans.set(owner, { first, last });
    }
    return {
      season: this.inputs.season,
      byOwner: this.byOwner,
      byDesignator,
      visitors,
      aircraft,
      rotationOf,
      spans,
      stops: this.stops(),
      legCount,
    };
  }

  /** The per-airport board index (`Timetable.stops`). */
  private stops(): Timetable['stops'] {
    type Stop = { minute: number; plan: LegPlan };
    const byAirport = new Map<string, Record<'departures' | 'arrivals', Map<string, Stop[]>>>();
    // Every airport a leg touches: complete boards at the catalogue airports (they own all their legs),
    // and at the others the legs to and from the catalogue (an airport the operator adds shows those).
    const add = (airport: string, board: 'departures' | 'arrivals', owner: string, stop: Stop) => {
      let boards = byAirport.get(airport);
      if (!boards) byAirport.set(airport, (boards = { departures: new Map(), arrivals: new Map() }));
      const list = boards[board].get(owner);
      if (list) list.push(stop);
      else boards[board].set(owner, [stop]);
    };
    for (const rotation of this.rotations) {
      for (const plan of rotation.legs) {
        add(plan.from.iata, 'departures', rotation.owner, { minute: plan.departureMinute, plan });
        add(plan.to.iata, 'arrivals', rotation.owner, { minute: plan.departureMinute + plan.blockMinutes, plan });
      }
    }
    const byMinute = (a: Stop, b: Stop) => a.minute - b.minute || a.plan.id - b.plan.id;
    const listOf = (owner: string, stops: Stop[]): StopList => {
      stops.sort(byMinute);
      // Plain arrays of small integers rather than typed arrays: most lists hold a few legs, and a
      // typed array's buffer costs more to keep than the numbers in it.
      return {
        owner,
        minutes: stops.map((s) => s.minute),
        ids: stops.map((s) => s.plan.id),
        slots: stops.map((s) => s.plan.rotation.slot),
        indexes: stops.map((s) => s.plan.index),
        plans: stops.map((s) => s.plan),
      };
    };
    const out: Timetable['stops'] = new Map();
    for (const [airport, boards] of byAirport) {
      out.set(airport, {
        departures: [...boards.departures].map(([owner, stops]) => listOf(owner, stops)),
        arrivals: [...boards.arrivals].map(([owner, stops]) => listOf(owner, stops)),
      });
    }
    return out;
  }

  /** The first date one of the rotation's airports is closed to traffic, if any. */
  private closedFrom(rotation: RotationPlan): string | null {
    let first: string | null = null;
    for (const leg of rotation.legs) {
      for (const airport of [leg.from, leg.to]) {
        const from = this.inputs.reference.traffic.get(airport.iata)?.closed?.from;
        if (from !== undefined && (first === null || from < first)) first = from;
      }
    }
    return first;
  }

  private rng(...parts: (string | number)[]): Rng {
    return new Rng(hashString(parts.join('|'), this.inputs.seed));
  }

  private buildOwner(owner: ReferenceAirport): void {
    const { reference, summer, season } = this.inputs;
    const traffic = reference.traffic.get(owner.iata);
    if (!traffic) return;
    const { seasonStart } = this.inputs;
    // A closed airport keeps the timetable it had, so dates before the closure still fly.
    const closedBefore = traffic.closed !== null && seasonStart >= traffic.closed.from;
    if (closedBefore) return;
    const perDay = traffic.departuresPerDay || (traffic.departuresPerDayBeforeClosure ?? 0);
    const departures = perDay * (summer ? 1 : 0.85);
    for (const entry of traffic.airlines) {
      const airline = reference.airlines.get(entry.iata ?? entry.icao ?? '');
      if (!airline || (airline.inactiveSince !== undefined && seasonStart >= airline.inactiveSince)) continue;
      const rng = this.rng('network', season, owner.iata, airline.icao);
      // Departures a day for this carrier; below one a day it flies on some weekdays only.
      const wanted = departures * entry.share;
      if (wanted <= 0) continue;
      const hubs = airline.hubs.filter((h) => h !== owner.iata && this.inputs.airports.find(h));
      const based = entry.based || hubs.length === 0;
      if (based) this.buildBased(owner, airline, wanted, rng);
      else this.buildVisiting(owner, airline, hubs, wanted, rng);
    }
  }

  /** Aircraft based at the owner: out-and-backs from the morning bank until late evening. */
  private buildBased(owner: ReferenceAirport, airline: Airline, wanted: number, rng: Rng): void {
    const operation = operationOf(airline);
    const destinations = this.networkFor(owner, airline, Math.max(1, Math.ceil(wanted / 1.6)), rng);
    if (destinations.length === 0) return;
    let produced = 0;
    let turn = 0;
    while (produced < wanted - 0.01) {
      const type = this.pickType(airline, rng);
      const days = wanted - produced < 1 ? this.someDays(wanted - produced, rng) : ALL_DAYS;
      const share = popcount(days) / 7;
      const turnaround = this.turnaround(airline, type);
      const rotation = this.newRotation(owner.iata, airline, type, operation, days, turnaround);
      let clock = operation === 'cargo' ? rng.between(20 * 12, 23 * 12) * 5 : rng.between(69, 90) * 5; // 05:45–07:30
      const lastDeparture = operation === 'cargo' ? 28 * 60 : 21 * 60 + 30;
      while (clock <= lastDeparture && produced < wanted - 0.01) {
        const destination = destinations[turn++ % destinations.length]!;
        const block = this.legTiming(owner, destination, type).blockMinutes;
        // Home by 01:30 (or by 09:00 for a night freighter), ready for the next day's first wave.
        if (clock + 2 * block + turnaround > (operation === 'cargo' ? 33 * 60 : 25 * 60 + 30)) break;
        const out = this.addLeg(rotation, owner, destination, clock, rng, true);
        // Ground times close to the minimum, as carriers plan them: a late inbound delays the outbound.
        const back = clock + out.blockMinutes + turnaround + rng.between(0, 2) * 5;
        const ret = this.addLeg(rotation, destination, owner, back, rng, false);
        produced += share;
        clock = back + ret.blockMinutes + turnaround + rng.between(0, 5) * 5;
        if (operation === 'cargo') break; // one night trip per freighter
      }
      if (rotation.legs.length === 0) {
        this.dropRotation(rotation);
        return; // nothing reachable fits in a day
      }
    }
  }

  /** Aircraft based at one of the carrier's hubs: in to the owner and straight back out. */
  private buildVisiting(owner: ReferenceAirport, airline: Airline, hubs: string[], wanted: number, rng: Rng): void {
    const operation = operationOf(airline);
    let produced = 0;
    while (produced < wanted - 0.01) {
      const hub = this.inputs.airports.find(
        rng.weighted(
          hubs,
          hubs.map((_, i) => (i === 0 ? 3 : 1)),
        ),
      )!;
      const type = this.pickType(airline, rng, distanceKm(hub, owner));
      const days = wanted - produced < 1 ? this.someDays(wanted - produced, rng) : ALL_DAYS;
      const turnaround = this.turnaround(airline, type);
      const rotation = this.newRotation(owner.iata, airline, type, operation, days, turnaround);
      const inbound = this.legTiming(hub, owner, rotation.type);
      const slack = rng.between(0, 6) * 5;
      const departure =
        operation === 'cargo'
          ? rng.between(22 * 12, 29 * 12) * 5
          : this.bankDeparture(owner, hub, inbound.blockMinutes, turnaround + slack, rng);
      const arrival = departure - turnaround - slack;
      this.addLeg(rotation, hub, owner, arrival - inbound.blockMinutes, rng, true);
      this.addLeg(rotation, owner, hub, departure, rng, false);
      produced += popcount(days) / 7;
    }
  }

  /**
   * A departure from the owner at one of its banks such that the inbound leaves the hub by day
   * (05:30–23:30 hub time): no short-haul flight leaves Geneva at 02:00 to make a 07:00 bank. Long
   * flights (over six hours) may fly overnight.
   */
  private bankDeparture(
    owner: ReferenceAirport,
    hub: ReferenceAirport,
    block: number,
    ground: number,
    rng: Rng,
  ): number {
    const noise = rng.normal() * 50;
    const shift = this.offsetAt(hub) - this.offsetAt(owner);
    const banks = rng.permutation(BANKS.length).map((i) => BANKS[i]!);
    for (const bank of banks) {
      const departure = Math.round((bank + noise) / 5) * 5;
      const leavesHub = departure - ground - block + shift;
      if (block > 6 * 60 || (leavesHub >= 5 * 60 + 30 && leavesHub <= 23 * 60 + 30)) return departure;
    }
    return Math.round((BANKS[BANKS.length - 1]! + Math.abs(noise)) / 5) * 5;
  }

  /** An airport's UTC offset in minutes, a week into the season. */
  private offsetAt(airport: ReferenceAirport): number {
    return offsetMinutes(airport.timezone, Date.parse(`${this.inputs.seasonStart}T12:00:00Z`) + 7 * 86_400_000);
  }

  private newRotation(
    owner: string,
    airline: Airline,
    type: AircraftType,
    operation: Operation,
    days: number,
    turnaroundMinutes: number,
  ): RotationPlan {
    const rotation: RotationPlan = {
      id: this.rotations.length,
      owner,
      airline,
      seller: this.sellerOf(airline),
      type,
      operation,
      days,
      aircraft: this.nextAircraft(airline, type),
      tails: [],
      legs: [],
      turnaroundMinutes,
      slot: this.byOwner.get(owner)!.length,
      closedFrom: null, // known once its legs are (build)
    };
    this.rotations.push(rotation);
    this.byOwner.get(owner)!.push(rotation);
    return rotation;
  }

  /** The airline's next unused aircraft of a type: the same sequence in every season. */
  private nextAircraft(airline: Airline, type: AircraftType): SimAircraft {
    const key = `${airline.icao}|${type.icao}`;
    const position = this.fleetCursor.get(key) ?? 0;
    this.fleetCursor.set(key, position + 1);
    return this.inputs.fleets.aircraft(airline, type, position);
  }

  private dropRotation(rotation: RotationPlan): void {
    this.rotations.pop();
    this.byOwner.get(rotation.owner)!.pop();
  }

  private legTiming(from: ReferenceAirport, to: ReferenceAirport, type: AircraftType) {
    const km = distanceKm(from, to);
    const cruiseKmh = type.cruiseKts * 1.852 * 0.95;
    // Climb and descent add about 20 minutes to the cruise; taxiing about 15; airlines pad by ~6 %.
    const airborneMinutes = (km / cruiseKmh) * 60 + 20;
    const blockMinutes = Math.round(((airborneMinutes + 15) * 1.06) / 5) * 5;
    return { km, airborneMinutes, blockMinutes };
  }

  private addLeg(
    rotation: RotationPlan,
    from: ReferenceAirport,
    to: ReferenceAirport,
    departureMinute: number,
    rng: Rng,
    outbound: boolean,
  ): LegPlan {
    const { airline } = rotation;
    const seller = this.sellerOf(airline);
    const timing = this.legTiming(from, to, rotation.type);
    const previous = rotation.legs[rotation.legs.length - 1];
    const number = outbound || !previous ? this.flightNumber(seller, rng) : this.returnNumber(seller, previous, rng);
    const code = seller.iata ?? seller.icao;
    const designator = `${code}${number}`;
    const icaoDesignator = `${seller.icao}${number}`;
    const leg: LegPlan = {
      id: this.legId++,
      rotation,
      index: rotation.legs.length,
      designator,
      icaoDesignator,
      printed: `${code} ${number}`,
      callsign: airline.alphanumericCallsigns
        ? alphanumericCallsign(airline.icao, number, rng)
        : `${airline.icao}${number}`,
      codeshares: this.codeshares(airline, rng),
      from,
      to,
      departureMinute,
      blockMinutes: timing.blockMinutes,
      airborneMinutes: timing.airborneMinutes,
      distanceKm: Math.round(timing.km),
    };
    rotation.legs.push(leg);
    return leg;
  }

  /** The carrier whose numbers a flight is sold under: the group's for its subsidiary operators. */
  sellerOf(airline: Airline): Airline {
    const seller = airline.marketingCarrier ? this.inputs.reference.airlines.get(airline.marketingCarrier) : undefined;
    return seller ?? airline;
  }

  private numbersOf(code: string): Set<number> {
    let used = this.usedNumbers.get(code);
    if (!used) this.usedNumbers.set(code, (used = new Set()));
    return used;
  }

  /** An unused odd number in the carrier's range, so that the return can take the next even one. */
  private flightNumber(airline: Airline, rng: Rng): number {
    const used = this.numbersOf(airline.icao);
    const [low, high] = airline.flightNumberRange;
    for (let attempt = 0; attempt < 200; attempt++) {
      const n = rng.between(low, high) | 1;
      if (n <= high && !used.has(n) && !used.has(n + 1)) {
        used.add(n);
        return n;
      }
    }
    for (let n = low | 1; n <= 9999; n += 2) if (!used.has(n)) return (used.add(n), n);
    throw new Error(`simulated world: ${airline.icao} ran out of flight numbers`);
  }

  private returnNumber(airline: Airline, previous: LegPlan, rng: Rng): number {
    const used = this.numbersOf(airline.icao);
    const next = Number(previous.designator.slice((airline.iata ?? airline.icao).length)) + 1;
    if (!used.has(next) && next <= 9999) return (used.add(next), next);
    return this.flightNumber(airline, rng);
  }

  /** Partners' marketing numbers on about half of a legacy carrier's legs. */
  private codeshares(airline: Airline, rng: Rng): string[] {
    if (airline.codeshares.length === 0 || !rng.chance(0.5)) return [];
    const partners = rng.chance(0.7) ? [rng.pick(airline.codeshares)] : airline.codeshares.slice(0, 2);
    const out: string[] = [];
    for (const partner of partners) {
      const used = this.numbersOf(`codeshare:${partner}`);
      let n = rng.between(5000, 9899);
      while (used.has(n)) n++;
      used.add(n);
      out.push(`${partner}${n}`);
    }
    return out;
  }

  /** A type from the fleet by share; widebodies rarely fly short routes, and long routes need the range. */
  private pickType(airline: Airline, rng: Rng, km = 0): AircraftType {
    const fleet = airline.fleet
      .map((f) => ({ share: f.share, type: this.inputs.reference.types.get(f.type) }))
      .filter((f): f is { share: number; type: AircraftType } => f.type !== undefined);
    if (fleet.length === 0) throw new Error(`simulated world: ${airline.icao} has no known aircraft type`);
    const able = fleet.filter((f) => f.type.rangeKm >= km * 1.1);
    if (able.length === 0) return fleet.reduce((a, b) => (b.type.rangeKm > a.type.rangeKm ? b : a)).type;
    return rng.weighted(
      able.map((f) => f.type),
      able.map((f) => f.share * (f.type.category === 'widebody' && km < 3500 ? 0.03 : 1)),
    );
  }

  /** Minimum ground time: the type's, longer for legacy carriers' fuller service. */
  private turnaround(airline: Airline, type: AircraftType): number {
    const extra = airline.model === 'legacy' && type.category === 'narrowbody' ? 15 : 0;
    return type.minTurnaroundMin + extra;
  }

  /** `count` weekdays out of seven for a service flown less than daily, e.g. 0.43 a day → 3 days. */
  private someDays(daily: number, rng: Rng): number {
    const count = Math.min(7, Math.max(1, Math.round(daily * 7)));
    let mask = 0;
    for (const day of rng.permutation(7).slice(0, count)) mask |= 1 << day;
    return mask;
  }

  /** The carrier's destinations from the owner this season, most important first. */
  private networkFor(owner: ReferenceAirport, airline: Airline, count: number, rng: Rng): ReferenceAirport[] {
    const candidates: ReferenceAirport[] = [];
    const weights: number[] = [];
    const longestRange = Math.max(...airline.fleet.map((f) => this.inputs.reference.types.get(f.type)?.rangeKm ?? 0));
    const domesticOnly = owner.countryCode === 'CL'; // Copiapó sees Chile's domestic network only
    for (const airport of this.inputs.airports.all) {
      if (airport.iata === owner.iata || AVOIDED_COUNTRIES.has(airport.countryCode)) continue;
      if (domesticOnly && airport.countryCode !== owner.countryCode) continue;
      const km = distanceKm(owner, airport);
      const weight = destinationWeight(airline, owner, airport, km, Math.min(longestRange * 0.85, 5500));
      if (weight <= 0) continue;
      candidates.push(airport);
      weights.push(weight * (this.catalogueSet.has(airport.iata) ? 3 : 1));
    }
    const chosen: ReferenceAirport[] = [];
    let total = weights.reduce((a, b) => a + b, 0);
    while (chosen.length < count && total > 0) {
      const pick = rng.weighted(candidates, weights, total);
      const i = candidates.indexOf(pick);
      total -= weights[i]!;
      weights[i] = 0;
      chosen.push(pick);
    }
    return chosen;
  }
}

function destinationWeight(
  airline: Airline,
  owner: ReferenceAirport,
  airport: ReferenceAirport,
  km: number,
  maxKm: number,
): number {
  const domestic = airport.countryCode === owner.countryCode;
  if (km < (domestic ? 150 : 300) || km > maxKm) return 0;
  const size = airport.size === 'large' ? 6 : 1;
  switch (airline.model) {
    case 'legacy':
      return size * (domestic ? 4 : 1) * (km < 2500 ? 1 : 0.3);
    case 'regional':
      return km < 1200 ? size * (domestic ? 4 : 1) : 0;
    case 'leisure':
      return SUN_COUNTRIES.has(airport.countryCode) && !domestic ? size * 3 : 0;
    case 'cargo':
      return airport.size === 'large' ? 1 : 0;
    case 'lowcost':
      return airport.continent === 'EU' || SUN_COUNTRIES.has(airport.countryCode)
        ? size * (km > 700 && km < 2800 ? 2 : 1) * (SUN_COUNTRIES.has(airport.countryCode) ? 1.5 : 1)
        : km < 4500 && (airport.continent === 'AS' || airport.continent === 'AF')
          ? size * 0.3
          : 0;
    default:
      return airport.continent === 'EU' ? size : 0;
  }
}

function popcount(mask: number): number {
  let n = 0;
  for (let m = mask; m; m >>= 1) n += m & 1;
  return n;
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Alphanumeric ATC callsign (RYR5GK style): one to three digits, then one or two letters. */
function alphanumericCallsign(icao: string, number: number, rng: Rng): string {
  const digits = String(1 + ((number * 7 + rng.int(50)) % 999)).slice(0, rng.between(1, 3));
  const letters = LETTERS[rng.int(26)]! + (rng.chance(0.7) ? LETTERS[rng.int(26)]! : '');
  return `${icao}${digits}${letters}`;
}

/**
 * Every airline's fleet as a sequence of aircraft with registrations in its country's format and
 * ICAO 24-bit addresses from its country's block. Aircraft n of an airline is the same in every
 * season, so a registration keeps its type and address; the carriers of one country share its
 * registration space in disjoint slices so that no two aircraft ever share a registration.
 */
export class FleetRegistry {
  private readonly slices = new Map<string, { index: number; of: number }>();
  private readonly made = new Map<string, SimAircraft>();

  constructor(
    private readonly seed: number,
    private readonly reference: SimReference,
  ) {
    const byCountry = new Map<string, string[]>();
    const seen = new Set<string>();
    for (const airline of reference.airlines.values()) {
      if (seen.has(airline.icao)) continue;
      seen.add(airline.icao);
      const list = byCountry.get(airline.registrationCountry) ?? [];
      list.push(airline.icao);
      byCountry.set(airline.registrationCountry, list);
    }
    for (const list of byCountry.values())
      list.forEach((icao, index) => this.slices.set(icao, { index, of: list.length }));
  }

  /** Aircraft number `position` of the airline's fleet of one type: the same tail in every season. */
  aircraft(airline: Airline, type: AircraftType, position: number): SimAircraft {
    const typeIndex = Math.max(
      0,
      airline.fleet.findIndex((f) => f.type === type.icao),
    );
    // Types interleave (aircraft 0 of each type, then 1 of each…), so numbers stay small and dense.
    const n = position * Math.max(1, airline.fleet.length) + typeIndex;
    const key = `${airline.icao}|${n}`;
    const made = this.made.get(key);
    if (made) return made;
    const country = this.reference.registrations.get(airline.registrationCountry);
    if (!country) throw new Error(`simulated world: no registration format for ${airline.registrationCountry}`);
    const slice = this.slices.get(airline.icao) ?? { index: 0, of: 1 };
    const isNumber = /digit/i.test(country.format ?? '') || country.prefix === 'N';
    const letters = country.letters ?? 3;
    const space = isNumber ? 900 * 26 * 26 : 26 ** letters;
    const sliceSize = Math.floor(space / slice.of);
    // An affine permutation of the slice spreads an airline's aircraft over its letters.
    const multiplier = coprimeMultiplier(sliceSize, hashString(airline.icao, this.seed));
    const code = slice.index * sliceSize + ((n * multiplier + (this.seed % sliceSize)) % sliceSize);
    const registration = isNumber ? nNumber(country.prefix, code) : country.prefix + lettersOf(code, letters);
    const [start, end] = country.icao24.map((h) => parseInt(h, 16)) as [number, number];
    const block = end - start + 1;
    // Addresses interleave the country's carriers too: unique while a carrier has fewer aircraft than
    // its share of the block (Malta's 1,024 addresses are the tightest).
    const address = start + ((slice.index + n * slice.of) % block);
    const aircraft: SimAircraft = {
      registration,
      icao24: address.toString(16).toUpperCase().padStart(6, '0'),
      type,
      airline,
    };
    this.made.set(key, aircraft);
    return aircraft;
  }
}

function coprimeMultiplier(size: number, hash: number): number {
  let m = (hash % Math.max(1, size - 1)) + 1;
  while (gcd(m, size) !== 1) m++;
  return m;
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

function lettersOf(code: number, count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) {
    out = LETTERS[code % 26]! + out;
    code = Math.floor(code / 26);
  }
  return out;
}

/** US style: N, three digits, two letters (N123FE). */
function nNumber(prefix: string, code: number): string {
  const digits = 100 + (code % 900);
  return `${prefix}${digits}${lettersOf(Math.floor(code / 900), 2)}`;
}
