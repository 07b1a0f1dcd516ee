// aviationstack (apilayer) behind the provider interface. Every mapping decision is in
// docs/providers.md, "aviationstack"; there is no machine-readable schema, so the shapes are those
// of its documentation and of many real answers (../shared/research/providers.md §2).
//
// - Flights: GET /flights?flight_iata=…&flight_date=… (flight_icao for an ICAO designator). The date
//   is the departure airport's local date (local-dates.ts), and the times are local wall-clock times mislabelled
//   `+00:00`: they are read in the airport's zone (`timezone`, else the reference airports').
// - Boards: GET /timetable?iataCode=…&type=departure|arrival: the airport's current local day only.
// - Aircraft: GET /airplanes?registration_number=….
// The key is the `access_key` query parameter: it is in every request URL and in no message.
import { MINUTE, utcTime, type Clock } from '../clock.js';
import type { ReferenceAirports } from '../airports/index.js';
import { failed, isObject, KeyedProvider, malformed, measured, normaliseDesignator, str, type KeyedSettings } from './measured.js';
import type {
  AircraftRecord,
  AirlineRef,
  AirportRef,
  Answer,
  BoardRead,
  BoardRow,
  CallOptions,
  FlightEnd,
  FlightLookup,
  FlightPhase,
  FlightProvider,
  ProviderError,
  ProviderFlight,
} from './types.js';
import { hasLeft } from './types.js';
import type { Timer } from './timer.js';
import type { CallWindow } from './upstream.js';
import { legsOnUtcDate, type LocalFile } from './local-dates.js';
import { isZone, offsetMinutes, parseInstant, utcDate, zonedToUtc } from './zones.js';

export const AVIATIONSTACK_URL = 'https://api.aviationstack.com/v1';
/** aviationstack documents no per-minute limit for /flights; its plans are monthly quotas. */
export const AVIATIONSTACK_REQUESTS_PER_MINUTE = 10;

type Json = Record<string, unknown>;

