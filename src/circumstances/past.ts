// An airport's figures from a day read after the fact (docs/boards.md, "A past day's boards"; src/boards/days.ts): the
// same waves as the watched boards' (figures.ts), against the window's own flights times the published
// shares, and told apart without what a past board cannot show (when each cancellation was announced).
import { iso } from '../clock.js';
import {
  hourOf,
  isOwnMovement,
  round1,
  THRESHOLDS,
  wave,
  waveCount,
  WINDOW_AFTER,
  WINDOW_BEFORE,
  type AirportSignals,
  type OwnRow,
  type Usual,
} from './figures.js';
import type { PastMovement } from './shapes.js';

/**
 * Published shares of flights (EUROCONTROL and CODA, docs/simulation.md "Calibration"): delayed 15
 * minutes or more at the end of the day (arrivals 27–35 %, departures about 34 %), and cancelled
 * (1.5–2.0 %). A day read after the fact has no days before to compare with: its usual is its own
 * scheduled flights times these.
 */
export const PUBLISHED_RATES = { delayed: 0.3, cancelled: 0.018 } as const;
/**
 * The usual of a watched window whose days before were not watched (the poll began within the week):
 * the flights kept of the window and of the day around it (`movements`, scheduled in [dayFrom, dayTo))
 * times the published shares, as for a day read after the fact.
 */
export function publishedUsual(movements: PastMovement[], from: number, to: number): Usual {
  const inWindow = movements.filter((m) => m.scheduledAt >= from && m.scheduledAt < to).length;
  const cancelled = inWindow * PUBLISHED_RATES.cancelled;
  return {
    delayed: inWindow * PUBLISHED_RATES.delayed,
    cancelled,
    shortNotice: cancelled,
    day: movements.length * PUBLISHED_RATES.cancelled,
  };
}

/** A delay the boards call one (the lookup's A15). */
const DELAYED_AT = 15 * 60_000;

/**
 * The airport's figures around `at` from a day read after the fact (src/boards/days.ts): `movements`,
 * every flight of its boards due in the window and in `day` (the airport's local day around `at`).
 * The same waves as `signals`, with the window's own flights times the published rates for usual;
 * what the boards do not show of a past day (when each cancellation was announced) is not guessed:
 * every cancellation counts, and a strike day is one with cancellations by many carriers through the
 * day (a strike cancels whole days; a storm, hours).
 */
export function pastSignals(
  airport: string,
  at: number,
  movements: PastMovement[],
  day: { from: number; to: number },
  flight: OwnRow,
): AirportSignals {
  const from = hourOf(at) - WINDOW_BEFORE;
  const to = hourOf(at) + WINDOW_AFTER;
  const inWindow = movements.filter((m) => m.scheduledAt >= from && m.scheduledAt < to);
  const ofDay = movements.filter((m) => m.scheduledAt >= day.from && m.scheduledAt < day.to);
  const delayed = inWindow.filter((m) => !m.cancelled && m.at !== null && m.at - m.scheduledAt >= DELAYED_AT).length;
  const cancelled = inWindow.filter((m) => m.cancelled);
  const diverted = inWindow.filter((m) => m.diverted && m.board === 'arrivals').length;
  const own = (m: PastMovement) => isOwnMovement(m, flight);
  const others = inWindow.filter((m) => m.carrier !== flight.carrier);
  const byOthers = cancelled.filter((m) => m.carrier !== flight.carrier).length;
  const byCarrier = cancelled.filter((m) => m.carrier === flight.carrier && !own(m)).length;
  // Which cancellations were announced ahead (a strike of the carrier's own staff, a roster) is not on a
  // past board: its own carrier's count only where other carriers, flying there too, were hit as well
  // (a third of its share at least), or where too few others flew then to tell.
  const carrierShare = byCarrier / Math.max(1, inWindow.length - others.length);
  const othersShare = byOthers / Math.max(1, others.length);
  const shared = others.length < 3 || othersShare * 3 >= carrierShare;
  const usual = {
    delayed: inWindow.length * PUBLISHED_RATES.delayed,
    cancelled: inWindow.length * PUBLISHED_RATES.cancelled,
  };
  const dayCancelled = ofDay.filter((m) => m.cancelled);
  const t = THRESHOLDS.strikeDay;
  // Through the day: cancellations in at least half of the hours the airport had flights.
  const hours = new Set(ofDay.map((m) => hourOf(m.scheduledAt)));
  const cancelledHours = new Set(dayCancelled.map((m) => hourOf(m.scheduledAt)));
  const carriers = carrierDay(ofDay, flight);
  return {
    figures: {
      airport,
      from: iso(from),
      to: iso(to),
      cancelled: cancelled.length,
      delayed,
      usual: { cancelled: round1(usual.cancelled), delayed: round1(usual.delayed) },
      baseline: 'published_rates',
    },
    announcements: false,
    delayWave: wave(delayed, usual.delayed, THRESHOLDS.delayed),
    cancelWave: wave(shared ? waveCount(byOthers, byCarrier) : byOthers, usual.cancelled, THRESHOLDS.cancelled),
    divertWave: diverted >= THRESHOLDS.diverted.least ? diverted : 0,
    strikeDay:
      wave(dayCancelled.length, ofDay.length * PUBLISHED_RATES.cancelled, t) &&
      new Set(dayCancelled.map((m) => m.carrier)).size >= t.carriers &&
      cancelledHours.size * 2 >= hours.size &&
      carriers.shared,
    carrierDay: carriers.own,
    cancelledSeenAt: null,
    plannedByOthers: 0,
  };
}

