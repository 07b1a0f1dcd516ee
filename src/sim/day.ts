// One owner airport's operating day: which of its rotations fly, which aircraft flies each, and what
// really happened to every leg (times, delays, cancellations, diversions), decided once from the seed
// and kept as ground truth. How the legs looked at earlier moments (estimates, status texts) is
// derived from this truth by view.ts, so the truth never depends on when it is asked.
//
// The delay model, calibrated against EUROCONTROL's published figures (docs/simulation.md):
// - each leg gets a primary delay: most push back within a few minutes of schedule, about a third
//   suffer an exponential delay, a small share a long technical or crew delay;
// - a leg cannot leave before its aircraft has arrived and turned round (reactionary delay), so a
//   late inbound makes the outbound late;
// - some days are rougher at an airport (congestion): more and longer delays;
// - the world's hazards (hazards.ts: its weather, ATC restrictions, airport failures, strikes) delay,
//   cancel and divert the legs that leave or arrive inside their windows, and name the cause;
// - airborne time varies with winds and routing; schedules are padded, so on-time departures often
//   arrive early;
// - carriers cancel an out-and-back pair together, cancel what could not be back before the
//   aircraft's first departure the next day, and after a diversion cancel the rest of its day.
import { DAY, MINUTE } from '../clock.js';
import type { ReferenceAirport, ReferenceAirports } from '../airports/index.js';
import { distanceKm } from '../airports/index.js';
import { hashNumbers, hashString, Rng } from './random.js';
import type { CauseKind, Hazard, Hazards } from './hazards.js';
import { tailOn, type LegPlan, type RotationPlan, type SimAircraft, type Timetable } from './network.js';
import { addDays, dayNumber, localMidnight, utcDate, weekday } from './time.js';

/** What really happened to one leg, plus the moments its story was revealed. */
export interface SimLeg {
  plan: LegPlan;
  /** Owner's local operating date. */
  operatingDate: string;
  /** UTC date of the scheduled departure: the flight date. */
  flightDate: string;
  aircraft: SimAircraft;
  scheduledDeparture: number;
  scheduledArrival: number;
  /** Off-block; null when cancelled. */
  actualDeparture: number | null;
  /** On-block at the airport it landed at (the diversion airport when diverted); null when cancelled. */
  actualArrival: number | null;
  takeoff: number | null;
  landing: number | null;
  cancelled: boolean;
  /** When the carrier published the cancellation. */
  cancelledAt: number | null;
  divertedTo: ReferenceAirport | null;
  /** Whether boards name the diversion airport or only say "Diverted". */
  diversionNamed: boolean;
  /** When the aircraft turned away from its destination. */
  divertedAt: number | null;
  /** Earliest moment the aircraft could leave (inbound arrival plus turnaround, or the schedule). */
  readyAt: number;
  /** When the reactionary part became known (the inbound left); -Infinity without an inbound. */
  readyKnownAt: number;
  /** Primary delay minutes, and when the carrier first and finally announced it. */
  primaryDelay: number;
  firstNoticeAt: number;
  finalNoticeAt: number;
  /** Fraction of the primary delay the first notice announced (0.5–1.3). */
  firstNoticeShare: number;
  /** Fixed per-leg noise for in-flight arrival estimates, in standard deviations. */
  estimateNoise: number;
  departureRunway: string | null;
  arrivalRunway: string | null;
  /** Why its own (primary) delay happened: `none` under 15 minutes. */
  primaryCause: CauseKind;
  /** Why it was cancelled or diverted; null when it was neither. */
  disruptionCause: CauseKind | null;
  /** For a knock-on cancellation: the leg where it started (a diverted or grounded leg, or a late one). */
  disruptionOrigin: SimLeg | null;
  /** The aircraft's previous leg that day, whose arrival this one waited for; null for its first. */
  inbound: SimLeg | null;
}

export interface DayInputs {
  seed: number;
  timetable: Timetable;
  airports: ReferenceAirports;
  hazards: Hazards;
}

/** Separate draw streams for a rotation's decisions and each leg's. */
const ROTATION_DRAWS = 1;
const LEG_DRAWS = 2;

