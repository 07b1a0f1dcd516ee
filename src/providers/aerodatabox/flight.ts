// AeroDataBox's flight answer mapped to a ProviderFlight (aerodatabox.ts asks; docs/providers.md,
// "AeroDataBox" and "AeroDataBox in practice", says why each rule is there): the status vocabulary, the
// structured and legacy flat time fields, the strongest evidence for each time, the doubts of a row
// that contradicts itself, and the stale extra rows set aside.
import { utcTime } from '../../clock.js';
import { isObject, normaliseDesignator, str } from '../measured.js';
import { Doubts, weigh, weightOf } from '../doubts.js';
import type { AirportRef, FlightEnd, FlightPhase, ProviderFlight } from '../types.js';
import { parseInstant } from '../zones.js';
import { sameAirport } from './codeshare.js';

export type Json = Record<string, unknown>;

/** Statuses after which the flight has left its gate. */
const DEPARTED = new Set(['Departed', 'EnRoute', 'Approaching', 'Arrived', 'Diverted']);

function phaseOf(status: string): FlightPhase {
  switch (status) {
    case 'Expected':
    case 'CheckIn':
    case 'Boarding':
    case 'GateClosed':
    case 'Delayed':
      return 'scheduled';
    case 'Departed':
    case 'EnRoute':
    case 'Approaching':
      return 'departed';
    case 'Arrived':
      return 'landed';
    case 'Canceled':
      return 'cancelled';
    case 'Diverted':
      return 'diverted';
    default:
      // Unknown, CanceledUncertain ("probably cancelled": expected updates never came), anything new
      return 'unknown';
  }
}

type TimeField = 'scheduledTime' | 'revisedTime' | 'runwayTime' | 'predictedTime';
/** The legacy flat twins (answers of 2020 to mid-2023): `actualTime*` is the flat form of `revisedTime`. */
const FLAT: Record<TimeField, string> = {
  scheduledTime: 'scheduledTimeUtc',
  revisedTime: 'actualTimeUtc',
  runwayTime: 'runwayTimeUtc',
  predictedTime: 'predictedTimeUtc',
};

/** A time of an end: the `{utc, local}` object, else its legacy flat `…Utc` field. */
export const time = (end: Json | undefined, field: TimeField): number | null => {
  const value = end?.[field];
  return (isObject(value) ? parseInstant(value.utc) : null) ?? parseInstant(end?.[FLAT[field]]);
};

/** The local twin of an end's scheduled time (`2023-08-01 20:45+01:00`), structured or flat. */
export function scheduledLocal(end: unknown): string | null {
  if (!isObject(end)) return null;
  const structured = isObject(end.scheduledTime) ? end.scheduledTime.local : undefined;
  return typeof structured === 'string'
    ? structured
    : typeof end.scheduledTimeLocal === 'string'
      ? end.scheduledTimeLocal
      : null;
}

export function airportOf(value: unknown): AirportRef {
  if (!isObject(value)) return { iata: null, icao: null };
  return { iata: str(value.iata)?.toUpperCase() ?? null, icao: str(value.icao)?.toUpperCase() ?? null };
}

const minutes = (ms: number) => Math.round(ms / 60_000);
/** A taxi-out longer than this after a revised departure equal to the schedule says the revised time is the schedule's copy. */
const COPIED_SCHEDULE_TAXI_MS = 15 * 60_000;
/** An arrival this much later than its schedule while the revised departure equals the schedule (no runway time) is a contradiction. */
const COPIED_SCHEDULE_ARRIVAL_MS = 30 * 60_000;

export interface EndTimes {
  scheduled: number | null;
  revised: number | null;
  runway: number | null;
  predicted: number | null;
}
export const timesOf = (end: Json | undefined): EndTimes => ({
  scheduled: time(end, 'scheduledTime'),
  revised: time(end, 'revisedTime'),
  runway: time(end, 'runwayTime'),
  predicted: time(end, 'predictedTime'),
});

/**
 * What one row (a `FlightContract`, or the `movement` of a FIDS row) says happened, taking the
 * strongest evidence: runway and block times over revised estimates, and the times over the status
 * text. Every place the row contradicts itself becomes a doubt (docs/providers.md, "AeroDataBox in
 * practice").
 */
interface Reading {
  departure: Omit<FlightEnd, 'airport' | 'runway'>;
  arrival: Omit<FlightEnd, 'airport' | 'runway'>;
  phase: FlightPhase;
  doubts: Doubts;
}

function estimateOf(t: EndTimes): Pick<FlightEnd, 'estimated' | 'estimatedKind'> {
  // revisedTime is the airline's or airport's revision; predictedTime AeroDataBox's own model.
  if (t.revised !== null) return { estimated: t.revised, estimatedKind: 'revised' };
  if (t.predicted !== null) return { estimated: t.predicted, estimatedKind: 'estimated' };
  return { estimated: null };
}