/**
 * Watched boards' figures told by whose cancellations the day's were (`day`: the flights the poll kept
 * of the day around): a day one carrier cancelled while the others flew is no strike of the airport's
 * staff, and is that carrier's own (`carrierDay`) even where its network's count does not show it (an
 * airline whose flights nearly all touch its hub).
 */
export function byCarrier(seen: AirportSignals, day: PastMovement[], flight: OwnRow): AirportSignals {
  if (day.length === 0) return seen;
  const { shared, own } = carrierDay(day, flight);
  return { ...seen, strikeDay: seen.strikeDay && shared, carrierDay: own };
}

/**
 * Whose cancellations an airport's day holds, from its flights (`day`: every flight of its boards then,
 * as read after the fact or kept by the poll). `shared`: many carriers' (a strike of air traffic control
 * or airport staff stops every airline's flights), not one carrier's while the others flew. `own`: the
 * flight's carrier cancelled far more of its flights there than the others did of theirs, which flew:
 * its staff's strike or its own operation, whichever. Both without the flights to and from the flight's
 * other end (`flight.other`): a strike or a closure there cancels the carrier's flights to it, not the rest.
 */
export function carrierDay(day: PastMovement[], flight: OwnRow): { shared: boolean; own: boolean } {
  const top = topCarrier(tallyOf(day), flight.other || null);
  if (!top) return { shared: true, own: false };
  const oneCarrier = top.othersFlights >= 10 && top.othersShare * 3 < top.share;
  return {
    shared: !oneCarrier,
    own:
      oneCarrier &&
      top.carrier === flight.carrier &&
      top.cancelled >= THRESHOLDS.carrierDay.least &&
      top.aircraft >= THRESHOLDS.carrierDay.least / 2 &&
      top.share >= 5 * PUBLISHED_RATES.cancelled,
  };
}

/** Counts of a day's flights (of one carrier, or all), and of those to or from each other end, which `carrierDay` leaves out. */
interface Counts {
  flights: number;
  cancelled: number;
  /** Cancelled rows that name no aircraft (each counts as half of one: a pair out and back). */
  unnamed: number;
}

interface CarrierCounts extends Counts {
  carrier: string | null;
  /** The aircraft its cancellations were. */
  aircraft: number;
  /** Where its first row is in the day, and that row's other end; where its first row to any other end is (the order of ties). */
  first: number;
  firstOther: string | null;
  second: number;
  /** Per other end: its flights there, and the aircraft whose every cancellation was to or from there. */
  byOther: Map<string, Counts & { aircraft: number }>;
}

interface Tally {
  all: Counts;
  byOther: Map<string, Counts>;
  carriers: CarrierCounts[];
}

