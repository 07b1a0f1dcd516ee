// The aircraft's day from the boards the service kept (docs/weather.md, "The aircraft's day"; docs/boards.md, "The hours kept whole"): the poll's final
// rows and the airports' days read after the fact hold the aircraft's other flights by registration,
// each with both ends where the board gives them. Where they hold every leg the finding needs, the
// provider is not asked for the aircraft's day (a priced request per disrupted flight):
// - a delay needs its chain back to where it started (rotation.ts chainOrigin): walked back through
//   the legs that brought the aircraft in, until a leg that did not wait for its inbound, or one that
//   left on time;
// - a cancellation needs the run of cancelled legs before it and the leg before that run (and, where
//   that leg came in late, its chain), and, where the cancellation was planned ahead, whether the
//   aircraft flew again that day (rotation.ts groundedAfter).
// A leg is never assumed absent because no row shows it, and a leg that flew is used only with both
// its times (a departure kept once it left, its landing seen too): the poll keeps a flight that left
// its window unfinished (3 hours past its time) with its last estimate, which says neither. Where the
// walk runs out of rows, only hours the poll kept whole or an airport-day read whole after the fact say
// nothing more flew there (the caller checks that, `PastBoards.held`); a row that does not join the
// next leg (the aircraft went elsewhere in between) means a leg the boards do not show. Either way the
// aircraft's day is asked, as before.
import { iso } from '../clock.js';
import { arrivalDelayMinutes, cancellationRun, chainOrigin, NIGHT, SAME_DEPARTURE, type Leg } from './rotation.js';
import type { PastMovement } from './shapes.js';
import type { Outcome } from './shapes.js';

/** An inbound this late on arrival explains the cancellation of the pair after it (service.ts uses the same). */
export const LATE_INBOUND_MINUTES = 120;

/** Where the walk ran out of rows: no kept leg joins there, so the airport's boards of those hours must be held whole. */
export interface Edge {
  airport: string;
  from: number;
  to: number;
}

export interface KeptDay {
  legs: Leg[];
  at: number;
  /** Set where the legs found do not settle it alone: the finding holds only if this airport's boards were read whole then. */
  start: Edge | null;
  /** A cancellation's later legs: `true`/`false` where settled, else the edge whose boards must be held for "every later leg cancelled". */
  grounded: boolean | Edge | null;
}

/**
 * The legs the kept rows show, one per flight: a departures row and an arrivals row of the same
 * flight joined. Null when a row cannot be placed (an arrivals row without its departure time): it
 * is a leg whose place in the day is unknown.
 */
export function legsFrom(movements: PastMovement[]): Leg[] | null {
  const legs: Leg[] = [];
  for (const m of movements) {
    const departure = m.board === 'departures';
    const scheduledDeparture = departure ? m.scheduledAt : m.otherScheduledAt;
    if (scheduledDeparture === null) return null;
    const origin = departure ? m.airport : m.other;
    const destination = departure ? m.other : m.airport;
    const same = legs.find(
      (l) =>
        l.designators.some((d) => m.designators.includes(d)) &&
        l.origin === origin &&
        l.destination === destination &&
        Math.abs(l.scheduledDeparture - scheduledDeparture) <= SAME_DEPARTURE,
    );
    const leg: Leg = same ?? {
      ref: {
        flightNumber: m.flight,
        flightDate: iso(scheduledDeparture).slice(0, 10),
        origin: origin ?? '',
        destination: destination ?? '',
      },
      designators: [...m.designators],
      origin,
      destination,
      scheduledDeparture,
      scheduledArrival: departure ? m.otherScheduledAt : m.scheduledAt,
      actualDeparture: null,
      actualArrival: null,
      cancelled: false,
      diverted: false,
    };
    if (!same) legs.push(leg);
    else for (const d of m.designators) if (!leg.designators.includes(d)) leg.designators.push(d);
    leg.cancelled ||= m.cancelled;
    leg.diverted ||= m.diverted;
    leg.scheduledArrival ??= departure ? m.otherScheduledAt : m.scheduledAt;
    leg.actualDeparture ??= departure ? m.actualAt : m.otherActualAt;
    leg.actualArrival ??= departure ? m.otherActualAt : m.actualAt;
  }
  for (const leg of legs) {
    if (leg.cancelled) [leg.actualDeparture, leg.actualArrival] = [null, null];
    if (leg.diverted) leg.actualArrival = null;
  }
  return legs.sort((a, b) => a.scheduledDeparture - b.scheduledDeparture);
}

