// The board event engine's rules (docs/boards.md, "Disruption of a row" and "Events"): from the stored watch of a flight on a board
// and the row a poll just read, the events that happened, in a fixed order, and the new watch.
// Pure: the poller (poller.ts) reads boards and stores watches and events; tests drive this directly.
//
// Disruption of a row: `cancelled` when the board says so; `diverted` likewise; else `delayed` when
// the estimate (or the actual time) is DELAY_THRESHOLD_MINUTES (the lookup's A15) or more after schedule; `on_time` when
// the board has an estimate or actual time within that; `scheduled` when it has neither.
//
// Order of the events one observation can yield for one flight (documented in docs/boards.md):
//   tracked, status_changed, delay_changed, divert_updated, then the disruption transition
//   (delayed | cancelled | diverted | recovered), then predicted_qualifying, then qualifying, then landed.
//
// `flight.landed` (an arrivals row's actual time appearing, once per flight and board) goes to the
// watches of the flight only, never to an airport's subscribers (WATCH_ONLY_EVENT_TYPES; docs/watches.md).
import { EU261_DELAY_MINUTES as QUALIFYING_DELAY_MINUTES, sharedRegion } from '../compensation/index.js';
import { DELAY_THRESHOLD_MINUTES } from '../flights/index.js';
import type { BoardRow } from '../providers/index.js';

export type Disruption = 'scheduled' | 'on_time' | 'delayed' | 'cancelled' | 'diverted';
export const EVENT_TYPES = [
  'flight.tracked',
  'flight.delayed',
  'flight.cancelled',
  'flight.diverted',
  'flight.recovered',
  'flight.delay_changed',
  'flight.status_changed',
  'flight.divert_updated',
  'flight.qualifying',
  'flight.predicted_qualifying',
] as const;
/**
 * The board of the events of watched flights followed through the providers (src/watches/follow.ts):
 * no airport's board showed them, so they go to the flight's watches only, and the airport-wide
 * figures (sightings, tallies, whether an airport was read) leave them out.
 */
export const FOLLOWED_BOARD = 'followed';
/** Event types only a watch of the flight receives; the fan-out sends them to no airport subscription. */
export const WATCH_ONLY_EVENT_TYPES = ['flight.landed'] as const;
export type EventType = (typeof EVENT_TYPES)[number] | (typeof WATCH_ONLY_EVENT_TYPES)[number];

/** What the engine remembers of one flight on one board between polls. */
export interface Watch {
  /** Stable across every event of this flight on this board. */
  flightId: string;
  firstSeenAt: number;
  lastSeenAt: number;
  status: string;
  estimatedAt: number | null;
  delayMinutes: number | null;
  disruption: Disruption;
  divertedTo: string | null;
  registration: string | null;
  callsign: string | null;
  /** Once-only markers. */
  cancelledFired: boolean;
  qualifiedAt: number | null;
  predictedAt?: number | null;
  /** An arrivals row's actual time was seen (`flight.landed` sent); absent on watches stored before it. */
  landed?: boolean;
}

/** One earlier leg of the aircraft a prediction rests on, as projected from what the boards showed of it. */
export interface PredictionLeg {
  flightNumber: string;
  origin: string | null;
  destination: string | null;
  /** Null when the boards gave only its arrival. */
  scheduledDepartureAt: number | null;
  scheduledArrivalAt: number;
  projectedDepartureAt: number;
  projectedArrivalAt: number;
  /** What the boards showed: landed (actual arrival), airborne, a published estimate, or only the schedule. */
  observed: 'landed' | 'airborne' | 'estimate' | 'schedule';
  /** The minimum turnaround assumed after it. */
  turnaroundMinutes: number;
}

/** A late aircraft's projection for a departure (predict.ts, from the aircraft's earlier legs on the pass's boards). */
export interface Prediction {
  registration: string;
  projectedDepartureAt: number;
  projectedDelayMinutes: number;
  confidence: 'high' | 'medium';
  minTurnaroundMinutes: number;
  inbound: {
    flightNumber: string;
    origin: string | null;
    scheduledArrivalAt: number;
    projectedArrivalAt: number;
    status: string;
  };
  /** The aircraft's legs it rests on, oldest first; the last is the inbound. */
  basis: PredictionLeg[];
}

export interface Previous {
  status: string | null;
  estimatedAt: number | null;
  delayMinutes: number | null;
  disruption: Disruption | null;
}

export interface Qualification {
  reason: 'cancelled' | 'diverted' | 'delayed';
  delayMinutes: number | null;
  detectedAt: number;
  minutesBeforeScheduled: number;
}

export interface EngineEvent {
  type: EventType;
  previous: Previous;
  qualification?: Qualification;
  prediction?: Prediction & { detectedAt: number; minutesBeforeScheduled: number };
}

/** The row's delay in whole minutes from its estimate, else its actual time; null when neither. */
export function delayOf(row: BoardRow): number | null {
  const at = row.estimatedAt ?? row.actualAt;
  return at === null ? null : Math.trunc((at - row.scheduledAt) / 60_000);
}