/** Probability that an out-and-back pair is cancelled for the airline's own reasons (crew, technical). */
const PAIR_CANCELLATION = 0.0062;
/** Of those, the share a missing crew causes (the aircraft flies its other legs); the rest are faults that ground it. */
const CREW_SHARE = 0.55;
/** Probability that a leg diverts for a technical or medical reason (weather and airports add theirs). */
const DIVERSION = 0.0008;
/** Probability a leg gets a primary delay beyond a few minutes, on an undisturbed day. */
const DELAY_CHANCE = 0.285;
/** Mean of that primary delay, minutes. */
const DELAY_MEAN = 19;
/** Probability of a long delay (technical fault, crew hours): the tail past three hours. */
const LONG_DELAY_CHANCE = 0.003;
/** No departure later than this after schedule; carriers cancel instead. */
const MAX_DELAY = 11 * 60 * MINUTE;

/**
 * Disturbance factors drawn so far, by airport and then UTC day number, for one seed. They are asked
 * three times per simulated leg, so the frame keeps its seed's table and the days are keyed by number
 * (no date string is built or hashed to find one).
 */
type Disturbances = WeakMap<ReferenceAirport, Map<number, number>>;
const disturbancesBySeed = new Map<number, Disturbances>();

function disturbancesOf(seed: number): Disturbances {
  let table = disturbancesBySeed.get(seed);
  if (!table) disturbancesBySeed.set(seed, (table = new WeakMap()));
  return table;
}

/** How congested an airport is on the UTC day of `at`: about 1 on a normal day, up to 1.9 on a rough one. */
function disturbance(frame: DayFrame, airport: ReferenceAirport, at: number): number {
  const day = dayNumber(at);
  let days = frame.disturbances.get(airport);
  if (!days) frame.disturbances.set(airport, (days = new Map()));
  let factor = days.get(day);
  if (factor === undefined) {
    const rng = new Rng(hashString(`disturbance|${airport.iata}|${utcDate(day * DAY)}`, frame.seed));
    const roll = rng.next();
    if (roll < 0.16)
      factor = 1.4 + rng.next() * 0.5; // a rough day (the hazards make the bad ones)
    else factor = 0.8 + rng.next() * 0.35;
    if (days.size > 5_000) days.clear();
    days.set(day, factor);
  }
  return factor;
}

/** What every rotation of one owner's operating day shares. */
export interface DayFrame {
  owner: string;
  operatingDate: string;
  /** The operating date as a day number since the epoch (seeds the day's draws without building strings). */
  day: number;
  /** Local midnight starting the operating day, and the next one. */
  midnight: number;
  tomorrow: number;
  dayBit: number;
  seed: number;
  /** The seed's disturbance factors (shared by every frame of the seed). */
  disturbances: Disturbances;
}

export function dayFrame(inputs: DayInputs, owner: string, operatingDate: string): DayFrame {
  const zone = inputs.airports.find(owner)!.timezone;
  return {
    owner,
    operatingDate,
    day: Math.round(Date.parse(`${operatingDate}T00:00:00Z`) / DAY),
    midnight: localMidnight(zone, operatingDate),
    tomorrow: localMidnight(zone, addDays(operatingDate, 1)),
    dayBit: 1 << weekday(operatingDate),
    seed: inputs.seed,
    disturbances: disturbancesOf(inputs.seed),
  };
}

/**
 * What happened to one rotation's legs on an operating day, in leg order; empty when it does not
 * operate that day. Rotations are independent of each other, so a board can simulate only those it
 * shows.
 */
export function simulateRotationDay(inputs: DayInputs, rotation: RotationPlan, frame: DayFrame): SimLeg[] {
  if (!(rotation.days & frame.dayBit)) return [];
  if (rotation.closedFrom !== null && frame.operatingDate >= rotation.closedFrom) return [];
  // Sized up front: a pushed-to empty array gets room for 17 elements, and a day keeps thousands of
  // these 2–8 leg arrays. Every slot is filled (one leg per plan).
  const legs = new Array<SimLeg>(rotation.legs.length);
  simulateRotation(inputs, rotation, frame, legs);
  return legs;
}