const none = (): Counts => ({ flights: 0, cancelled: 0, unnamed: 0 });
function count(c: Counts, m: PastMovement): void {
  c.flights++;
  if (m.cancelled) {
    c.cancelled++;
    if (!m.registration) c.unnamed++;
  }
}

/**
 * A day's flights counted once per carrier and other end (the day's rows are kept and shared: every
 * lookup at the airport that day asks whose its cancellations were, each leaving out its own other end).
 */
const tallies = new WeakMap<PastMovement[], Tally>();
function tallyOf(day: PastMovement[]): Tally {
  const known = tallies.get(day);
  if (known) return known;
  const tally: Tally = { all: none(), byOther: new Map(), carriers: [] };
  const by = new Map<string | null, CarrierCounts & { plates: Map<string, Set<string | null>> }>();
  day.forEach((m, k) => {
    count(tally.all, m);
    let c = by.get(m.carrier);
    if (!c)
      by.set(
        m.carrier,
        (c = {
          carrier: m.carrier,
          ...none(),
          aircraft: 0,
          first: k,
          firstOther: m.other,
          second: Infinity,
          byOther: new Map(),
          plates: new Map(),
        }),
      );
    else if (c.second === Infinity && m.other !== c.firstOther) c.second = k;
    count(c, m);
    if (m.other !== null) {
      let o = tally.byOther.get(m.other);
      if (!o) tally.byOther.set(m.other, (o = none()));
      count(o, m);
      let co = c.byOther.get(m.other);
      if (!co) c.byOther.set(m.other, (co = { ...none(), aircraft: 0 }));
      count(co, m);
    }
    if (m.cancelled && m.registration) {
      let others = c.plates.get(m.registration);
      if (!others) c.plates.set(m.registration, (others = new Set()));
      others.add(m.other);
    }
  });
  for (const { plates, ...c } of by.values()) {
    c.aircraft = plates.size;
    for (const others of plates.values()) {
      const only = others.size === 1 ? [...others][0] : null;
      if (only !== null && only !== undefined) c.byOther.get(only)!.aircraft++;
    }
    tally.carriers.push(c);
  }
  tallies.set(day, tally);
  return tally;
}

/**
 * The carrier with the most cancellations of a day's flights, those to or from `other` left out (the
 * first in the day's order where two have as many): its share cancelled, the other carriers', and how
 * many of its aircraft the cancellations were (a strike grounds many; a fault keeps one on the ground
 * for its whole day, every flight of it cancelled). A row that names no aircraft counts as half of one.
 */
function topCarrier(
  tally: Tally,
  other: string | null,
): {
  carrier: string | null;
  cancelled: number;
  aircraft: number;
  share: number;
  othersFlights: number;
  othersShare: number;
} | null {
  const left = (all: Counts, there: Counts | undefined): Counts => ({
    flights: all.flights - (there?.flights ?? 0),
    cancelled: all.cancelled - (there?.cancelled ?? 0),
    unnamed: all.unnamed - (there?.unnamed ?? 0),
  });
  const day = left(tally.all, other === null ? undefined : tally.byOther.get(other));
  let best: { c: CarrierCounts; counts: Counts; first: number } | null = null;
  for (const c of tally.carriers) {
    const there = other === null ? undefined : c.byOther.get(other);
    const counts = left(c, there);
    if (counts.flights === 0) continue;
    const first = other !== null && c.firstOther === other ? c.second : c.first;
    if (
      !best ||
      counts.cancelled > best.counts.cancelled ||
      (counts.cancelled === best.counts.cancelled && first < best.first)
    )
      best = { c, counts, first };
  }
  if (!best) return null;
  const { c, counts } = best;
  const aircraft = c.aircraft - (other === null ? 0 : (c.byOther.get(other)?.aircraft ?? 0));
  return {
    carrier: c.carrier,
    cancelled: counts.cancelled,
    aircraft: aircraft + counts.unnamed / 2,
    share: counts.cancelled / counts.flights,
    othersFlights: day.flights - counts.flights,
    othersShare: (day.cancelled - counts.cancelled) / Math.max(1, day.flights - counts.flights),
  };
}
