// Airport-wide and carrier-wide disruption from what the boards the service watches showed (no
// provider call): how many flights due at an airport around the flight's time were delayed or
// cancelled, against the mean of the same hours on the seven days before; the day's cancellations;
// and the carrier's cancellations across every watched airport. The thresholds (docs/weather.md,
// "Airport-wide disruption") are what separates a wave from a busy hour.
//
// Today's window is read as events (which flights, when they appeared, their carriers); the seven
// days before are counted hour by hour by the database, and hours long past are kept (baselines.ts).
import { HOUR, iso } from '../clock.js';
import { SHORT_NOTICE, type AirportFigures, type Baseline, type BoardSighting } from './shapes.js';

/** The window around the flight's time at the airport, by whole hours: the hour before it to two after. */
export const WINDOW_BEFORE = HOUR;
export const WINDOW_AFTER = 2 * HOUR;
/** The day around it (strikes cancel whole days), and how many days before make "usual". */
export const DAY_HALF = 12 * HOUR;
export const BASELINE_DAYS = 7;

/** A wave: at least this many, and this many times the usual plus a margin. */
export const THRESHOLDS = {
  /**
   * Delays: a multiple of the usual. Three standard deviations over it (of a count, or of the days
   * before) were measured too (docs/decisions.md, "Five rules"): they caught no more of the world's
   * air traffic control waves and called twice as many of the airline's own delays `atc`.
   */
  delayed: { least: 6, times: 1.8, plus: 2 },
  cancelled: { least: 3, times: 3, plus: 2 },
  strikeDay: { least: 12, times: 5, plus: 5, carriers: 3 },
  /** Arrivals diverted away in the window: rare enough (about 1 in 1,000 flights) that a few together is the airport. */
  diverted: { least: 3 },
  /**
   * A carrier's strike grounds a large part of its fleet: at least three aircraft's out-and-back pairs
   * (six flights, each counted once however many boards showed it, of three aircraft or more where the
   * rows name them), not two rotations a crew shortage cancels nor one aircraft a fault kept on the ground.
   */
  carrierDay: { least: 6, times: 4, plus: 3 },
} as const;

export interface AirportSignals {
  figures: AirportFigures;
  /**
   * Whether the boards showed when cancellations were announced (watched at the time); false for a day
   * read after the fact, which shows how it ended: `cancelledSeenAt` and `plannedByOthers` are then
   * unknown (null and 0), and a strike day is told from the day's spread, not its announcements.
   */
  announcements: boolean;
  delayWave: boolean;
  cancelWave: boolean;
  /** Flights due to land in the window that diverted elsewhere, when enough did to close it (`THRESHOLDS.diverted`); else 0. */
  divertWave: number;
  /** Cancellations all day, by many carriers, far beyond usual, most of them announced ahead: a strike of airport or ATC staff. */
  strikeDay: boolean;
  /**
   * The flight's own carrier cancelled far more of its flights there that day than the others did of
   * theirs, while they flew (its staff's strike, or its operation): its own, whichever. From the day's
   * flights, read after the fact or kept by the poll (`byCarrier`); false where they are not at hand.
   */
  carrierDay: boolean;
  /** When the boards first showed this flight cancelled, if they did. */
  cancelledSeenAt: number | null;
  /** Other airlines' flights in the window whose cancellations were on the boards hours ahead (a storm forecast cancels many). */
  plannedByOthers: number;
}

/** What the seven days before showed in a window, on average. */
export interface Usual {
  delayed: number;
  cancelled: number;
  /** Cancellations made on the day. */
  shortNotice: number;
  /** Cancellations in the whole day around. */
  day: number;
}

/** Where the flight itself is on an airport's boards: its row on the departures (or arrivals) board, at its time there, under its designators. */
export interface OwnRow {
  board: 'departures' | 'arrivals';
  scheduledAt: number;
  carrier: string | null;
  /** The designators the flight's record gives it (normalised), matched against the boards' events. */
  designators: string[];
  /** The airport at its other end (IATA), whose own disruption cancels the carrier's flights there too. */
  other?: string | null;
}

/** A board's row of another flight at the same time is not this one: the same minute differs by at most this between sources. */
const SAME_ROW = HOUR;

/**
 * Whether a sighting is the flight's own row: on its board, under one of its designators, at its time.
 * Events stored before 0012 name no flight: the row's carrier and minute are all there is.
 */