function simulateRotation(inputs: DayInputs, rotation: RotationPlan, frame: DayFrame, out: SimLeg[]): void {
  const { seed } = inputs;
  const { midnight, tomorrow } = frame;
  const rng = new Rng(hashNumbers(seed, ROTATION_DRAWS, rotation.id, frame.day));
  const turnaround = rotation.turnaroundMinutes * MINUTE;
  // The aircraft must be home, turned round, before the first departure of the next day it flies this
  // rotation (which may leave five minutes early): tomorrow, or later when the rotation has more tails.
  const tail = tailOn(rotation, frame.day);
  const homeBy =
    tomorrow + (rotation.tails.length - 1) * DAY + rotation.legs[0]!.departureMinute * MINUTE - turnaround - 5 * MINUTE;
  let inbound: SimLeg | null = null;
  /** Set when the aircraft is stuck away after a diversion or grounded by a fault: the rest of its day is cancelled from then. */
  let grounded: { at: number; by: SimLeg | null } | null = null;

  const plans = rotation.legs;
  for (let i = 0; i < plans.length; i += 2) {
    // The pair plans[i], plans[i + 1] (the last leg may have no return).
    const first = plans[i]!;
    const scheduled = midnight + first.departureMinute * MINUTE;
    const factor = disturbance(frame, first.from, scheduled);
    // Out-and-back pairs are cancelled together.
    let pair = pairCancellation(inputs, rotation, first, scheduled, factor, rng);
    for (let j = i; j < i + 2 && j < plans.length; j++) {
      const plan = plans[j]!;
      const leg = simulateLeg(inputs, plan, frame, tail, inbound, turnaround);
      const knownAt = Math.max(leg.firstNoticeAt, leg.readyKnownAt);
      if (grounded !== null) cancel(leg, grounded.at, 'knock_on', grounded.by);
      else if (pair !== null) cancel(leg, pair.notice, pair.cause, pair.origin);
      else if (plan === first) {
        // An outbound hopelessly late, or that could not fly there and back before the aircraft is
        // needed tomorrow, is cancelled with its return once the carrier knows; the aircraft stays.
        // The margin is what the schedule leaves: a long-haul pair planned to be home just in time
        // flies when it is on time.
        const back = plans[i + 1];
        const blocks = back ? (plan.blockMinutes + back.blockMinutes) * MINUTE + turnaround : 0;
        const margin = Math.min(HOME_MARGIN_MINUTES * MINUTE, Math.max(0, homeBy - leg.scheduledDeparture - blocks));
        const home = back ? leg.actualDeparture! + blocks + margin : leg.actualArrival!;
        if (leg.actualDeparture! - leg.scheduledDeparture > MAX_DELAY || home > homeBy) {
          // Hardly late, yet home too late for the next first departure: the crew's hours run out.
          const late = delayCauseOf(leg);
          const cause = late.kind === 'none' ? { kind: 'crew' as const, origin: null } : late;
          pair = { notice: knownAt, cause: cause.kind, origin: cause.origin };
          cancel(leg, knownAt, cause.kind, cause.origin);
        }
      } else {
        // The return: the carrier protects tomorrow's first departure by holding the delay down.
        bringHomeBy(leg, homeBy);
      }
      if (!leg.cancelled && leg.divertedAt !== null) grounded = { at: leg.divertedAt, by: leg };
      if (!leg.cancelled) inbound = leg;
      out[j] = leg;
    }
    // A fault that cancelled a pair keeps the aircraft on the ground for the rest of its day.
    if (pair?.cause === 'technical') grounded ??= { at: pair.notice, by: out[i]! };
  }
}

interface PairCancellation {
  notice: number;
  cause: CauseKind;
  origin: SimLeg | null;
}

/**
 * What a hazard does to a leg leaving or arriving inside it (docs/simulation.md, "Weather and causes"):
 * the chance it cancels the out-and-back pair, delays the leg (a least delay plus an exponential mean,
 * minutes), or diverts it on landing.
 */
interface Effect {
  cancel: number;
  delay: { chance: number; least: number; mean: number } | null;
  divert: number;
}
const NONE: Effect = { cancel: 0, delay: null, divert: 0 };
const ATC: Effect = { cancel: 0.015, delay: { chance: 0.65, least: 10, mean: 45 }, divert: 0 };
const EFFECTS: Record<Hazard['kind'], Record<Hazard['level'], Effect>> = {
  weather: {
    severe: { cancel: 0.12, delay: { chance: 0.8, least: 20, mean: 75 }, divert: 0.06 },
    moderate: { cancel: 0, delay: { chance: 0.5, least: 5, mean: 20 }, divert: 0 },
  },
  // ATC restrictions slow traffic (Hazards gives them as moderate), never stop it.
  atc: { severe: ATC, moderate: ATC },
  airport: { severe: { cancel: 0.22, delay: { chance: 0.8, least: 20, mean: 80 }, divert: 0.15 }, moderate: NONE },
  third_party_strike: {
    severe: { cancel: 0.55, delay: { chance: 0.6, least: 15, mean: 60 }, divert: 0 },
    moderate: NONE,
  },
  airline_strike: { severe: { cancel: 0.7, delay: null, divert: 0 }, moderate: NONE },
};

