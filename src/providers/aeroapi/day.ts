// A past local day of an airport's board on AeroAPI (docs/providers.md, "A past day's boards"): which
// family of board lists holds the day, and the window to ask each list for. From AeroAPI's OpenAPI 4.28:
// - history, `/history/airports/{id}/flights/departures|arrivals`: every flight planned that day,
//   cancelled ones included; start (inclusive) and end (exclusive) are compared with `scheduled_off`
//   (arrivals: `scheduled_on`), span at most 24 hours, from 2011-01-01 up to 15 days ago;
// - live, start and end no further than 10 days back: `departures` (flown and not diverted, by
//   `actual_off`; arrivals: `actual_on`) and `scheduled_departures` (not flown yet, or cancelled, by
//   `scheduled_off`; `scheduled_arrivals` taken to compare with `scheduled_on` the same way).
// A board row's time is the gate schedule (`scheduled_out` / `scheduled_in`, as boardRow reads it), so
// each window is wider than the local day on the side where its compared time lies, and the rows are
// kept by their own time. A day whose windows fit neither family (10 to 15 days ago) has no board.
import { DAY, HOUR } from '../../clock.js';
import type { BoardKind } from '../types.js';
import { addDays, zonedToUtc } from '../zones.js';

/** AeroAPI's live lists take a start no further than 10 days back. */
export const LIVE_DAYS = 10;
/** Its history ends 15 days before now. */
export const HISTORY_DAYS = 15;
/** Its history begins on 2011-01-01 UTC. */
const HISTORY_FROM = Date.UTC(2011, 0, 1);
/** A history board request spans at most 24 hours. */
const HISTORY_SPAN = 24 * HOUR;
/** The runway schedule lies within an hour of the gate's: after it on departure, before it on arrival. */
const TAXI = HOUR;
/** A flown flight's runway time, as the live lists compare it: at most 2 hours early, at most 6 hours past the day's end. */
const EARLY = 2 * HOUR;
const LATE = 6 * HOUR;

export interface DayRequest {
  /** The list's path and its field in the answer (`departures`, `scheduled_departures`…). */
  path: string;
  field: string;
  start: number;
  end: number;
}

export interface DayPlan {
  /** The local day, UTC [from, to): the rows kept are those scheduled (at the gate) in it. */
  from: number;
  to: number;
  family: 'live' | 'history';
  requests: DayRequest[];
}

/** The requests that read one local day of the airport's board; null when AeroAPI holds no board of that day. */
export function planDay(icao: string, board: BoardKind, date: string, zone: string, now: number): DayPlan | null {
  const from = zonedToUtc(`${date}T00:00`, zone);
  const to = zonedToUtc(`${addDays(date, 1)}T00:00`, zone);
  if (from === null || to === null) return null;
  const departures = board === 'departures';
  // By the runway schedule: every flight scheduled at the gate that day.
  const scheduled = departures ? { start: from, end: to + TAXI } : { start: from - TAXI, end: to };
  if (scheduled.start >= HISTORY_FROM && scheduled.end <= now - HISTORY_DAYS * DAY) {
    const requests: DayRequest[] = [];
    for (let start = scheduled.start; start < scheduled.end; start += HISTORY_SPAN) {
      requests.push({
        path: `/history/airports/${icao}/flights/${board}`,
        field: board,
        start,
        end: Math.min(scheduled.end, start + HISTORY_SPAN),
      });
    }
    return { from, to, family: 'history', requests };
  }
  // By the actual runway time: what flew, early or late; then what did not fly, by its schedule.
  const flown = { start: from - EARLY, end: to + LATE };
  if (flown.start < now - LIVE_DAYS * DAY || flown.end > now + 2 * DAY) return null;
  const pending = departures ? 'scheduled_departures' : 'scheduled_arrivals';
  return {
    from,
    to,
    family: 'live',
    requests: [
      { path: `/airports/${icao}/flights/${board}`, field: board, ...flown },
      { path: `/airports/${icao}/flights/${pending}`, field: pending, ...scheduled },
    ],
  };
}