function phaseOf(status: string | null): FlightPhase {
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
const code = (value: unknown) => str(value)?.toUpperCase() ?? null;

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
const hhmmOn = (at: number) => `${utcTime(at)} on ${utcDate(at)}`;
const minutes = (n: number) => `${n} minute${Math.abs(n) === 1 ? '' : 's'}`;
/** How far `at` is from the schedule, in words: "16 minutes before", "8 minutes after", "exactly at". */
const against = (at: number, scheduled: number) => {
  const m = Math.round((at - scheduled) / MINUTE);
  return m === 0 ? 'exactly at' : m < 0 ? `${minutes(-m)} before` : `${minutes(m)} after`;
};

/** A `delay` field (minutes, a number or a numeric string), or null. */
function delayField(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? n : null;
}

/**
 * How far a `delay` field may stray from the times before it is a contradiction: the corpus shows it
 * a minute off in most rows (seconds cut off on one side, rounded on the other).
 */
const DELAY_SLACK_MINUTES = 2;

/** An airline's name as aviationstack writes it; `"empty"` and `"null"` are no name. */
function airlineName(value: unknown): string | null {
  const name = str(value);
  return name === null || /^(empty|null)$/i.test(name) ? null : name;
}

/** An airline as a row names it: a name, a 2-character IATA code and a 3-letter ICAO code, or nulls. */
function airlineOf(name: unknown, iata: unknown, icao: unknown): AirlineRef {
  const i = code(iata);
  const c = code(icao);
  return { name: airlineName(name), iata: i && /^[A-Z0-9]{2}$/.test(i) ? i : null, icao: c && /^[A-Z]{3}$/.test(c) ? c : null };
}

/** One end read: the provider-neutral end, and what its fields say that the end cannot hold. */
interface EndRead {
  end: FlightEnd;
  /** Contradictions within the end, as doubts. */
  doubts: string[];
}

/** What aviationstack says in a 200 that carries `{error: {code, message}}` instead of data. */
function errorOf(body: Json): ProviderError | null {
  if (!isObject(body.error)) return null;
  const c = str(body.error.code) ?? 'error';
  const message = `aviationstack: ${str(body.error.message) ?? str(body.error.info) ?? c} (${c})`;
  if (/access_key|inactive_user|https_access|function_access/.test(c)) return { kind: 'unavailable', message };
  if (/limit_reached/.test(c)) return { kind: 'rate_limited', message };
  return { kind: 'bad_response', message };
}

export class AviationstackProvider extends KeyedProvider implements FlightProvider {
  constructor(
    settings: KeyedSettings,
    private readonly clock: Clock,
    private readonly airports: ReferenceAirports,
    /** The HTTP client's time and waits (timer.ts): real by default, a test's manual timer. */
    timer?: Timer,
  ) {
    // Checked by one flight (`limit=1`): one call of the monthly quota.
    super('aviationstack', settings, { query: { access_key: settings.key } }, { path: '/flights', query: { limit: '1' } }, timer);
  }

  /**
   * The zone of an end: aviationstack's own when it is an IANA name; else the reference airports' zone
   * of its IATA code (it knows summer time); else aviationstack's own when it is a UTC offset (`"+8"`);
   * else none, and the end's times stay null.
   */
  zone(end: Json | undefined, iata: string | null): Zone | null {
    const own = str(end?.timezone);
    // An offset ("+8", "+05:45") is never taken for a zone name: Node 24's Intl accepts "+05:45" as
    // one, Node 20's does not, and the reference airports' zone (with its summer time) comes first.
    const offset = own ? offsetOfText(own) : null;
    if (own && offset === null && isZone(own)) return own;
    const reference = iata ? this.airports.find(iata)?.timezone : undefined;
    if (reference) return reference;
    return offset;
  }

  /**
   * One end. `actual` is the block time (`actual`), else the runway time (`actual_runway`); when the
   * two are equal (aviationstack fills one from the other) it is a runway time. `estimated` equal to
   * the schedule is the schedule copied, not an estimate, when the end's actual time or its `delay`
   * field says otherwise: it is dropped.
   */
  private end(end: Json | undefined, happened: boolean, side: 'departure' | 'arrival'): EndRead {
    const airport: AirportRef = { iata: code(end?.iata), icao: code(end?.icao) };
    const zone = this.zone(end, airport.iata);
    const at = (field: string) => localTime(end?.[field], zone);
    const scheduled = at('scheduled');
    const block = happened ? at('actual') : null;
    const runwayAt = happened ? at('actual_runway') : null;
    const actual = block ?? runwayAt;
    const actualKind: 'block' | 'runway' = block === null || block === runwayAt ? 'runway' : 'block';
    let estimated = at('estimated');
    const delay = delayField(end?.delay);
    const doubts: string[] = [];
    // Nothing is expected at an end that will not happen (cancelled; a diverted flight's planned arrival).
    if (happened && scheduled !== null && delay !== null && delay > 0) {
      if (actual !== null) {
        const measured = Math.round((actual - scheduled) / MINUTE);
        if (Math.abs(measured - delay) > DELAY_SLACK_MINUTES)
          doubts.push(
            `The ${side} delay field says ${minutes(delay)} late while the actual ${side} at ${utcTime(actual)} is ${against(actual, scheduled)} the schedule (${utcTime(scheduled)}); the times are used.`,
          );
      } else if (estimated !== null && delay > DELAY_SLACK_MINUTES) {
        if (estimated === scheduled) {
          doubts.push(
            `The ${side} estimate equals the schedule (${utcTime(scheduled)}) while the delay field says ${minutes(delay)} late; no expected ${side} time is given.`,
          );
        } else if (Math.abs(Math.round((estimated - scheduled) / MINUTE) - delay) > DELAY_SLACK_MINUTES) {
          doubts.push(
            `The ${side} delay field says ${minutes(delay)} late while the estimate (${utcTime(estimated)}) is ${against(estimated, scheduled)} the schedule (${utcTime(scheduled)}); the estimate is used.`,
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
  toFlight(row: Json, observedAt: number): ProviderFlight | null {
    if (!isObject(row.departure) || !isObject(row.arrival)) return null;
    const status = str(row.flight_status);
    const said = status?.toLowerCase() ?? null;
    const cancelled = said === 'cancelled';
    const diverted = said === 'diverted';
    const dep = this.end(row.departure, !cancelled, 'departure');
    const arr = this.end(row.arrival, !cancelled && !diverted, 'arrival');
    const departure = dep.end;
    const arrival = arr.end;
    const doubts = [...dep.doubts, ...arr.doubts];
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
          doubts.push(
            `The status says diverted while the live position at ${utcTime(seen)} shows the aircraft still in the air, and no diversion airport or landing is given; the diversion has not ended.`,
          );
        break;
      }
      case 'landed':
        phase = 'landed';
        if (landedAt === null) doubts.push('The status says landed but no arrival time is given, so the landing is not known.');
        break;
      case 'active':
        if (landedAt !== null) {
          phase = 'landed';
          doubts.push(`The status says active while an arrival at ${utcTime(landedAt)} is given.`);
        } else if (left !== null) {
          phase = 'departed';
          const live = isObject(row.live) ? row.live : null;
          const seen = parseInstant(live?.updated);
          if (live?.is_ground === true && seen !== null && seen > left)
            doubts.push(`The status says active while the live position at ${utcTime(seen)} shows the aircraft on the ground, and no arrival time is given; the landing is not known.`);
        } else {
          phase = 'unknown';
          doubts.push('The status says active but no departure time is given, so the flight is not known to have left.');
        }
        break;
      case 'scheduled':
        phase = byTimes === 'unknown' ? 'scheduled' : byTimes;
        if (left !== null || landedAt !== null)
          doubts.push(`The status says scheduled while ${left !== null ? `a departure at ${utcTime(left)}` : `an arrival at ${utcTime(landedAt!)}`} is given; the times are used.`);
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
      doubts.push(
        `The departure is scheduled at ${hhmmOn(departure.scheduled)}, not before the scheduled arrival at ${hhmmOn(arrival.scheduled)}; the schedule contradicts itself.`,
      );
    const flight = isObject(row.flight) ? row.flight : {};
    const airline = isObject(row.airline) ? row.airline : {};
    const shared = isObject(flight.codeshared) ? flight.codeshared : null;
    const aircraft = isObject(row.aircraft) ? row.aircraft : null;
    const carrier = airlineOf(airline.name, airline.iata, airline.icao);
    const settledByTimes = phase === 'landed' && landedAt !== null;
    return {
      provider: this.name,
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
      settled: doubts.length === 0 && (cancelled || diverted || settledByTimes),
      ...(doubts.length > 0 ? { doubts } : {}),
    };
  }

  /**
   * The operating flight a codeshare row copies, under its own number: the row's times are the
   * operator's (aviationstack repeats them for every marketing number), its carrier the operator.
   */
  private asOperating(flight: ProviderFlight): ProviderFlight {
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

  lookupFlight(lookup: FlightLookup, options?: CallOptions): Promise<Answer<ProviderFlight[]>> {
    return measured<ProviderFlight[]>(this.upstream, this.clock, 'flight', options, async (window) => {
      const designator = normaliseDesignator(lookup.designator);
      const date = lookup.flightDate;
      // A designator names a number: "HMB" (an airline code alone, as some rows carry) is none.
      if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || !/^[A-Z0-9]{3,10}$/.test(designator) || !/\d/.test(designator)) return { outcome: 'miss' };
      const byIcao = /^[A-Z]{3}\d/.test(designator);
      const now = this.clock.now();
      const rowOf = new Map<ProviderFlight, Json>();
      /** Marketing numbers seen on codeshare rows, by the operating flight's departure. */
      const marketing = new Map<string, Set<string>>();
      const departureKey = (f: ProviderFlight) => `${f.departure.scheduled}|${f.departure.airport.iata ?? f.departure.airport.icao}`;
      const answer = await legsOnUtcDate(lookup, {
        originZone: (lookup.origin && this.airports.find(lookup.origin)?.timezone) || null,
        // The rows under the number first, then the codeshare rows naming it as the operating flight.
        file: async (day) => {
          const file = await this.day(designator, byIcao, day, window);
          if (file.outcome !== 'rows') return file;
          return { outcome: 'rows', rows: [...file.rows.filter((r) => this.isUnder(r, designator)), ...file.rows.filter((r) => this.isOperatedAs(r, designator))] };
        },
        toFlight: (row) => {
          const flight = this.toFlight(row, now);
          if (!flight) return null;
          if (this.isUnder(row, designator)) {
            rowOf.set(flight, row);
            return flight;
          }
          // A codeshare row of the flight asked: the operating flight, as the row copies it.
          const operated = this.asOperating(flight);
          const key = departureKey(operated);
          if (!marketing.has(key)) marketing.set(key, new Set());
          if (flight.flightIata) marketing.get(key)!.add(flight.flightIata);
          return operated;
        },
        offsetOf: (row, flight) => {
          const zone = isObject(row.departure) ? this.zone(row.departure, code(row.departure.iata)) : null;
          if (zone === null || flight?.departure.scheduled == null) return null;
          return typeof zone === 'number' ? zone : offsetMinutes(zone, flight.departure.scheduled);
        },
      });
      if (answer.outcome !== 'hit' && answer.outcome !== 'incomplete') return answer;
      const legs: ProviderFlight[] = [];
      for (const leg of answer.value) {
        if (!leg.operating) {
          const seen = marketing.get(departureKey(leg));
          legs.push(seen ? { ...leg, codeshares: [...new Set([...leg.codeshares, ...seen])].filter((c) => c !== leg.flightIata) } : leg);
        } else legs.push(await this.operatorOf(leg, rowOf.get(leg), now, window));
      }
      return { outcome: legs.every((f) => f.settled) ? 'hit' : 'incomplete', value: legs };
    });
  }

  /** The row is filed under the number asked (its IATA or ICAO designator). */
  private isUnder(row: Json, designator: string): boolean {
    const flight = isObject(row.flight) ? row.flight : {};
    return code(flight.iata) === designator || code(flight.icao) === designator;
  }

  /** The row is a codeshare of the number asked: `codeshared` names it as the operating flight. */
  private isOperatedAs(row: Json, designator: string): boolean {
    const shared = isObject(row.flight) && isObject(row.flight.codeshared) ? row.flight.codeshared : null;
    return !this.isUnder(row, designator) && shared !== null && (code(shared.flight_iata) === designator || code(shared.flight_icao) === designator);
  }

  /**
   * A codeshare leg with the operating flight's status and times: one more request, for the
   * operating number on the row's local date, and its row that leaves from the same airport at the
   * same scheduled time. Without one (not found, or the request failed), the codeshare row's own
   * times stand: aviationstack copies the operator's times into every marketing row.
   */
  private async operatorOf(leg: ProviderFlight, row: Json | undefined, now: number, window: CallWindow): Promise<ProviderFlight> {
    const number = leg.operating!.flightIata ?? leg.operating!.flightIcao;
    const localDate = str(row?.flight_date);
    if (!number || !localDate || !/^\d{4}-\d{2}-\d{2}$/.test(localDate)) return leg;
    const file = await this.day(number, /^[A-Z]{3}\d/.test(number), localDate, window);
    if (file.outcome !== 'rows') return leg;
    for (const candidate of file.rows) {
      if (!this.isUnder(candidate, number) || (isObject(candidate.flight) && isObject(candidate.flight.codeshared))) continue;
      const operated = this.toFlight(candidate, now);
      if (!operated || operated.departure.scheduled !== leg.departure.scheduled || operated.departure.airport.iata !== leg.departure.airport.iata) continue;
      return {
        ...operated,
        flightIata: leg.flightIata,
        flightIcao: leg.flightIcao,
        airline: leg.airline,
        operating: { ...leg.operating!, airline: { ...operated.airline, name: operated.airline.name ?? leg.operating!.airline.name } },
        codeshares: [],
        operation: leg.operation,
      };
    }
    return leg;
  }

  /** The flights of one local date under the number. */
  private async day(designator: string, byIcao: boolean, date: string, window: CallWindow): Promise<LocalFile<Json>> {
    const sent = await this.upstream.get('/flights', { [byIcao ? 'flight_icao' : 'flight_iata']: designator, flight_date: date, limit: 100 }, window);
    if (!sent.ok) return failed(sent);
    const body = sent.body;
    if (!isObject(body)) return malformed(this.name, 'a flight list');
    const error = errorOf(body);
    if (error) return { outcome: 'error', error };
    if (!Array.isArray(body.data)) return malformed(this.name, 'a flight list');
    return { outcome: 'rows', rows: body.data.filter(isObject) };
  }

  readBoard(read: BoardRead, options?: CallOptions): Promise<Answer<BoardRow[]>> {
    return measured<BoardRow[]>(this.upstream, this.clock, 'board', options, async (window) => {
      const airport = this.airports.find(read.airport);
      if (!airport || !(read.to > read.from)) return { outcome: 'miss' };
      const departures = read.board === 'departures';
      const sent = await this.upstream.get('/timetable', { iataCode: airport.iata, type: departures ? 'departure' : 'arrival' }, window);
      if (!sent.ok) return failed(sent);
      if (!isObject(sent.body)) return malformed(this.name, 'a timetable');
      const error = errorOf(sent.body);
      if (error) return { outcome: 'error', error };
      if (!Array.isArray(sent.body.data)) return malformed(this.name, 'a timetable');
      const here: AirportRef = { iata: airport.iata, icao: airport.icao };
      const rows: { row: BoardRow; operatedBy: string | null }[] = [];
      for (const item of sent.body.data) {
        if (!isObject(item)) continue;
        const row = this.timetableRow(item, departures, here, airport.timezone);
        if (row && row.row.scheduledAt >= read.from && row.row.scheduledAt < read.to) rows.push(row);
      }
      // A codeshare row names its operating flight: fold it into that flight's row.
      const operating = new Map(rows.filter((r) => !r.operatedBy).map((r) => [`${r.row.flightIata}|${r.row.scheduledAt}`, r.row]));
      const out: BoardRow[] = [];
      for (const { row, operatedBy } of rows) {
        const host = operatedBy ? operating.get(`${operatedBy}|${row.scheduledAt}`) : undefined;
        if (host && row.flightIata) {
          if (!host.codeshares.includes(row.flightIata)) host.codeshares.push(row.flightIata);
        } else out.push(row);
      }
      return { outcome: 'hit', value: out.sort((a, b) => a.scheduledAt - b.scheduledAt) };
    });
  }

  /** A /timetable item (camelCase, local times without any offset, delays as strings). */
  private timetableRow(item: Json, departures: boolean, here: AirportRef, zone: string): { row: BoardRow; operatedBy: string | null } | null {
    const at = isObject(departures ? item.departure : item.arrival) ? ((departures ? item.departure : item.arrival) as Json) : null;
    const other = isObject(departures ? item.arrival : item.departure) ? ((departures ? item.arrival : item.departure) as Json) : {};
    const flight = isObject(item.flight) ? item.flight : {};
    const airline = isObject(item.airline) ? item.airline : {};
    const scheduledAt = localTime(at?.scheduledTime, zone);
    const iata = code(flight.iataNumber);
    if (!at || scheduledAt === null || !iata) return null;
    const status = str(item.status) ?? 'unknown';
    const phase = phaseOf(status);
    const happened = departures ? hasLeft(phase) : phase === 'landed';
    const shared = isObject(item.codeshared) && isObject(item.codeshared.flight) ? item.codeshared.flight : null;
    const otherAirport: AirportRef = { iata: code(other.iataCode), icao: code(other.icaoCode) };
    const row: BoardRow = {
      flightNumber: `${iata.slice(0, 2)} ${iata.slice(2)}`,
      flightIata: iata,
      flightIcao: code(flight.icaoNumber),
      callsign: null,
      direction: departures ? 'departure' : 'arrival',
      airline: airlineOf(airline.name, airline.iataCode, airline.icaoCode),
      codeshares: [],
      operation: 'passenger',
      aircraftType: null,
      registration: null,
      origin: departures ? here : otherAirport,
      destination: departures ? otherAirport : here,
      divertedTo: null,
      scheduledAt,
      estimatedAt: localTime(at.estimatedTime, zone),
      actualAt: happened ? (localTime(at.actualTime, zone) ?? localTime(at.actualRunway, zone)) : null,
      status,
      cancelled: phase === 'cancelled',
      diverted: phase === 'diverted',
      runway: null,
      departed: hasLeft(phase),
    };
    return { row, operatedBy: shared ? code(shared.iataNumber) : null };
  }

  lookupAircraft(registration: string, options?: CallOptions): Promise<Answer<AircraftRecord>> {
    return measured<AircraftRecord>(this.upstream, this.clock, 'aircraft', options, async (window) => {
      const reg = registration.trim().toUpperCase();
      if (!/^[A-Z0-9-]{2,10}$/.test(reg)) return { outcome: 'miss' };
      const sent = await this.upstream.get('/airplanes', { registration_number: reg, limit: 1 }, window);
      if (!sent.ok) return failed(sent);
      if (!isObject(sent.body)) return malformed(this.name, 'an airplane list');
      const error = errorOf(sent.body);
      if (error) return { outcome: 'error', error };
      if (!Array.isArray(sent.body.data)) return malformed(this.name, 'an airplane list');
      const plane = sent.body.data.find((p): p is Json => isObject(p) && code(p.registration_number) === reg);
      if (!plane) return { outcome: 'miss' };
      return {
        outcome: 'hit',
        value: {
          registration: reg,
          icao24: code(plane.icao_code_hex),
          typeIcao: null,
          typeIata: code(plane.iata_type_code),
          label: str(plane.model_name),
          airline: null,
          operation: 'passenger',
          seats: null,
        },
      };
    });
  }
}