/**
 * Whether the pair starting with `first` is cancelled before it flies, when it is announced and why:
 * the operator's strike, a hazard where the outbound leaves or lands, or the airline's own reasons.
 */
function pairCancellation(
  inputs: DayInputs,
  rotation: RotationPlan,
  first: LegPlan,
  scheduled: number,
  factor: number,
  rng: Rng,
): PairCancellation | null {
  const { hazards } = inputs;
  const arrival = scheduled + first.blockMinutes * MINUTE;
  const candidates = [
    hazards.airlineStrike(rotation.airline.icao, scheduled),
    hazards.at(first.from, scheduled),
    hazards.at(first.to, arrival),
  ];
  for (const hazard of candidates) {
    if (!hazard || !rng.chance(EFFECTS[hazard.kind][hazard.level].cancel)) continue;
    // Strikes are announced days ahead, and flights cancelled soon after; weather and failures on the day.
    const notice =
      hazard.announcedAt < scheduled - DAY
        ? hazard.announcedAt + rng.between(60, 12 * 60) * MINUTE
        : scheduled - rng.between(45, 180) * MINUTE;
    return { notice, cause: hazard.kind, origin: null };
  }
  if (rng.chance(PAIR_CANCELLATION * factor * factor)) {
    // A missing crew is known when the rosters are set, the evening before; a fault when the aircraft is checked.
    if (rng.chance(CREW_SHARE))
      return { notice: scheduled - rng.between(10 * 60, 30 * 60) * MINUTE, cause: 'crew', origin: null };
    return { notice: scheduled - rng.between(45, 180) * MINUTE, cause: 'technical', origin: null };
  }
  return null;
}

/**
 * Why a flown leg was late: its inbound's lateness when it waited longer for the aircraft than its
 * own delay added (knock-on, from the leg where the chain started), else its own primary cause.
 */
export function delayCauseOf(leg: SimLeg): { kind: CauseKind; origin: SimLeg | null } {
  const inherited = Math.max(0, leg.readyAt - leg.scheduledDeparture);
  const own = leg.actualDeparture! - leg.scheduledDeparture - inherited;
  if (leg.inbound && inherited > 0 && inherited >= own) return { kind: 'knock_on', origin: originLeg(leg.inbound) };
  return { kind: leg.primaryCause, origin: null };
}

/** The leg where a chain of late aircraft started: back through inbounds while the lateness was inherited. */
function originLeg(leg: SimLeg): SimLeg {
  let at = leg;
  while (at.inbound && !at.cancelled) {
    const inherited = Math.max(0, at.readyAt - at.scheduledDeparture);
    const own = at.actualDeparture! - at.scheduledDeparture - inherited;
    if (inherited === 0 || inherited < own) break;
    at = at.inbound;
  }
  return at;
}

/** Slack kept for the return leg's own delay when deciding whether an out-and-back still fits. */
const HOME_MARGIN_MINUTES = 30;

/** Moves a return leg earlier (within what its readiness allows) so it is home by `homeBy`. */
function bringHomeBy(leg: SimLeg, homeBy: number): void {
  if (leg.cancelled || leg.divertedAt !== null || leg.actualArrival! <= homeBy) return;
  const earliest = Math.max(leg.readyAt, leg.scheduledDeparture - 5 * MINUTE);
  let shift = Math.min(leg.actualArrival! - homeBy, leg.actualDeparture! - earliest);
  leg.actualDeparture! -= shift;
  leg.takeoff! -= shift;
  leg.landing! -= shift;
  leg.actualArrival! -= shift;
  // Still late: a shorter taxi and a direct routing make up the rest (a few minutes at most).
  shift = leg.actualArrival! - homeBy;
  if (shift > 0) {
    const squeeze = Math.min(shift, Math.max(0, leg.landing! - leg.takeoff! - 30 * MINUTE));
    leg.landing! -= squeeze;
    leg.actualArrival! -= squeeze;
  }
  leg.primaryDelay = Math.round((leg.actualDeparture! - Math.max(leg.readyAt, leg.scheduledDeparture)) / MINUTE);
  leg.finalNoticeAt = Math.min(leg.finalNoticeAt, leg.actualDeparture! - 10 * MINUTE);
  leg.firstNoticeAt = Math.min(leg.firstNoticeAt, leg.finalNoticeAt);
}