export function read(
  status: string,
  dep: EndTimes,
  arr: EndTimes,
  lastUpdated: number | null,
  observedAt: number,
): Reading {
  const doubts = new Doubts();
  const cancelled = status === 'Canceled';
  const diverted = status === 'Diverted';
  let phase = phaseOf(status);

  // A cancelled day keeps a revised time equal to the schedule: it is no estimate of a flight that operated.
  if (cancelled) {
    const seen = dep.runway ?? arr.runway;
    if (seen !== null)
      doubts.add(`The status says Canceled while a runway time shows a movement at ${utcTime(seen)}.`, 'outcome');
    return {
      departure: { scheduled: dep.scheduled, estimated: null, actual: null, runwayAt: null },
      arrival: { scheduled: arr.scheduled, estimated: null, actual: null, runwayAt: null },
      phase,
      doubts,
    };
  }

  // Departure. A take-off time is the strongest evidence that it happened, whatever the status says.
  const departure: Reading['departure'] = {
    scheduled: dep.scheduled,
    ...estimateOf(dep),
    actual: null,
    runwayAt: null,
  };
  const departedByStatus = DEPARTED.has(status);
  if (dep.runway !== null && !departedByStatus && status !== 'Unknown') {
    doubts.add(
      `The status says ${status} while the runway time shows a take-off at ${utcTime(dep.runway)}; the take-off is used.`,
      'departure',
    );
  }
  // The revised departure can be the schedule's copy: a take-off well after it, or an arrival far later without a take-off time.
  const copiedSchedule = dep.revised !== null && dep.revised === dep.scheduled;
  const arrivalSeen = arr.runway ?? arr.revised;
  const copyByArrival =
    copiedSchedule &&
    dep.runway === null &&
    arrivalSeen !== null &&
    arr.scheduled !== null &&
    arrivalSeen - arr.scheduled >= COPIED_SCHEDULE_ARRIVAL_MS;
  if (copyByArrival) {
    doubts.add(
      `The revised departure time equals the schedule (${utcTime(dep.revised!)}) while the arrival time (${utcTime(arrivalSeen!)}) is ${minutes(arrivalSeen! - arr.scheduled!)} minutes after its schedule; the departure time is taken for a copy of the schedule.`,
      'departure',
    );
  }
  if (departedByStatus || dep.runway !== null) {
    departure.runwayAt = dep.runway;
    if (dep.runway !== null && (dep.revised === null || dep.revised === dep.runway)) {
      // No block time, or a "block" time copied from the runway time: a runway time.
      Object.assign(departure, { actual: dep.runway, actualKind: 'runway' });
    } else if (dep.runway !== null && copiedSchedule && dep.runway - dep.revised! > COPIED_SCHEDULE_TAXI_MS) {
      doubts.add(
        `The revised departure time equals the schedule (${utcTime(dep.revised!)}) while the runway time shows a take-off at ${utcTime(dep.runway)}; the runway time is used.`,
        'departure',
      );
      Object.assign(departure, { actual: dep.runway, actualKind: 'runway' });
    } else if (dep.revised !== null && !copyByArrival) {
      Object.assign(departure, { actual: dep.revised, actualKind: 'block' });
    }
  }

  // Arrival. A landing time is evidence of an arrival; "Arrived" alone is not when the only arrival time is still ahead.
  const arrival: Reading['arrival'] = { scheduled: arr.scheduled, ...estimateOf(arr), actual: null, runwayAt: null };
  const arrived = status === 'Arrived';
  if (arr.runway !== null && !diverted) {
    if (!arrived)
      doubts.add(
        `The status says ${status} while the runway time shows a landing at ${utcTime(arr.runway)}; the landing is used.`,
        'outcome',
      );
    arrival.runwayAt = arr.runway;
    if (arr.revised === null || arr.revised === arr.runway)
      Object.assign(arrival, { actual: arr.runway, actualKind: 'runway' });
    else Object.assign(arrival, { actual: arr.revised, actualKind: 'block' });
  } else if (arrived && arr.revised !== null) {
    // lastUpdatedUtc does not date the status (it can come a day later), but an arrival after it, or after now, is not one yet.
    const asOf = Math.min(lastUpdated ?? observedAt, observedAt);
    if (arr.revised > asOf) {
      doubts.add(
        `The status says Arrived as of ${utcTime(asOf)} (${lastUpdated !== null && lastUpdated <= observedAt ? "the provider's last update" : 'the time of the call'}) while the only arrival time, ${utcTime(arr.revised)}, is an estimate still ahead of it; no arrival time is taken from it.`,
        'outcome',
      );
    } else Object.assign(arrival, { actual: arr.revised, actualKind: 'block' });
  } else if (arrived) {
    doubts.add('The status says Arrived but no arrival time is given.', 'outcome');
  }

  // The phase the evidence shows, where the status text says less.
  if (arrival.actual !== null && (phase === 'scheduled' || phase === 'departed' || phase === 'unknown'))
    phase = 'landed';
  else if (departure.actual !== null && (phase === 'scheduled' || phase === 'unknown')) phase = 'departed';
  else if (phase === 'landed' && arrival.actual === null) phase = departure.actual !== null ? 'departed' : 'unknown';
  return { departure, arrival, phase, doubts };
}