/**
 * The flight's day from the kept legs (`flight` as its own record gives it, in place of its row):
 * null where a leg the finding needs is missing.
 */
export function keptDay(flight: Leg, outcome: Outcome, kept: Leg[]): KeptDay | null {
  // A diversion's finding is its own legs' (service.ts asks for no aircraft's day).
  if (outcome === 'diverted') return null;
  const others = kept.filter(
    (l) =>
      !(l.origin === flight.origin && Math.abs(l.scheduledDeparture - flight.scheduledDeparture) <= SAME_DEPARTURE),
  );
  const chain: Leg[] = [flight];
  let at = 0;
  let start: Edge | null = null;
  // Back: the leg that brought the aircraft to the first leg so far, until the finding no longer depends on earlier ones.
  while (!settledBack(chain, at, outcome)) {
    const first = chain[0]!;
    const before = others.filter((l) => l.scheduledDeparture < first.scheduledDeparture).at(-1);
    if (!before || first.scheduledDeparture - (before.scheduledArrival ?? before.scheduledDeparture) > NIGHT) {
      start = { airport: first.origin ?? '', from: first.scheduledDeparture - NIGHT, to: first.scheduledDeparture };
      break;
    }
    if (before.destination !== first.origin && !before.diverted) return null;
    // A leg that flew without both its times on the boards (the poll keeps a departure once it left,
    // its landing only while the row is on the window) cannot say what the next leg inherited.
    if (!before.cancelled && (before.actualDeparture === null || (!before.diverted && before.actualArrival === null)))
      return null;
    chain.unshift(before);
    at++;
  }
  if (outcome !== 'cancelled') return { legs: chain, at, start, grounded: null };
  // On: the legs after the flight (and its return), until one flew.
  let grounded: boolean | Edge | null = null;
  for (;;) {
    const last = chain.at(-1)!;
    const landing = last.scheduledArrival ?? last.scheduledDeparture;
    const next = others.find((l) => l.scheduledDeparture > last.scheduledDeparture);
    if (!next || next.scheduledDeparture - landing > NIGHT) {
      grounded = { airport: last.destination ?? '', from: landing, to: landing + NIGHT };
      break;
    }
    if (next.origin !== last.destination) break;
    // Neither flown nor cancelled on the boards (kept unfinished): whether the aircraft flew again is not known.
    if (!next.cancelled && next.actualDeparture === null) break;
    chain.push(next);
    if (!next.cancelled && chain.length - 1 - at > 1) {
      grounded = false;
      break;
    }
  }
  return { legs: chain, at, start, grounded };
}

/** Whether the legs before `at` so far settle what the finding takes from them. */
function settledBack(legs: Leg[], at: number, outcome: Outcome): boolean {
  if (outcome === 'delayed') return chainSettled(legs, at);
  const run = cancellationRun(legs, at);
  const before = run.before;
  if (!before) return false;
  if (before.cancelled || before.diverted || (arrivalDelayMinutes(before) ?? 0) < LATE_INBOUND_MINUTES) return true;
  return chainSettled(legs, run.start - 1);
}

/** A delay's chain is settled where it stops at a leg whose inbound is in the list, or at a leg that left on time. */
function chainSettled(legs: Leg[], at: number): boolean {
  const origin = chainOrigin(legs, at);
  const leg = legs[origin]!;
  return origin > 0 || (leg.actualDeparture !== null && leg.actualDeparture <= leg.scheduledDeparture);
}
