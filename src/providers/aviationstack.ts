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
  FlightEnd,
  FlightLookup,
  FlightPhase,
  FlightProvider,
  ProviderError,
  ProviderFlight,
  ProviderStatus,
} from './types.js';
import { Upstream, type CallWindow } from './upstream.js';
import { legsOnUtcDate, type LocalFile } from './local-dates.js';
import { isZone, offsetMinutes, zonedToUtc } from './zones.js';

export const AVIATIONSTACK_URL = 'https://api.aviationstack.com/v1';
/** aviationstack documents no per-minute limit for /flights; its plans are monthly quotas. */
export const AVIATIONSTACK_REQUESTS_PER_MINUTE = 10;

export interface AviationstackSettings {
  key: string;
  url: string;
  requestsPerMinute: number;
}

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

/** The wall-clock part of `2020-02-04T20:25:00+00:00` (the label is not the zone) in `zone`. */
export function localTime(value: unknown, zone: string | null): number | null {
  const text = str(value);
  if (!text || !zone) return null;
  const wall = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?)/.exec(text)?.[1];
  return wall ? zonedToUtc(wall, zone) : null;
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

export class AviationstackProvider implements FlightProvider {
  readonly name = 'aviationstack';
  readonly stats = new ProviderStats('aviationstack');
  readonly upstream: Upstream;

  constructor(
    private readonly settings: AviationstackSettings,
    private readonly clock: Clock,
    private readonly airports: ReferenceAirports,
  ) {
    this.upstream = new Upstream({
      provider: this.name,
      baseUrl: settings.url.replace(/\/+$/, ''),
      requestsPerMinute: settings.requestsPerMinute,
      stats: this.stats,
      query: { access_key: settings.key },
      secrets: [settings.key],
    });
  }

  status(): ProviderStatus {
    return statusOf(this.name, this.settings.url, this.settings.requestsPerMinute, this.upstream, this.stats);
  }

  /** One flight (`limit=1`): one call of the monthly quota. */
  check(options?: CallOptions): Promise<CheckResult> {
    return checkCall(this.upstream, '/flights', { limit: '1' }, options);
  }

  /** The zone of an end: aviationstack's own, else the reference airports'. */
  private zone(end: Json | undefined, iata: string | null): string | null {
    const own = str(end?.timezone);
    if (own && isZone(own)) return own;
    return iata ? (this.airports.find(iata)?.timezone ?? null) : null;
  }

  private end(end: Json | undefined, happened: boolean): FlightEnd {
    const airport: AirportRef = { iata: code(end?.iata), icao: code(end?.icao) };
    const zone = this.zone(end, airport.iata);
    const at = (field: string) => localTime(end?.[field], zone);
    return {
      airport,
      scheduled: at('scheduled'),
      estimated: at('estimated'),
      actual: happened ? (at('actual') ?? at('actual_runway')) : null,
      runway: null,
      runwayAt: happened ? at('actual_runway') : null,
    };
  }

  toFlight(row: Json, observedAt: number): ProviderFlight | null {
    if (!isObject(row.departure) || !isObject(row.arrival)) return null;
    const status = str(row.flight_status);
    const phase = phaseOf(status);
    const cancelled = phase === 'cancelled';
    const diverted = phase === 'diverted';
    const departure = this.end(row.departure, !cancelled);
    const arrival = this.end(row.arrival, !cancelled && !diverted);
    const flight = isObject(row.flight) ? row.flight : {};
    const airline = isObject(row.airline) ? row.airline : {};
    const shared = isObject(flight.codeshared) ? flight.codeshared : null;
    const aircraft = isObject(row.aircraft) ? row.aircraft : null;
    const name = str(airline.name);
    return {
      provider: this.name,
      flightIata: code(flight.iata),
      flightIcao: code(flight.icao),
      callsign: null,
      airline: { name: name === 'empty' ? null : name, iata: code(airline.iata), icao: code(airline.icao) },
      // A codeshare row is the marketing flight; `codeshared` names the one that operates.
      operating: shared
        ? {
            flightIata: code(shared.flight_iata),
            flightIcao: code(shared.flight_icao),
            airline: { name: str(shared.airline_name), iata: code(shared.airline_iata), icao: code(shared.airline_icao) },
          }
        : null,
      codeshares: [],
      operation: 'passenger',
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
      settled: cancelled || diverted || (phase === 'landed' && arrival.actual !== null),
    };
  }

  lookupFlight(lookup: FlightLookup, options?: CallOptions): Promise<Answer<ProviderFlight[]>> {
    return measured<ProviderFlight[]>(this.stats, this.clock, 'flight', options, async (window) => {
      const designator = normaliseDesignator(lookup.designator);
      const date = lookup.flightDate;
      if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || !/^[A-Z0-9]{3,10}$/.test(designator)) return { outcome: 'miss' };
      const byIcao = /^[A-Z]{3}\d/.test(designator);
      const now = this.clock.now();
      return legsOnUtcDate(lookup, {
        originZone: (lookup.origin && this.airports.find(lookup.origin)?.timezone) || null,
        file: (day) => this.day(designator, byIcao, day, window),
        toFlight: (row) => this.toFlight(row, now),
        offsetOf: (row, flight) => {
          const zone = isObject(row.departure) ? this.zone(row.departure, code(row.departure.iata)) : null;
          return zone && flight?.departure.scheduled != null ? offsetMinutes(zone, flight.departure.scheduled) : null;
        },
      });
    });
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
    return measured<BoardRow[]>(this.stats, this.clock, 'board', options, async (window) => {
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
    const happened = departures ? ['departed', 'landed', 'diverted'].includes(phase) : phase === 'landed';
    const shared = isObject(item.codeshared) && isObject(item.codeshared.flight) ? item.codeshared.flight : null;
    const otherAirport: AirportRef = { iata: code(other.iataCode), icao: code(other.icaoCode) };
    const name = str(airline.name);
    const row: BoardRow = {
      flightNumber: `${iata.slice(0, 2)} ${iata.slice(2)}`,
      flightIata: iata,
      flightIcao: code(flight.icaoNumber),
      callsign: null,
      direction: departures ? 'departure' : 'arrival',
      airline: { name: name === 'empty' ? null : name, iata: code(airline.iataCode), icao: code(airline.icaoCode) },
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
    };
    return { row, operatedBy: shared ? code(shared.iataNumber) : null };
  }

  lookupAircraft(registration: string, options?: CallOptions): Promise<Answer<AircraftRecord>> {
    return measured<AircraftRecord>(this.stats, this.clock, 'aircraft', options, async (window) => {
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