export const operationOf = (row: Json): ProviderFlight['operation'] => (row.isCargo === true ? 'cargo' : 'passenger');

export function airlineOf(value: unknown): ProviderFlight['airline'] {
  if (!isObject(value)) return { name: null, iata: null, icao: null };
  return {
    name: str(value.name),
    iata: str(value.iata)?.toUpperCase() ?? null,
    icao: str(value.icao)?.toUpperCase() ?? null,
  };
}

/** `KL 1395` is IATA; a three-letter prefix (`KLM 1395`) is ICAO. */
export function designators(number: string | null): { iata: string | null; icao: string | null } {
  if (!number) return { iata: null, icao: null };
  const compact = normaliseDesignator(number);
  return /^[A-Z]{3}\d/.test(compact) ? { iata: null, icao: compact } : { iata: compact, icao: null };
}

/** The row is a marketing number's (`IsCodeshared`): it does not name its operating flight. */
export const isCodeshare = (row: Json) => row.codeshareStatus === 'IsCodeshared';

export function toFlight(row: Json, observedAt: number): ProviderFlight | null {
  if (!isObject(row.departure) || !isObject(row.arrival)) return null;
  const status = str(row.status) ?? 'Unknown';
  const reading = read(
    status,
    timesOf(row.departure),
    timesOf(row.arrival),
    parseInstant(row.lastUpdatedUtc),
    observedAt,
  );
  const cancelled = status === 'Canceled';
  const diverted = status === 'Diverted';
  const number = designators(str(row.number));
  const aircraft = isObject(row.aircraft) ? row.aircraft : null;
  const flight: Omit<ProviderFlight, 'settled'> = {
    provider: 'aerodatabox',
    flightIata: number.iata,
    flightIcao: number.icao,
    callsign: str(row.callSign)?.toUpperCase() ?? null,
    airline: airlineOf(row.airline),
    // Set when a codeshare row is resolved to its operating flight (AeroDataBoxProvider.resolve).
    operating: null,
    codeshares: [],
    operation: operationOf(row),
    departure: { airport: airportOf(row.departure.airport), runway: str(row.departure.runway), ...reading.departure },
    arrival: { airport: airportOf(row.arrival.airport), runway: str(row.arrival.runway), ...reading.arrival },
    divertedTo: null,
    phase: reading.phase,
    cancelled,
    diverted,
    statusRaw: str(row.status),
    aircraft: aircraft
      ? {
          registration: str(aircraft.reg)?.toUpperCase() ?? null,
          icao24: str(aircraft.modeS)?.toUpperCase() ?? null,
          typeIcao: null,
          typeIata: null,
          label: str(aircraft.model),
        }
      : null,
    observedAt,
    ...reading.doubts.fields(),
  };
  // Arrived with an arrival time, cancelled, or diverted (AeroDataBox's last word on a diversion);
  // and no reading of a doubted time could change the outcome.
  const final = cancelled || diverted || (status === 'Arrived' && reading.arrival.actual !== null);
  return { ...flight, settled: final && weigh(flight, weightOf(flight)).holds };
}
/**
 * A leg without a departure time beside a dated leg of the same number and route is a stale extra
 * row: set aside, with a doubt on the dated leg when the two disagree on the status.
 */
export function setAsideStale(legs: ProviderFlight[]): ProviderFlight[] {
  const dated = legs.filter((f) => f.departure.scheduled !== null);
  const out: ProviderFlight[] = [];
  for (const leg of legs) {
    if (leg.departure.scheduled !== null) {
      out.push(leg);
      continue;
    }
    const twin = dated.find(
      (d) =>
        sameAirport(d.departure.airport, leg.departure.airport) === true ||
        sameAirport(d.arrival.airport, leg.arrival.airport) === true ||
        (leg.arrival.scheduled !== null && d.arrival.scheduled === leg.arrival.scheduled),
    );
    if (!twin) {
      out.push(leg);
      continue;
    }
    if (leg.statusRaw !== twin.statusRaw) {
      const number = leg.flightIata ?? leg.flightIcao ?? 'the number';
      twin.doubts = [
        ...(twin.doubts ?? []),
        `A second row of ${number} without a departure time says ${leg.statusRaw ?? 'nothing'} where this one says ${twin.statusRaw ?? 'nothing'}; it is set aside.`,
      ];
      twin.doubtWeight = { timesOnly: false, arrival: twin.doubtWeight?.arrival ?? null };
      twin.settled = false;
    }
  }
  return out;
}
