// aviationstack's `/flights` row mapped to a ProviderFlight (aviationstack.ts asks; docs/providers.md,
// "aviationstack", says why each rule is there): local wall-clock times mislabelled `+00:00` read in
// the end's zone, the status checked against the times, the `delay` field against the actual time,
// and a codeshare row turned into the operating flight it copies.
import { MINUTE, utcTime } from '../../clock.js';
import type { ReferenceAirports } from '../../airports/index.js';
import { isObject, str } from '../measured.js';
import { Doubts, weigh, weightOf, type Bearing } from '../doubts.js';
import type { AirlineRef, AirportRef, FlightEnd, FlightPhase, ProviderError, ProviderFlight } from '../types.js';
import { isZone, parseInstant, utcDate, zonedToUtc } from '../zones.js';

export type Json = Record<string, unknown>;

export function phaseOf(status: string | null): FlightPhase {
  switch (status) {
    case 'scheduled':
      return 'scheduled';
    case 'active':
      return 'departed';
    case 'landed':
      return 'landed';
    case 'cancelled':
      return 'cancelled';
    case 'diverted':
      return 'diverted';
    default:
      // incident, redirected, unknown, anything new
      return 'unknown';
  }
}

/** A code as aviationstack writes it (case varies), upper-case, or null. */
export const code = (value: unknown) => str(value)?.toUpperCase() ?? null;

/** An end's zone: an IANA name, or a fixed UTC offset in minutes (from a `timezone` such as `"+8"`). */
export type Zone = string | number;

