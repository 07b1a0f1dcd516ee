// FlightAware AeroAPI v4 behind the provider interface. Every mapping decision is in
// docs/providers.md, "FlightAware AeroAPI"; the schema is the provider's OpenAPI 4.28.
//
// - Flights: GET /flights/{ident}?ident_type=designator&start&end for the last 10 days (AeroAPI's
//   live window), GET /history/flights/{ident} before. start/end are compared with the scheduled
//   gate departure in UTC, so the UTC flight date is asked as it is.
// - Boards: the departed and the scheduled flights of the airport (two lists per board), merged.
// - Aircraft: GET /history/aircraft/{registration}/last_flight.
// Times are UTC (`…Z`); delays are seconds; `cancelled` means "no longer tracked"; a diverted flight's
// continuation is a second leg with the same fa_flight_id.
import type { Clock } from '../clock.js';
import type { ReferenceAirports } from '../airports/index.js';
import { checkCall, failed, isObject, malformed, measured, normaliseDesignator, statusOf, str } from './measured.js';
import { ProviderStats } from './stats.js';
import type {
  AircraftRecord,
  AirportRef,
  Answer,
  BoardRead,
  BoardRow,
  CallOptions,
  CheckResult,
  FlightLookup,
  FlightProvider,
  ProviderFlight,
  ProviderStatus,
} from './types.js';
import { matchesAirport } from './local-dates.js';
import { Upstream, type CallWindow } from './upstream.js';
import { addDays, parseInstant, utcDate } from './zones.js';

export const AEROAPI_URL = 'https://aeroapi.flightaware.com/aeroapi';
/** The Personal tier's limit: 10 result sets a minute. */
export const AEROAPI_REQUESTS_PER_MINUTE = 10;
/** AeroAPI's /flights covers the last 10 days; older flights are in /history. */
const LIVE_DAYS = 10;
/** Pages followed per list (each page is a billed result set of up to 15 flights). */
const MAX_PAGES = 5;

export interface AeroApiSettings {
  key: string;
  url: string;
  requestsPerMinute: number;
}

type Json = Record<string, unknown>;

const t = (row: Json, field: string): number | null => parseInstant(row[field]);

function airportOf(value: unknown): AirportRef {
  if (!isObject(value)) return { iata: null, icao: null };
  return { iata: str(value.code_iata)?.toUpperCase() ?? null, icao: str(value.code_icao)?.toUpperCase() ?? null };
}

/** Left the gate (or took off, when only the runway time is known). */
const departedOf = (row: Json) => t(row, 'actual_out') ?? t(row, 'actual_off');
const arrivedOf = (row: Json) => t(row, 'actual_in') ?? t(row, 'actual_on');

/**
 * `cancelled` is AeroAPI's "no longer tracked": an airline cancellation only when the flight never
 * left. A flight that left and then lost its tracking is not cancelled.
 */
const cancelledOf = (row: Json) => row.cancelled === true && departedOf(row) === null;

/**
 * One flight from a leg and, for a diversion, its continuation: the second leg under the same
 * fa_flight_id, which leaves from the diversion airport for the booked destination. Without it the
 * leg's own destination is kept and the diversion airport is not named.
 */
export function toFlight(row: Json, continuation: Json | null, observedAt: number): ProviderFlight {
  const cancelled = cancelledOf(row);
  const diverted = row.diverted === true;
  const departed = departedOf(row);
  const arrived = arrivedOf(row);
  const booked = diverted && continuation ? airportOf(continuation.destination) : airportOf(row.destination);
  const phase = cancelled ? 'cancelled' : diverted ? 'diverted' : arrived !== null ? 'landed' : departed !== null ? 'departed' : 'scheduled';
  const codeshares = Array.isArray(row.codeshares_iata) ? row.codeshares_iata.filter((c): c is string => typeof c === 'string').map(normaliseDesignator) : [];
  const registration = str(row.registration)?.toUpperCase() ?? null;
  const type = str(row.aircraft_type)?.toUpperCase() ?? null;
  return {
    provider: 'aeroapi',
    flightIata: str(row.ident_iata) ? normaliseDesignator(str(row.ident_iata)!) : null,
    flightIcao: str(row.ident_icao) ? normaliseDesignator(str(row.ident_icao)!) : null,
    callsign: str(row.atc_ident)?.toUpperCase() ?? str(row.ident_icao)?.toUpperCase() ?? null,
    airline: { name: null, iata: str(row.operator_iata)?.toUpperCase() ?? null, icao: str(row.operator_icao)?.toUpperCase() ?? null },
    operating: null,
    codeshares,
    operation: row.type === 'General_Aviation' ? 'private' : 'passenger',
    departure: {
      airport: airportOf(row.origin),
      scheduled: t(row, 'scheduled_out') ?? t(row, 'scheduled_off'),
      estimated: cancelled ? null : (t(row, 'estimated_out') ?? t(row, 'estimated_off')),
      actual: cancelled ? null : departed,
      runway: str(row.actual_runway_off),
      runwayAt: cancelled ? null : t(row, 'actual_off'),
    },
    arrival: {
      airport: booked,
      scheduled: t(row, 'scheduled_in') ?? t(row, 'scheduled_on'),
      estimated: cancelled ? null : (t(row, 'estimated_in') ?? t(row, 'estimated_on')),
      actual: cancelled ? null : arrived,
      runway: str(row.actual_runway_on),
      runwayAt: cancelled ? null : t(row, 'actual_on'),
    },
    divertedTo: diverted && continuation ? airportOf(continuation.origin) : null,
    phase,
    cancelled,
    diverted,
    statusRaw: str(row.status),
    aircraft: registration || type ? { registration, icao24: null, typeIcao: type, typeIata: null, label: null } : null,
    observedAt,
    // Cancelled before it left, or on blocks (at the diversion airport, for a diversion).
    settled: cancelled || arrived !== null,
  };
}