function cancel(leg: SimLeg, at: number, cause: CauseKind, origin: SimLeg | null): void {
  leg.cancelled = true;
  leg.disruptionCause = cause;
  leg.disruptionOrigin = origin;
  leg.cancelledAt = Math.min(at, leg.scheduledDeparture);
  leg.actualDeparture = null;
  leg.actualArrival = null;
  leg.takeoff = null;
  leg.landing = null;
  leg.divertedTo = null;
  leg.divertedAt = null;
  leg.departureRunway = null;
  leg.arrivalRunway = null;
}

function simulateLeg(
  inputs: DayInputs,
  plan: LegPlan,
  frame: DayFrame,
  aircraft: SimAircraft,
  inbound: SimLeg | null,
  turnaround: number,
): SimLeg {
  const { seed, airports, hazards } = inputs;
  const rng = new Rng(hashNumbers(seed, LEG_DRAWS, plan.id, frame.day));
  const scheduledDeparture = frame.midnight + plan.departureMinute * MINUTE;
  const scheduledArrival = scheduledDeparture + plan.blockMinutes * MINUTE;
  const flightDate = utcDate(scheduledDeparture);
  const factor = disturbance(frame, plan.from, scheduledDeparture);

  // Reactionary: the aircraft must have arrived and turned round.
  let readyAt = scheduledDeparture;
  let readyKnownAt = -Infinity;
  if (inbound && inbound.actualArrival !== null) {
    readyAt = Math.max(scheduledDeparture, inbound.actualArrival + turnaround);
    readyKnownAt = inbound.actualDeparture ?? inbound.scheduledDeparture;
  }

  // Primary delay: the airline's own (a long one is a technical fault), or a hazard's where the leg
  // leaves or lands (flow regulations hold departures for the destination too), whichever is longer.
  let primary: number;
  if (rng.chance(LONG_DELAY_CHANCE * factor)) primary = 120 + rng.exponential(110);
  else if (rng.chance(Math.min(0.85, DELAY_CHANCE * factor))) primary = 3 + rng.exponential(DELAY_MEAN * factor);
  else primary = rng.between(-5, 4);
  let primaryCause: CauseKind = primary >= 15 ? 'technical' : 'none';
  for (const hazard of [hazards.at(plan.from, scheduledDeparture), hazards.at(plan.to, scheduledArrival)]) {
    if (!hazard) continue;
    const effect = EFFECTS[hazard.kind][hazard.level].delay;
    if (!effect || !rng.chance(effect.chance)) continue;
    const delay = effect.least + rng.exponential(effect.mean);
    if (delay > primary) {
      primary = delay;
      primaryCause = hazard.kind;
    }
  }
  primary = Math.round(primary);
  // Small early pushbacks only when the aircraft is there and turned round.
  const earliest = Math.max(
    scheduledDeparture - 5 * MINUTE,
    inbound?.actualArrival != null ? inbound.actualArrival + turnaround : -Infinity,
  );
  const actualDeparture = Math.max(readyAt + primary * MINUTE, earliest);

  // Notices: long delays are known hours ahead; short ones often only near departure.
  const lead = primary >= 60 ? rng.between(60, 240) : primary >= 15 ? rng.between(10, 120) : rng.between(0, 30);
  const firstNoticeAt = scheduledDeparture - lead * MINUTE;
  const finalNoticeAt = Math.min(actualDeparture - 10 * MINUTE, firstNoticeAt + rng.between(10, 90) * MINUTE);
  const firstNoticeShare = 0.5 + rng.next() * 0.8;

  // Flight: taxi out, airborne with wind and routing noise, taxi in.
  const taxiOut = 7 + rng.exponential(4 * Math.sqrt(factor));
  const airborne = plan.airborneMinutes * (1 + rng.normal() * 0.035) + rng.exponential(2 * factor);
  const taxiIn = 3 + rng.exponential(3);
  const takeoff = actualDeparture + Math.round(taxiOut) * MINUTE;
  let landing = takeoff + Math.round(airborne) * MINUTE;
  let actualArrival = landing + Math.round(taxiIn) * MINUTE;

  let divertedTo: ReferenceAirport | null = null;
  let divertedAt: number | null = null;
  let diversionNamed = false;
  let divertCause: CauseKind | null = null;
  const atLanding = hazards.at(plan.to, landing);
  if (atLanding && rng.chance(EFFECTS[atLanding.kind][atLanding.level].divert)) divertCause = atLanding.kind;
  else if (rng.chance(DIVERSION)) divertCause = 'technical';
  if (divertCause) {
    divertedTo = alternateFor(airports, plan.to, plan.from, rng);
    if (divertedTo) {
      divertedAt = takeoff + Math.round(airborne * (0.6 + rng.next() * 0.35)) * MINUTE;
      const extra = (distanceKm(plan.to, divertedTo) / 600) * 60 + 20 + rng.exponential(15);
      landing = divertedAt + Math.round(extra) * MINUTE;
      actualArrival = landing + Math.round(taxiIn) * MINUTE;
      diversionNamed = rng.chance(0.75);
    }
  }

  return {
    plan,
    operatingDate: frame.operatingDate,
    flightDate,
    aircraft,
    scheduledDeparture,
    scheduledArrival,
    actualDeparture,
    actualArrival,
    takeoff,
    landing,
    cancelled: false,
    cancelledAt: null,
    divertedTo,
    diversionNamed,
    divertedAt,
    readyAt,
    readyKnownAt,
    primaryDelay: primary,
    firstNoticeAt,
    finalNoticeAt: Math.max(firstNoticeAt, finalNoticeAt),
    firstNoticeShare,
    estimateNoise: rng.normal(),
    departureRunway: runwayAt(plan.from.iata, rng),
    arrivalRunway: divertedTo ? null : runwayAt(plan.to.iata, rng),
    primaryCause: primary >= 15 ? primaryCause : 'none',
    disruptionCause: divertedTo ? divertCause : null,
    disruptionOrigin: null,
    inbound,
  };
}