/** Minutes east of UTC of an offset written as a zone (`+8`, `+08:00`, `-3:30`, `UTC+5:45`, `GMT-4`), or null. */
export function offsetOfText(text: string): number | null {
  const m = /^(?:UTC|GMT)?\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?$/i.exec(text.trim());
  if (!m) return null;
  const hours = Number(m[2]);
  const minutes = Number(m[3] ?? 0);
  if (hours > 14 || minutes >= 60) return null;
  return (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

/** The wall-clock part of `2020-02-04T20:25:00+00:00` (the label is not the zone) in `zone`. */
export function localTime(value: unknown, zone: Zone | null): number | null {
  const text = str(value);
  if (!text || zone === null) return null;
  const wall = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?)/.exec(text)?.[1];
  if (!wall) return null;
  if (typeof zone === 'string') return zonedToUtc(wall, zone);
  const asUtc = Date.parse(`${wall}Z`);
  return Number.isNaN(asUtc) ? null : asUtc - zone * MINUTE;
}

/** `HH:MM UTC on YYYY-MM-DD`, for times on different days. */
export const hhmmOn = (at: number) => `${utcTime(at)} on ${utcDate(at)}`;
export const minutes = (n: number) => `${n} minute${Math.abs(n) === 1 ? '' : 's'}`;
/** How far `at` is from the schedule, in words: "16 minutes before", "8 minutes after", "exactly at". */
export const against = (at: number, scheduled: number) => {
  const m = Math.round((at - scheduled) / MINUTE);
  return m === 0 ? 'exactly at' : m < 0 ? `${minutes(-m)} before` : `${minutes(m)} after`;
};

/** A `delay` field (minutes, a number or a numeric string), or null. */
export function delayField(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? n : null;
}

/**
 * How far a `delay` field may stray from the times before it is a contradiction: the corpus shows it
 * a minute off in most rows (seconds cut off on one side, rounded on the other).
 */
export const DELAY_SLACK_MINUTES = 2;

/** An airline's name as aviationstack writes it; `"empty"` and `"null"` are no name. */
export function airlineName(value: unknown): string | null {
  const name = str(value);
  return name === null || /^(empty|null)$/i.test(name) ? null : name;
}

/** An airline as a row names it: a name, a 2-character IATA code and a 3-letter ICAO code, or nulls. */
export function airlineOf(name: unknown, iata: unknown, icao: unknown): AirlineRef {
  const i = code(iata);
  const c = code(icao);
  return { name: airlineName(name), iata: i && /^[A-Z0-9]{2}$/.test(i) ? i : null, icao: c && /^[A-Z]{3}$/.test(c) ? c : null };
}

/** One end read: the provider-neutral end, and what its fields say that the end cannot hold. */
export interface EndRead {
  end: FlightEnd;
  /** Contradictions within the end, as doubts. */
  doubts: Doubts;
}

/** What aviationstack says in a 200 that carries `{error: {code, message}}` instead of data. */
export function errorOf(body: Json): ProviderError | null {
  if (!isObject(body.error)) return null;
  const c = str(body.error.code) ?? 'error';
  const message = `aviationstack: ${str(body.error.message) ?? str(body.error.info) ?? c} (${c})`;
  if (/access_key|inactive_user|https_access|function_access/.test(c)) return { kind: 'unavailable', message };
  if (/limit_reached/.test(c)) return { kind: 'rate_limited', message };
  return { kind: 'bad_response', message };
}

/**
 * The zone of an end: aviationstack's own when it is an IANA name; else the reference airports' zone
 * of its IATA code (it knows summer time); else aviationstack's own when it is a UTC offset (`"+8"`);
 * else none, and the end's times stay null.
 */
export function zoneOf(airports: ReferenceAirports, end: Json | undefined, iata: string | null): Zone | null {
  const own = str(end?.timezone);
  // An offset ("+8", "+05:45") is never taken for a zone name: Node 24's Intl accepts "+05:45" as
  // one, Node 20's does not, and the reference airports' zone (with its summer time) comes first.
  const offset = own ? offsetOfText(own) : null;
  if (own && offset === null && isZone(own)) return own;
  const reference = iata ? airports.find(iata)?.timezone : undefined;
  if (reference) return reference;
  return offset;
}

/**
 * One end. `actual` is the block time (`actual`), else the runway time (`actual_runway`); when the
 * two are equal (aviationstack fills one from the other) it is a runway time. `estimated` equal to
 * the schedule is the schedule copied, not an estimate, when the end's actual time or its `delay`
 * field says otherwise: it is dropped.
 */
export function readEnd(airports: ReferenceAirports, end: Json | undefined, happened: boolean, side: 'departure' | 'arrival'): EndRead {
  const airport: AirportRef = { iata: code(end?.iata), icao: code(end?.icao) };
  const zone = zoneOf(airports, end, airport.iata);
  const at = (field: string) => localTime(end?.[field], zone);
  const scheduled = at('scheduled');
  const block = happened ? at('actual') : null;
  const runwayAt = happened ? at('actual_runway') : null;
  const actual = block ?? runwayAt;
  const actualKind: 'block' | 'runway' = block === null || block === runwayAt ? 'runway' : 'block';
  let estimated = at('estimated');
  const delay = delayField(end?.delay);
  const doubts = new Doubts();
  // A delay field that disagrees with a time: either may be wrong. At the arrival, the time it implies is a reading.
  const orDelayField = (time: number): Bearing =>
    side === 'departure' ? 'departure' : { from: Math.min(time, scheduled! + delay! * MINUTE), to: Math.max(time, scheduled! + delay! * MINUTE) };
  // Nothing is expected at an end that will not happen (cancelled; a diverted flight's planned arrival).
  if (happened && scheduled !== null && delay !== null && delay > 0) {
    if (actual !== null) {
      const measured = Math.round((actual - scheduled) / MINUTE);
      if (Math.abs(measured - delay) > DELAY_SLACK_MINUTES)
        doubts.add(
          `The ${side} delay field says ${minutes(delay)} late while the actual ${side} at ${utcTime(actual)} is ${against(actual, scheduled)} the schedule (${utcTime(scheduled)}); the times are used.`,
          orDelayField(actual),
        );
    } else if (estimated !== null && delay > DELAY_SLACK_MINUTES) {
      if (estimated === scheduled) {
        doubts.add(
          `The ${side} estimate equals the schedule (${utcTime(scheduled)}) while the delay field says ${minutes(delay)} late; no expected ${side} time is given.`,
          orDelayField(estimated),
        );
      } else if (Math.abs(Math.round((estimated - scheduled) / MINUTE) - delay) > DELAY_SLACK_MINUTES) {
        doubts.add(
          `The ${side} delay field says ${minutes(delay)} late while the estimate (${utcTime(estimated)}) is ${against(estimated, scheduled)} the schedule (${utcTime(scheduled)}); the estimate is used.`,
          orDelayField(estimated),
        );
      }
    }
  }
  if (estimated !== null && estimated === scheduled && ((actual !== null && actual !== scheduled) || (delay !== null && delay > DELAY_SLACK_MINUTES))) estimated = null;
  return {
    end: {
      airport,
      scheduled,
      estimated,
      ...(estimated !== null ? { estimatedKind: 'estimated' as const } : {}),
      actual,
      ...(actual !== null ? { actualKind } : {}),
      runway: null,
      runwayAt,
    },
    doubts,
  };
}

/**
 * One `/flights` row as a flight. The status is checked against the times: a status the times
 * contradict is a doubt and the phase follows the times; a missing status (`null`, `"unknown"`) is
 * read from the times alone.
 */
export function toFlight(airports: ReferenceAirports, row: Json, observedAt: number): ProviderFlight | null {
  if (!isObject(row.departure) || !isObject(row.arrival)) return null;
  const status = str(row.flight_status);
  const said = status?.toLowerCase() ?? null;
  const cancelled = said === 'cancelled';
  const diverted = said === 'diverted';
  const dep = readEnd(airports, row.departure, !cancelled, 'departure');
  const arr = readEnd(airports, row.arrival, !cancelled && !diverted, 'arrival');
  const departure = dep.end;
  const arrival = arr.end;
  const doubts = new Doubts();
  for (const end of [dep, arr]) doubts.join(end.doubts);
  // A departure still to leave that its delay field says is late makes an arrival estimate equal to
  // the schedule a copy of it too (MH 132: 55 minutes late, both estimates the schedule): no expected
  // arrival is given. Once it has left, the arrival estimate stands (a flight can make time up).
  const departureDelay = delayField(row.departure.delay);
  if (departureDelay !== null && departureDelay > DELAY_SLACK_MINUTES && departure.actual === null && arrival.actual === null && arrival.estimated !== null && arrival.estimated === arrival.scheduled) {
    arrival.estimated = null;
    delete arrival.estimatedKind;
  }
  const left = departure.actual ?? null;
  const landedAt = arrival.actual ?? null;
  const byTimes: FlightPhase = landedAt !== null ? 'landed' : left !== null ? 'departed' : departure.scheduled !== null && departure.scheduled > observedAt ? 'scheduled' : 'unknown';
  let phase: FlightPhase;
  switch (said) {
    case 'cancelled':
      phase = said;
      break;
    case 'diverted': {
      phase = said;
      // TK 6567: "diverted" while its live position, after the departure, is still at cruise; the
      // answer names no diversion airport and no landing, so the diversion has not ended.
      const live = isObject(row.live) ? row.live : null;
      const seen = parseInstant(live?.updated);
      if (live?.is_ground === false && seen !== null && (left === null || seen > left) && landedAt === null)
        doubts.add(
          `The status says diverted while the live position at ${utcTime(seen)} shows the aircraft still in the air, and no diversion airport or landing is given; the diversion has not ended.`,
          'outcome',
        );
      break;
    }
    case 'landed':
      phase = 'landed';
      if (landedAt === null) doubts.add('The status says landed but no arrival time is given, so the landing is not known.', 'outcome');
      break;
    case 'active':
      if (landedAt !== null) {
        phase = 'landed';
        doubts.add(`The status says active while an arrival at ${utcTime(landedAt)} is given.`, 'outcome');
      } else if (left !== null) {
        phase = 'departed';
        const live = isObject(row.live) ? row.live : null;
        const seen = parseInstant(live?.updated);
        if (live?.is_ground === true && seen !== null && seen > left)
          doubts.add(`The status says active while the live position at ${utcTime(seen)} shows the aircraft on the ground, and no arrival time is given; the landing is not known.`, 'outcome');
      } else {
        phase = 'unknown';
        doubts.add('The status says active but no departure time is given, so the flight is not known to have left.', 'outcome');
      }
      break;
    case 'scheduled':
      phase = byTimes === 'unknown' ? 'scheduled' : byTimes;
      if (left !== null || landedAt !== null)
        doubts.add(`The status says scheduled while ${left !== null ? `a departure at ${utcTime(left)}` : `an arrival at ${utcTime(landedAt!)}`} is given; the times are used.`, 'outcome');
      break;
    case null:
    case 'unknown':
      phase = byTimes;
      break;
    default:
      // incident, redirected, anything new
      phase = 'unknown';
  }
  // aviationstack has filed a departure on the flight's local date while the rest of the flight
  // is a day earlier (the schedule on the wrong day).
  if (departure.scheduled !== null && arrival.scheduled !== null && departure.scheduled >= arrival.scheduled)
    doubts.add(
      `The departure is scheduled at ${hhmmOn(departure.scheduled)}, not before the scheduled arrival at ${hhmmOn(arrival.scheduled)}; the schedule contradicts itself.`,
      'outcome',
    );
  const flight = isObject(row.flight) ? row.flight : {};
  const airline = isObject(row.airline) ? row.airline : {};
  const shared = isObject(flight.codeshared) ? flight.codeshared : null;
  const aircraft = isObject(row.aircraft) ? row.aircraft : null;
  const carrier = airlineOf(airline.name, airline.iata, airline.icao);
  const settledByTimes = phase === 'landed' && landedAt !== null;
  const picture: Omit<ProviderFlight, 'settled'> = {
    provider: 'aviationstack',
    flightIata: code(flight.iata),
    flightIcao: code(flight.icao),
    callsign: null,
    airline: carrier,
    // A codeshare row is the marketing flight; `codeshared` names the one that operates.
    operating: shared
      ? {
          flightIata: code(shared.flight_iata),
          flightIcao: code(shared.flight_icao),
          airline: airlineOf(shared.airline_name, shared.airline_iata, shared.airline_icao),
        }
      : null,
    codeshares: [],
    operation: carrier.name && /^private\b/i.test(carrier.name) && !carrier.iata && !carrier.icao ? 'private' : 'passenger',
    departure,
    arrival,
    divertedTo: null,
    phase,
    cancelled,
    diverted,
    statusRaw: status,
    aircraft: aircraft
      ? { registration: code(aircraft.registration), icao24: code(aircraft.icao24), typeIcao: code(aircraft.icao), typeIata: code(aircraft.iata), label: null }
      : null,
    observedAt,
    ...doubts.fields(),
  };
  return { ...picture, settled: (cancelled || diverted || settledByTimes) && weigh(picture, weightOf(picture)).holds };
}

/**
 * The operating flight a codeshare row copies, under its own number: the row's times are the
 * operator's (aviationstack repeats them for every marketing number), its carrier the operator.
 */
export function asOperating(flight: ProviderFlight): ProviderFlight {
  const operating = flight.operating!;
  return {
    ...flight,
    flightIata: operating.flightIata,
    flightIcao: operating.flightIcao,
    airline: operating.airline,
    operating: null,
    codeshares: flight.flightIata ? [flight.flightIata] : [],
  };
}
