// The verdict: from one merged flight to the classified record (`data.selected`) and the delay and
// disruption judgement (`data.flightDelay`). Pure functions of the record and the providers'
// agreement, so the rules in docs/flight-lookup.md are proven by table tests (verdict.test.ts).
//
// Status, in this order (the first that applies wins):
//   cancelled  the provider reports the flight cancelled;
//   diverted   the provider reports it diverted (it landed, or is landing, elsewhere);
//   delayed    the arrival delay (actual, else estimated) is 15 minutes or more; with no arrival
//              time at all, the departure delay is 15 minutes or more;
//   on_time    everything else that was matched.
// 15 minutes is the industry's and EUROCONTROL's on-time limit (A15). `isDelayed` is, as the spec
// says, exactly "arrival delay greater than zero", so a flight 5 minutes late is on_time with
// isDelayed true.
import { EU261_DELAY_MINUTES as LONG_DELAY_MINUTES } from '../compensation/index.js';
import { weigh } from '../providers/doubts.js';
import type { ProviderFlight } from '../providers/types.js';
import { formatDelay, rationale } from './rationale.js';
import {
  DELAY_THRESHOLD_MINUTES,
  type Confidence,
  type DisruptionType,
  type FlightDelayVerdict,
  type FlightStatus,
  type MergedFlight,
  type SelectedRecord,
  type StatusKind,
} from './shapes.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
/** Whole minutes, cut toward zero: 14 min 50 s late is 14 minutes, not 15 (A15 means 15 full minutes). */
const minutesBetween = (later: number | null, earlier: number | null): number | null =>
  later === null || earlier === null ? null : Math.trunc((later - earlier) / 60_000);

export function classify(merged: MergedFlight): { selected: SelectedRecord; flightDelay: FlightDelayVerdict | null } {
  const f = merged.flight;
  const arrivalTime = f.arrival.actual ?? f.arrival.estimated;
  const departureTime = f.departure.actual ?? f.departure.estimated;
  // A diverted flight never reached its destination: its arrival delay there is not a number.
  const delayMinutes = f.diverted || f.cancelled ? null : minutesBetween(arrivalTime, f.arrival.scheduled);
  const departureDelayMinutes = f.cancelled ? null : minutesBetween(departureTime, f.departure.scheduled);

  const status: FlightStatus = f.cancelled
    ? 'cancelled'
    : f.diverted
      ? 'diverted'
      : (delayMinutes ?? departureDelayMinutes ?? 0) >= DELAY_THRESHOLD_MINUTES
        ? 'delayed'
        : 'on_time';

  const selected: SelectedRecord = {
    found: true,
    // A record whose providers contradict themselves settles only when no reading of the doubted
    // times could change its outcome (providers/doubts.ts).
    complete: isComplete(f) && weigh(f, merged.doubtWeight).holds,
    status,
    isDelayed: delayMinutes !== null && delayMinutes > 0,
    isCancelled: f.cancelled,
    isDiverted: f.diverted,
    delayMinutes,
    departureDelayMinutes,
    originIata: f.departure.airport.iata,
    destinationIata: f.arrival.airport.iata,
    scheduledDeparture: iso(f.departure.scheduled),
    scheduledArrival: iso(f.arrival.scheduled),
    estimatedDeparture: iso(f.departure.estimated),
    estimatedArrival: iso(f.arrival.estimated),
    actualDeparture: iso(f.departure.actual),
    actualArrival: iso(f.arrival.actual),
    airline: f.airline.name || f.airline.iata || f.airline.icao ? { ...f.airline } : null,
    aircraft: f.aircraft
      ? {
          registration: f.aircraft.registration,
          iata: f.aircraft.typeIata,
          icao: f.aircraft.typeIcao,
          icao24: f.aircraft.icao24,
          label: f.aircraft.label,
        }
      : null,
    flightIata: f.flightIata,
    flightIcao: f.flightIcao,
    statusRaw: f.statusRaw,
    source: merged.providers[0]!,
  };

  // A verdict needs timings: a cancellation, or at least a delay to judge.
  if (!f.cancelled && !f.diverted && delayMinutes === null && departureDelayMinutes === null)
    return { selected, flightDelay: null };
  return { selected, flightDelay: verdict(merged, selected) };
}