/** The nearest other airport 40–400 km from the destination, preferring large ones. */
function alternateFor(
  airports: ReferenceAirports,
  destination: ReferenceAirport,
  origin: ReferenceAirport,
  rng: Rng,
): ReferenceAirport | null {
  const near = nearestAlternates(airports, destination)
    .filter((airport) => airport.iata !== origin.iata)
    .slice(0, 4);
  if (near.length === 0) return null;
  return rng.weighted(
    near,
    near.map((a) => (a.size === 'large' ? 3 : 1)),
  );
}

const alternates = new WeakMap<ReferenceAirport, ReferenceAirport[]>();

/** The five airports nearest a destination at 40–400 km, nearest first (a scan of every airport, so kept). */
function nearestAlternates(airports: ReferenceAirports, destination: ReferenceAirport): ReferenceAirport[] {
  let near = alternates.get(destination);
  if (!near) {
    const options: { airport: ReferenceAirport; km: number }[] = [];
    for (const airport of airports.all) {
      if (airport.iata === destination.iata || Math.abs(airport.latitude - destination.latitude) > 4) continue;
      const km = distanceKm(destination, airport);
      if (km >= 40 && km <= 400) options.push({ airport, km });
    }
    near = options
      .sort((a, b) => a.km - b.km)
      .slice(0, 5)
      .map((option) => option.airport);
    alternates.set(destination, near);
  }
  return near;
}

/** Runways in use, published for the catalogue's larger airports (others publish none). */
const RUNWAYS = new Map<string, string[]>(
  Object.entries({
    OTP: ['08R', '26L'],
    BUD: ['31R', '31L', '13L', '13R'],
    VIE: ['29', '34', '11', '16'],
    CDG: ['27R', '26L', '27L', '26R', '09L', '08R'],
    ORY: ['06', '24', '25'],
    LGW: ['26L', '08R'],
    STN: ['22', '04'],
    LTN: ['25', '07'],
    MAN: ['23R', '23L', '05L', '05R'],
    BHX: ['33', '15'],
    FCO: ['16R', '16L', '25', '34L'],
    MXP: ['35R', '35L', '17L', '17R'],
    BCN: ['24R', '24L', '06R', '06L'],
    MAD: ['32R', '32L', '36L', '36R', '14L', '18R'],
    CPH: ['22R', '22L', '04L', '04R', '12', '30'],
    ARN: ['19R', '19L', '01L', '01R', '26'],
    OSL: ['19R', '19L', '01L', '01R'],
    ATH: ['03R', '03L', '21R', '21L'],
    LIS: ['03', '21'],
    BRU: ['25R', '25L', '01', '07L'],
    WAW: ['33', '29', '15', '11'],
  }),
);

function runwayAt(iata: string, rng: Rng): string | null {
  const runways = RUNWAYS.get(iata);
  return runways ? rng.pick(runways) : null;
}