export function disruptionOf(row: BoardRow): Disruption {
  if (row.cancelled) return 'cancelled';
  if (row.diverted) return 'diverted';
  const delay = delayOf(row);
  if (delay === null) return 'scheduled';
  return delay >= DELAY_THRESHOLD_MINUTES ? 'delayed' : 'on_time';
}

const QUIET: ReadonlySet<Disruption> = new Set(['scheduled', 'on_time']);

/**
 * The events of one observation and the watch after it. `watch` is null the first time the flight is
 * seen on this board; `newId` makes its stable id then.
 */
export function observe(
  watch: Watch | null,
  row: BoardRow,
  at: number,
  newId: () => string,
  prediction: Prediction | null = null,
): { events: EngineEvent[]; watch: Watch } {
  const delay = delayOf(row);
  const disruption = disruptionOf(row);
  const divertedTo = row.divertedTo?.iata ?? null;
  const estimatedAt = row.estimatedAt;
  const previous: Previous = watch
    ? {
        status: watch.status,
        estimatedAt: watch.estimatedAt,
        delayMinutes: watch.delayMinutes,
        disruption: watch.disruption,
      }
    : { status: null, estimatedAt: null, delayMinutes: null, disruption: null };
  const events: EngineEvent[] = [];
  const emit = (type: EventType, qualification?: Qualification) =>
    events.push(qualification ? { type, previous, qualification } : { type, previous });

  if (!watch) emit('flight.tracked');
  else {
    if (row.status !== watch.status) emit('flight.status_changed');
    if (estimatedAt !== null && watch.estimatedAt !== null && Math.abs(estimatedAt - watch.estimatedAt) >= 60_000)
      emit('flight.delay_changed');
    if (divertedTo !== watch.divertedTo) emit('flight.divert_updated');
  }
  // Transitions: a first sighting counts as coming from `scheduled`, so a flight first seen late or
  // cancelled still says so.
  const before: Disruption = watch?.disruption ?? 'scheduled';
  const cancelledFired = watch?.cancelledFired ?? false;
  if (disruption === 'delayed' && QUIET.has(before)) emit('flight.delayed');
  if (disruption === 'cancelled' && !cancelledFired) emit('flight.cancelled');
  if (disruption === 'diverted' && before !== 'diverted') emit('flight.diverted');
  if (disruption === 'on_time' && !QUIET.has(before)) emit('flight.recovered');

  let qualifiedAt = watch?.qualifiedAt ?? null;
  const reason = qualifyingReason(row, disruption, delay);
  // A prediction only while the board itself does not show the flight qualifying: it comes first.
  let predictedAt = watch?.predictedAt ?? null;
  if (prediction && predictedAt === null && qualifiedAt === null && !reason && row.operation === 'passenger') {
    predictedAt = at;
    events.push({
      type: 'flight.predicted_qualifying',
      previous,
      prediction: {
        ...prediction,
        detectedAt: at,
        minutesBeforeScheduled: Math.trunc((row.scheduledAt - at) / 60_000),
      },
    });
  }
  if (reason && qualifiedAt === null) {
    qualifiedAt = at;
    emit('flight.qualifying', {
      reason,
      delayMinutes: reason === 'cancelled' ? null : delay,
      detectedAt: at,
      minutesBeforeScheduled: Math.trunc((row.scheduledAt - at) / 60_000),
    });
  }

  // The landing: an arrival's actual time, once (not a cancelled or diverted flight's).
  const landed =
    (watch?.landed ?? false) ||
    (row.direction === 'arrival' && row.actualAt !== null && !row.cancelled && !row.diverted);
  if (landed && !(watch?.landed ?? false)) emit('flight.landed');

  return {
    events,
    watch: {
      flightId: watch?.flightId ?? newId(),
      firstSeenAt: watch?.firstSeenAt ?? at,
      lastSeenAt: at,
      status: row.status,
      estimatedAt,
      delayMinutes: delay,
      disruption,
      divertedTo,
      registration: row.registration ?? watch?.registration ?? null,
      callsign: row.callsign ?? watch?.callsign ?? null,
      cancelledFired: cancelledFired || disruption === 'cancelled',
      qualifiedAt,
      predictedAt,
      landed,
    },
  };
}

/**
 * docs/boards.md, "Events": passenger flights only; a departure cancelled, diverted or delayed 3 h or more, an
 * arrival delayed 3 h or more (never a cancelled arrival). A diversion to an airport serving the
 * destination's city or region is a delay (Art. 8(3), C-826/19), not qualifying by itself: such a
 * departure qualifies as `delayed` at 3 hours like any other (docs/boards.md).
 */
function qualifyingReason(row: BoardRow, disruption: Disruption, delay: number | null): Qualification['reason'] | null {
  if (row.operation !== 'passenger') return null;
  const late = delay !== null && delay >= QUALIFYING_DELAY_MINUTES;
  if (row.direction === 'departure') {
    if (disruption === 'cancelled') return 'cancelled';
    if (disruption === 'diverted' && !sharedRegion(row.destination.iata, row.divertedTo?.iata)) return 'diverted';
    return late ? 'delayed' : null;
  }
  return late && disruption !== 'cancelled' ? 'delayed' : null;
}