export function isOwn(s: Pick<BoardSighting, 'board' | 'flight' | 'scheduledAt' | 'carrier'>, flight: OwnRow): boolean {
  if (s.flight === null)
    return s.board === flight.board && s.scheduledAt === flight.scheduledAt && s.carrier === flight.carrier;
  return isOwnMovement({ board: s.board, flight: s.flight, scheduledAt: s.scheduledAt }, flight);
}

/** The same, for a row of a past day's board (which always names its flight). */
export const isOwnMovement = (m: { board: string; flight: string; scheduledAt: number }, flight: OwnRow): boolean =>
  m.board === flight.board &&
  flight.designators.includes(m.flight) &&
  Math.abs(m.scheduledAt - flight.scheduledAt) < SAME_ROW;

/** The hour a flight due at `at` is counted in. */
export const hourOf = (at: number) => Math.floor(at / HOUR) * HOUR;

/**
 * A strike's cancellations are announced days ahead: on the boards as soon as they list the flights,
 * 12 hours ahead (less the time between two reads). A cancellation made on the day shows later; the
 * return of a pair cancelled on the day a few hours ahead of its own time.
 */
export const ANNOUNCED = 8 * HOUR;

/** How long before a flight's time its cancellation first showed (the boards show 12 hours ahead). */
const lead = (s: BoardSighting) => s.scheduledAt - s.seenAt;

function distinct(
  sightings: BoardSighting[],
  from: number,
  to: number,
  type: BoardSighting['type'],
  keep: (s: BoardSighting) => boolean = () => true,
): Set<string> {
  const out = new Set<string>();
  for (const s of sightings)
    if (s.type === type && s.scheduledAt >= from && s.scheduledAt < to && keep(s)) out.add(s.flightId);
  return out;
}

export const round1 = (n: number) => Math.round(n * 10) / 10;
export const wave = (count: number, usual: number, t: { least: number; times: number; plus: number }) =>
  count >= t.least && count >= usual * t.times + t.plus;
/**
 * The cancellations that count towards an airport's wave: every carrier's but this flight's own, less
 * one more of its own carrier's (the aircraft's other leg at this airport: the pair out and back is
 * cancelled together for the aircraft's reason). An airport's failure cancels every carrier's flights,
 * so at an airport one or two carriers serve most of its flights are theirs; leaving the flight's own
 * carrier out, the wave could never show there.
 */
export function waveCount(others: number, ownCarrier: number): number {
  return others + Math.max(0, ownCarrier - 1);
}

/**
 * The airport's figures around `at` (the flight's scheduled time there): `today`, its cancellations
 * of the day around; `delayed`, how many flights the boards showed late in the window (counted as
 * `usual` is, flights later cancelled included); `usual`, the seven days before. Asked only where
 * the boards were watched at the time (`BoardHistory.watchedAt`): a window they showed quiet is quiet.
 */
export function signals(
  airport: string,
  at: number,
  today: BoardSighting[],
  delayed: number,
  usual: Usual,
  flight: OwnRow,
  baseline: Baseline = 'days_before',
): AirportSignals {
  const from = hourOf(at) - WINDOW_BEFORE;
  const to = hourOf(at) + WINDOW_AFTER;
  const f = factsOf(today, from, to);
  // Made on the day (a plan made the day before is a roster or a forecast), every carrier's but this flight's own (waveCount).
  const onTheDay = (s: BoardSighting) => lead(s) < SHORT_NOTICE && !isOwn(s, flight);
  const shortNotice = waveCount(
    distinct(f.window, from, to, 'flight.cancelled', (s) => onTheDay(s) && s.carrier !== flight.carrier).size,
    distinct(f.window, from, to, 'flight.cancelled', (s) => onTheDay(s) && s.carrier === flight.carrier).size,
  );
  const t = THRESHOLDS.strikeDay;
  // This flight's own cancellation: its row on this airport's board (its departure, or its arrival), at its time.
  const own = [null, ...flight.designators].flatMap((d) => f.byFlight.get(d) ?? []).filter((s) => isOwn(s, flight));
  const plannedByOthers = distinct(
    f.window,
    from,
    to,
    'flight.cancelled',
    (s) => lead(s) >= SHORT_NOTICE && s.carrier !== flight.carrier,
  ).size;
  return {
    figures: {
      airport,
      from: iso(from),
      to: iso(to),
      cancelled: f.cancelled,
      delayed,
      usual: { cancelled: round1(usual.cancelled), delayed: round1(usual.delayed) },
      baseline,
    },
    announcements: true,
    delayWave: wave(delayed, usual.delayed, THRESHOLDS.delayed),
    // An airport's problem cancels on the day; a wave of cancellations planned the day before is not one.
    // An airport's failure cancels a fifth of its flights: far beyond the usual of all of them too, not
    // only of those made on the day (a few more on the day amid an ATC wave's delays are not one).
    cancelWave:
      wave(shortNotice, usual.shortNotice, THRESHOLDS.cancelled) &&
      wave(f.cancelled, usual.cancelled, THRESHOLDS.cancelled),
    divertWave: f.diverted >= THRESHOLDS.diverted.least ? f.diverted : 0,
    // A strike is announced days ahead: most of the day's cancellations were on the boards long before.
    strikeDay: wave(f.dayIds, usual.day, t) && f.carriers >= t.carriers && f.planned * 2 >= f.dayIds,
    carrierDay: false,
    cancelledSeenAt: own.length > 0 ? Math.min(...own.map((s) => s.seenAt)) : null,
    plannedByOthers,
  };
}