/**
 * Whether the record can be settled, by outcome:
 *   cancelled: the cancellation and the scheduled departure are known;
 *   diverted:  scheduled departure and arrival, the actual departure, and the provider's word that
 *              the flight is settled (it landed at the diversion airport);
 *   otherwise: scheduled and actual departure and arrival.
 */
export function isComplete(f: ProviderFlight): boolean {
  if (f.cancelled) return f.departure.scheduled !== null;
  const scheduled = f.departure.scheduled !== null && f.arrival.scheduled !== null;
  if (f.diverted) return scheduled && f.departure.actual !== null && f.settled;
  return scheduled && f.departure.actual !== null && f.arrival.actual !== null;
}

function statusKindOf(status: FlightStatus, delay: number): StatusKind {
  if (status === 'cancelled' || status === 'diverted') return status;
  if (delay < 0) return 'early';
  if (delay < DELAY_THRESHOLD_MINUTES) return 'on_time';
  if (delay < 60) return 'minor_delay';
  if (delay < LONG_DELAY_MINUTES) return 'significant_delay';
  return 'long_delay';
}

function verdict(merged: MergedFlight, record: SelectedRecord): FlightDelayVerdict {
  const f = merged.flight;
  const arrival = record.delayMinutes ?? 0;
  const departure = record.departureDelayMinutes ?? 0;
  // With no arrival time the departure delay stands for the delay (the status used it too).
  const delay = record.delayMinutes ?? (record.isCancelled || record.isDiverted ? 0 : departure);
  const type: DisruptionType = record.isCancelled
    ? 'cancellation'
    : record.isDiverted
      ? 'diversion'
      : record.status === 'delayed'
        ? 'delay'
        : 'none';
  return {
    delayMinutes: delay,
    delayFormatted: formatDelay(delay),
    statusKind: statusKindOf(record.status, delay),
    disruption: {
      type,
      isCancelled: record.isCancelled,
      isDiverted: record.isDiverted,
      neverArrived: record.isCancelled || record.isDiverted,
      arrivalDelayMinutes: arrival,
      departureDelayMinutes: departure,
      confidence: confidenceOf(merged, record),
      sources: merged.providers,
      rationale: rationale(merged, record, f),
    },
  };
}

/**
 * high:   the outcome rests on what was seen (actual times, or a settled cancellation or diversion)
 *         and no two providers disagree about it;
 * medium: it rests on estimates (the flight has not finished), or providers disagree;
 * low:    only a departure time is known, or nothing better than the schedule.
 */
function confidenceOf(merged: MergedFlight, record: SelectedRecord): Confidence {
  const seen = record.isCancelled
    ? record.complete
    : record.isDiverted
      ? record.complete
      : record.actualArrival !== null && record.actualDeparture !== null;
  const levels: Confidence[] = ['high', 'medium', 'low'];
  let level: Confidence = 'low';
  if (seen && merged.disagreements.length === 0 && merged.evidence.every((e) => e.agrees !== false)) level = 'high';
  else if (record.delayMinutes !== null || record.isCancelled || record.isDiverted) level = 'medium';
  // A provider that contradicts itself costs one level.
  return merged.doubts.length > 0 ? levels[Math.min(levels.indexOf(level) + 1, 2)]! : level;
}

/**
 * The arrival delay shown to a reader (CSV, PDF, pages): none for a flight that never reached its
 * destination (cancelled, or diverted), where `flightDelay.delayMinutes` is 0 only because the
 * specification's field is a number. The API's fields are unchanged.
 */
export function shownArrivalDelay(data: {
  selected: { isCancelled: boolean; isDiverted: boolean; delayMinutes: number | null } | null;
  flightDelay: { delayMinutes: number } | null;
}): number | null {
  const r = data.selected;
  if (!r || r.isCancelled || r.isDiverted) return null;
  return data.flightDelay?.delayMinutes ?? r.delayMinutes;
}
