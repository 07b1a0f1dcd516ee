// aviationstack's `/flights` row mapped to a ProviderFlight (aviationstack.ts asks, aviationstack/end.ts
// reads each end: its local wall-clock times mislabelled `+00:00`, its `delay` field against the times;
// docs/providers.md, "aviationstack", says why each rule is there): the status checked against the
// times, and a codeshare row turned into the operating flight it copies.
import { utcTime } from '../../clock.js';
import type { ReferenceAirports } from '../../airports/index.js';
import { isObject, str } from '../measured.js';
import { Doubts, weigh, weightOf } from '../doubts.js';
import type { AirlineRef, FlightPhase, ProviderError, ProviderFlight } from '../types.js';
import { parseInstant, utcDate } from '../zones.js';
import { code, delayField, DELAY_SLACK_MINUTES, readEnd } from './end.js';

export { code, localTime, offsetOfText, zoneOf, type Zone } from './end.js';

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

/** `HH:MM UTC on YYYY-MM-DD`, for times on different days. */
export const hhmmOn = (at: number) => `${utcTime(at)} on ${utcDate(at)}`;

/** An airline's name as aviationstack writes it; `"empty"` and `"null"` are no name. */
export function airlineName(value: unknown): string | null {
  const name = str(value);
  return name === null || /^(empty|null)$/i.test(name) ? null : name;
}

/** An airline as a row names it: a name, a 2-character IATA code and a 3-letter ICAO code, or nulls. */
export function airlineOf(name: unknown, iata: unknown, icao: unknown): AirlineRef {
  const i = code(iata);
  const c = code(icao);
  return {
    name: airlineName(name),
    iata: i && /^[A-Z0-9]{2}$/.test(i) ? i : null,
    icao: c && /^[A-Z]{3}$/.test(c) ? c : null,
  };
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
  if (
    departureDelay !== null &&
    departureDelay > DELAY_SLACK_MINUTES &&
    departure.actual === null &&
    arrival.actual === null &&
    arrival.estimated !== null &&
    arrival.estimated === arrival.scheduled
  ) {
    arrival.estimated = null;
    delete arrival.estimatedKind;
  }
  const left = departure.actual ?? null;
  const landedAt = arrival.actual ?? null;
  const byTimes: FlightPhase =
    landedAt !== null
      ? 'landed'
      : left !== null
        ? 'departed'
        : departure.scheduled !== null && departure.scheduled > observedAt
          ? 'scheduled'
          : 'unknown';
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
      if (landedAt === null)
        doubts.add('The status says landed but no arrival time is given, so the landing is not known.', 'outcome');
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
          doubts.add(
            `The status says active while the live position at ${utcTime(seen)} shows the aircraft on the ground, and no arrival time is given; the landing is not known.`,
            'outcome',
          );
      } else {
        phase = 'unknown';
        doubts.add(
          'The status says active but no departure time is given, so the flight is not known to have left.',
          'outcome',
        );
      }
      break;
    case 'scheduled':
      phase = byTimes === 'unknown' ? 'scheduled' : byTimes;
      if (left !== null || landedAt !== null)
        doubts.add(
          `The status says scheduled while ${left !== null ? `a departure at ${utcTime(left)}` : `an arrival at ${utcTime(landedAt!)}`} is given; the times are used.`,
          'outcome',
        );
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
    operation:
      carrier.name && /^private\b/i.test(carrier.name) && !carrier.iata && !carrier.icao ? 'private' : 'passenger',
    departure,
    arrival,
    divertedTo: null,
    phase,
    cancelled,
    diverted,
    statusRaw: status,
    aircraft: aircraft
      ? {
          registration: code(aircraft.registration),
          icao24: code(aircraft.icao24),
          typeIcao: code(aircraft.icao),
          typeIata: code(aircraft.iata),
          label: null,
        }
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