/** What a day's sightings show of a window, whichever flight asks (`signals` applies the flight's own row and carrier). */
interface DayFacts {
  /** The sightings of flights due in the window. */
  window: BoardSighting[];
  /** Flights cancelled in the window, and arrivals diverted elsewhere. */
  cancelled: number;
  diverted: number;
  /** The day's cancellations by the flight they name (null: an event stored before flights were named); of how many flights, how many of them announced ahead, of how many carriers. */
  byFlight: Map<string | null, BoardSighting[]>;
  dayIds: number;
  planned: number;
  carriers: number;
}

/** Per day of sightings (kept and shared once settled: every lookup at the airport-hour reads the same), by window start. */
const facts = new WeakMap<BoardSighting[], Map<number, DayFacts>>();
function factsOf(today: BoardSighting[], from: number, to: number): DayFacts {
  let byWindow = facts.get(today);
  if (!byWindow) facts.set(today, (byWindow = new Map()));
  let f = byWindow.get(from);
  if (!f) {
    const window = today.filter((s) => s.scheduledAt >= from && s.scheduledAt < to);
    const day = today.filter((s) => s.type === 'flight.cancelled');
    const dayIds = new Set(day.map((s) => s.flightId)).size;
    const planned = new Set(day.filter((s) => lead(s) >= ANNOUNCED).map((s) => s.flightId)).size;
    const cancelled = distinct(window, from, to, 'flight.cancelled').size;
    const diverted = distinct(window, from, to, 'flight.diverted', (s) => s.board === 'arrivals').size;
    const byFlight = new Map<string | null, BoardSighting[]>();
    for (const s of day) {
      const rows = byFlight.get(s.flight);
      if (rows) rows.push(s);
      else byFlight.set(s.flight, [s]);
    }
    byWindow.set(
      from,
      (f = {
        window,
        cancelled,
        diverted,
        byFlight,
        dayIds,
        planned,
        carriers: new Set(day.map((s) => s.carrier)).size,
      }),
    );
  }
  return f;
}

/**
 * Whether the carrier cancelled far more than usual that day across the watched airports (a strike of
 * its own staff): `today`, its cancellations in the day around `at`; `usualDay`, the mean of the seven
 * days before; spread over its network (no one airport holding half of them: that is the airport's),
 * and most of them announced hours ahead.
 */
export function carrierStrike(today: BoardSighting[], usualDay: number): boolean {
  // Each flight once, however many boards showed it (its departure and its arrival): by its designator where the event names it.
  const flightOf = (s: BoardSighting) => s.flight ?? s.flightId;
  const day = new Set(today.map(flightOf)).size;
  const byAirport = new Map<string, number>();
  for (const s of today) byAirport.set(s.airport, (byAirport.get(s.airport) ?? 0) + 1);
  // Announced ahead, as strikes are (a storm at its hub cancels on the day).
  const planned = new Set(today.filter((s) => lead(s) >= ANNOUNCED).map(flightOf)).size;
  return (
    wave(day, usualDay, THRESHOLDS.carrierDay) &&
    Math.max(...byAirport.values()) * 2 <= today.length &&
    planned * 2 >= day
  );
}