export class AeroApiProvider implements FlightProvider {
  readonly name = 'aeroapi';
  readonly stats = new ProviderStats('aeroapi');
  readonly upstream: Upstream;

  constructor(
    private readonly settings: AeroApiSettings,
    private readonly clock: Clock,
    private readonly airports: ReferenceAirports,
  ) {
    this.upstream = new Upstream({
      provider: this.name,
      baseUrl: settings.url.replace(/\/+$/, ''),
      requestsPerMinute: settings.requestsPerMinute,
      stats: this.stats,
      headers: { 'x-apikey': settings.key },
      secrets: [settings.key],
    });
  }

  status(): ProviderStatus {
    return statusOf(this.name, this.settings.url, this.settings.requestsPerMinute, this.upstream, this.stats);
  }

  /** The account's usage: a call AeroAPI does not bill. */
  check(options?: CallOptions): Promise<CheckResult> {
    return checkCall(this.upstream, '/account/usage', {}, options);
  }

  lookupFlight(lookup: FlightLookup, options?: CallOptions): Promise<Answer<ProviderFlight[]>> {
    return measured<ProviderFlight[]>(this.stats, this.clock, 'flight', options, async (window) => {
      const ident = normaliseDesignator(lookup.designator);
      const date = lookup.flightDate;
      if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || !/^[A-Z0-9]{3,10}$/.test(ident)) return { outcome: 'miss' };
      const start = Date.parse(`${date}T00:00:00Z`);
      const live = start >= this.clock.now() - LIVE_DAYS * 86_400_000;
      // The continuation of a diversion may be scheduled the next day: ask two days, keep the date's legs.
      const list = await this.list(
        `${live ? '' : '/history'}/flights/${encodeURIComponent(ident)}`,
        { ident_type: 'designator', start: `${date}T00:00:00Z`, end: `${addDays(date, 2)}T00:00:00Z` },
        'flights',
        window,
      );
      if (list.outcome === 'error') return list;
      const now = this.clock.now();
      const byId = new Map<string, Json[]>();
      for (const row of list.rows) {
        const id = str(row.fa_flight_id);
        if (id) byId.set(id, [...(byId.get(id) ?? []), row]);
      }
      const flights: ProviderFlight[] = [];
      for (const row of list.rows) {
        const id = str(row.fa_flight_id);
        const siblings = id ? (byId.get(id) ?? []) : [];
        // A diversion's continuation (same id, not itself diverted) is part of the diverted leg.
        if (row.diverted !== true && siblings.some((s) => s !== row && s.diverted === true)) continue;
        const continuation = row.diverted === true ? (siblings.find((s) => s !== row && s.diverted !== true) ?? null) : null;
        const flight = toFlight(row, continuation, now);
        if (flight.departure.scheduled === null || utcDate(flight.departure.scheduled) !== date) continue;
        if (!matchesAirport(flight.departure.airport, lookup.origin) || !matchesAirport(flight.arrival.airport, lookup.destination)) continue;
        flights.push(flight);
      }
      if (flights.length === 0) return { outcome: 'miss' };
      flights.sort((a, b) => a.departure.scheduled! - b.departure.scheduled!);
      return { outcome: flights.every((f) => f.settled) ? 'hit' : 'incomplete', value: flights };
    });
  }

  /** Every page of one list (`flights`, `departures`…), following `links.next` up to MAX_PAGES. */
  private async list(
    path: string,
    query: Record<string, string>,
    field: string,
    window: CallWindow,
  ): Promise<{ outcome: 'rows'; rows: Json[] } | Extract<Answer<never>, { outcome: 'error' }>> {
    const rows: Json[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const sent = await this.upstream.get(path, { ...query, cursor }, window);
      if (!sent.ok) return failed(sent);
      const body = sent.body;
      if (!isObject(body) || !Array.isArray(body[field])) return malformed(this.name, `a ${field} list`);
      rows.push(...(body[field] as unknown[]).filter(isObject));
      const next = isObject(body.links) ? str(body.links.next) : null;
      const nextCursor = next ? new URL(next, 'http://x').searchParams.get('cursor') : null;
      if (!nextCursor) break;
      cursor = nextCursor;
    }
    return { outcome: 'rows', rows };
  }

  readBoard(read: BoardRead, options?: CallOptions): Promise<Answer<BoardRow[]>> {
    return measured<BoardRow[]>(this.stats, this.clock, 'board', options, async (window) => {
      const airport = this.airports.find(read.airport);
      if (!airport || !(read.to > read.from)) return { outcome: 'miss' };
      const here = { iata: airport.iata, icao: airport.icao };
      const departures = read.board === 'departures';
      const query = { start: new Date(read.from).toISOString().slice(0, 19) + 'Z', end: new Date(read.to).toISOString().slice(0, 19) + 'Z', type: 'Airline' };
      const rows: BoardRow[] = [];
      const seen = new Set<string>();
      // What already left (or arrived), then what is still to come.
      for (const list of departures ? ['departures', 'scheduled_departures'] : ['arrivals', 'scheduled_arrivals']) {
        const answer = await this.list(`/airports/${airport.icao}/flights/${list}`, query, list, window);
        if (answer.outcome === 'error') return answer;
        for (const item of answer.rows) {
          const row = boardRow(item, departures, here, this.clock.now());
          const id = str(item.fa_flight_id) ?? `${row?.flightNumber}|${row?.scheduledAt}`;
          if (!row || seen.has(id) || row.scheduledAt < read.from || row.scheduledAt >= read.to) continue;
          seen.add(id);
          rows.push(row);
        }
      }
      return { outcome: 'hit', value: rows.sort((a, b) => a.scheduledAt - b.scheduledAt) };
    });
  }

  lookupAircraft(registration: string, options?: CallOptions): Promise<Answer<AircraftRecord>> {
    return measured<AircraftRecord>(this.stats, this.clock, 'aircraft', options, async (window) => {
      const reg = registration.trim().toUpperCase();
      if (!/^[A-Z0-9-]{2,10}$/.test(reg)) return { outcome: 'miss' };
      // FlightAware writes registrations without the hyphen (PHEXD).
      const list = await this.list(`/history/aircraft/${encodeURIComponent(reg.replace(/-/g, ''))}/last_flight`, {}, 'flights', window);
      if (list.outcome === 'error') return list;
      const last = list.rows[0];
      if (!last) return { outcome: 'miss' };
      const operator = str(last.operator_icao)?.toUpperCase() ?? null;
      return {
        outcome: 'hit',
        value: {
          registration: reg,
          icao24: null,
          typeIcao: str(last.aircraft_type)?.toUpperCase() ?? null,
          typeIata: null,
          label: null,
          airline: operator || str(last.operator_iata) ? { name: null, iata: str(last.operator_iata)?.toUpperCase() ?? null, icao: operator } : null,
          operation: last.type === 'General_Aviation' ? 'private' : 'passenger',
          seats: null,
        },
      };
    });
  }
}

function boardRow(item: Json, departures: boolean, here: AirportRef, now: number): BoardRow | null {
  const flight = toFlight(item, null, now);
  const end = departures ? flight.departure : flight.arrival;
  if (end.scheduled === null) return null;
  const operator = str(item.operator_iata)?.toUpperCase();
  const number = str(item.flight_number);
  const flightNumber = operator && number ? `${operator} ${number}` : (str(item.ident) ?? null);
  if (!flightNumber) return null;
  return {
    flightNumber,
    flightIata: flight.flightIata,
    flightIcao: flight.flightIcao,
    callsign: flight.callsign,
    direction: departures ? 'departure' : 'arrival',
    airline: flight.airline,
    codeshares: flight.codeshares,
    operation: flight.operation,
    aircraftType: flight.aircraft?.typeIcao ?? null,
    registration: flight.aircraft?.registration ?? null,
    origin: departures ? here : flight.departure.airport,
    destination: departures ? flight.arrival.airport : here,
    // A board row has no continuation leg to name the diversion airport.
    divertedTo: null,
    scheduledAt: end.scheduled,
    estimatedAt: end.estimated,
    actualAt: end.actual,
    status: flight.statusRaw ?? '',
    cancelled: flight.cancelled,
    diverted: flight.diverted,
    runway: end.runway,
  };
}
