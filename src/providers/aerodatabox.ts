// AeroDataBox (through RapidAPI, or any host serving its API) behind the provider interface. Every
// mapping decision is in docs/providers.md, "AeroDataBox"; the schema is the provider's OpenAPI 1.14.
//
// - Flights: GET /flights/number/{number}/{dateLocal}?dateLocalRole=Departure. The date is the
//   departure airport's local date, ours is the UTC date (spec 4.1): local-dates.ts chooses the
//   files to ask and the legs to keep.
// - Boards: GET /flights/airports/iata/{code}/{fromLocal}/{toLocal} in windows of at most 11 hours
//   (the API allows 12 local hours; 11 stays inside it across a DST change), merged; codeshare rows
//   folded into the operating flight's row.
// - Aircraft: GET /aircrafts/reg/{registration}.
// 204 No Content is AeroDataBox's "nothing found".
import type { Clock } from '../clock.js';
import type { ReferenceAirports } from '../airports/index.js';
import { checkCall, failed, isObject, malformed, measured, normaliseDesignator, statusOf, str } from './measured.js';
import { ProviderStats } from './stats.js';
import type {
  AircraftRecord,
  AirportRef,
  CheckResult,
  ProviderStatus,
  Answer,
  BoardRead,
  BoardRow,
  CallOptions,
  FlightEnd,
  FlightLookup,
  FlightPhase,
  FlightProvider,
  ProviderFlight,
} from './types.js';
import { Upstream, type CallWindow } from './upstream.js';
import { legsOnUtcDate, type LocalFile } from './local-dates.js';
import { localMinute, parseInstant } from './zones.js';

export const AERODATABOX_URL = 'https://aerodatabox.p.rapidapi.com';
/** RapidAPI's entry (Basic) plan allows about one request a second; its monthly quota is the real bound. */
export const AERODATABOX_REQUESTS_PER_MINUTE = 30;
const BOARD_PIECE_MS = 11 * 3_600_000;

export interface AeroDataBoxSettings {
  key: string;
  url: string;
  requestsPerMinute: number;
}

type Json = Record<string, unknown>;

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

const time = (end: Json | undefined, field: string): number | null => {
  const value = end?.[field];
  return isObject(value) ? parseInstant(value.utc) : null;
};

function airportOf(value: unknown): AirportRef {
  if (!isObject(value)) return { iata: null, icao: null };
  return { iata: str(value.iata)?.toUpperCase() ?? null, icao: str(value.icao)?.toUpperCase() ?? null };
}

/**
 * One end of a flight. `revisedTime` is AeroDataBox's block time, estimated until the movement
 * happened and actual after; `runwayTime` (take-off or landing) stands in for an actual block time
 * the provider lacks. `predictedTime` is its own model's estimate, used only without a revised time.
 */
function endOf(end: Json | undefined, happened: boolean): FlightEnd {
  const revised = time(end, 'revisedTime');
  const runwayTime = time(end, 'runwayTime');
  const predicted = time(end, 'predictedTime');
  return {
    airport: airportOf(end?.airport),
    scheduled: time(end, 'scheduledTime'),
    estimated: revised ?? predicted,
    actual: happened ? (revised ?? runwayTime) : null,
    runway: str(end?.runway),
    runwayAt: happened ? runwayTime : null,
  };
}

const operationOf = (row: Json): ProviderFlight['operation'] => (row.isCargo === true ? 'cargo' : 'passenger');

function airlineOf(value: unknown): ProviderFlight['airline'] {
  if (!isObject(value)) return { name: null, iata: null, icao: null };
  return { name: str(value.name), iata: str(value.iata)?.toUpperCase() ?? null, icao: str(value.icao)?.toUpperCase() ?? null };
}

/** `KL 1395` is IATA; a three-letter prefix (`KLM 1395`) is ICAO. */
function designators(number: string | null): { iata: string | null; icao: string | null } {
  if (!number) return { iata: null, icao: null };
  const compact = normaliseDesignator(number);
  return /^[A-Z]{3}\d/.test(compact) ? { iata: null, icao: compact } : { iata: compact, icao: null };
}

export function toFlight(row: Json, observedAt: number): ProviderFlight | null {
  if (!isObject(row.departure) || !isObject(row.arrival)) return null;
  const status = str(row.status) ?? 'Unknown';
  const departed = DEPARTED.has(status);
  const departure = endOf(row.departure, departed);
  const arrival = endOf(row.arrival, status === 'Arrived');
  const cancelled = status === 'Canceled';
  const diverted = status === 'Diverted';
  const number = designators(str(row.number));
  const aircraft = isObject(row.aircraft) ? row.aircraft : null;
  return {
    provider: 'aerodatabox',
    flightIata: number.iata,
    flightIcao: number.icao,
    callsign: str(row.callSign)?.toUpperCase() ?? null,
    airline: airlineOf(row.airline),
    // A codeshare row does not name the operating flight; its callsign does name the operator.
    operating: null,
    codeshares: [],
    operation: operationOf(row),
    departure,
    arrival,
    divertedTo: null,
    phase: phaseOf(status),
    cancelled,
    diverted,
    statusRaw: str(row.status),
    aircraft: aircraft
      ? { registration: str(aircraft.reg)?.toUpperCase() ?? null, icao24: str(aircraft.modeS)?.toUpperCase() ?? null, typeIcao: null, typeIata: null, label: str(aircraft.model) }
      : null,
    observedAt,
    // Arrived with a time, cancelled, or diverted (AeroDataBox's last word on a diversion).
    settled: cancelled || diverted || (status === 'Arrived' && arrival.actual !== null),
  };
}

export class AeroDataBoxProvider implements FlightProvider {
  readonly name = 'aerodatabox';
  readonly stats = new ProviderStats('aerodatabox');
  readonly upstream: Upstream;

  constructor(
    private readonly settings: AeroDataBoxSettings,
    private readonly clock: Clock,
    private readonly airports: ReferenceAirports,
  ) {
    this.upstream = new Upstream({
      provider: this.name,
      baseUrl: settings.url.replace(/\/+$/, ''),
      requestsPerMinute: settings.requestsPerMinute,
      stats: this.stats,
      headers: { 'x-rapidapi-key': settings.key, 'x-rapidapi-host': new URL(settings.url).host },
      secrets: [settings.key],
    });
  }

  status(): ProviderStatus {
    return statusOf(this.name, this.settings.url, this.settings.requestsPerMinute, this.upstream, this.stats);
  }

  /** The airport of Amsterdam: a TIER 1 call, the cheapest the API has. */
  check(options?: CallOptions): Promise<CheckResult> {
    return checkCall(this.upstream, '/airports/iata/AMS', {}, options);
  }

  lookupFlight(lookup: FlightLookup, options?: CallOptions): Promise<Answer<ProviderFlight[]>> {
    return measured<ProviderFlight[]>(this.stats, this.clock, 'flight', options, async (window) => {
      const designator = normaliseDesignator(lookup.designator);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(lookup.flightDate) || !/^[A-Z0-9]{3,10}$/.test(designator)) return { outcome: 'miss' };
      const now = this.clock.now();
      return legsOnUtcDate(lookup, {
        originZone: (lookup.origin && this.airports.find(lookup.origin)?.timezone) || null,
        file: (date) => this.file(designator, date, window),
        toFlight: (row) => toFlight(row, now),
        offsetOf: (row) => localOffset(isObject(row.departure) ? row.departure.scheduledTime : undefined),
      });
    });
  }

  /** One local date's file of the number: its rows, none on 204. */
  private async file(designator: string, date: string, window: CallWindow): Promise<LocalFile<Json>> {
    const sent = await this.upstream.get(
      `/flights/number/${encodeURIComponent(designator)}/${date}`,
      { dateLocalRole: 'Departure', withAircraftImage: false, withLocation: false },
      window,
      [200, 204],
    );
    if (!sent.ok) return failed(sent);
    if (sent.status === 204 || sent.body === null) return { outcome: 'rows', rows: [] };
    if (!Array.isArray(sent.body) || !sent.body.every(isObject)) return malformed(this.name, 'a flight lookup');
    return { outcome: 'rows', rows: sent.body };
  }

  readBoard(read: BoardRead, options?: CallOptions): Promise<Answer<BoardRow[]>> {
    return measured<BoardRow[]>(this.stats, this.clock, 'board', options, async (window) => {
      const airport = this.airports.find(read.airport);
      if (!airport || !(read.to > read.from)) return { outcome: 'miss' };
      const direction = read.board === 'departures' ? 'Departure' : 'Arrival';
      const rows: { row: BoardRow; codeshared: boolean }[] = [];
      for (let from = read.from; from < read.to; from += BOARD_PIECE_MS) {
        const to = Math.min(read.to, from + BOARD_PIECE_MS);
        const sent = await this.upstream.get(
          `/flights/airports/iata/${airport.iata}/${localMinute(from, airport.timezone)}/${localMinute(to, airport.timezone)}`,
          { direction, withLeg: false, withCancelled: true, withCodeshared: true, withCargo: true, withPrivate: false, withLocation: false },
          window,
          [200, 204],
        );
        if (!sent.ok) return failed(sent);
        if (sent.status === 204 || sent.body === null) continue;
        if (!isObject(sent.body)) return malformed(this.name, 'a board');
        const list = sent.body[read.board];
        if (list === undefined) continue;
        if (!Array.isArray(list)) return malformed(this.name, 'a board');
        for (const item of list) {
          if (!isObject(item)) continue;
          const read_ = boardRow(item, read, { iata: airport.iata, icao: airport.icao });
          if (read_ && read_.row.scheduledAt >= read.from && read_.row.scheduledAt < read.to) rows.push(read_);
        }
      }
      return { outcome: 'hit', value: foldCodeshares(rows) };
    });
  }

  lookupAircraft(registration: string, options?: CallOptions): Promise<Answer<AircraftRecord>> {
    return measured<AircraftRecord>(this.stats, this.clock, 'aircraft', options, async (window) => {
      const reg = registration.trim().toUpperCase();
      if (!/^[A-Z0-9-]{2,10}$/.test(reg)) return { outcome: 'miss' };
      const sent = await this.upstream.get(`/aircrafts/reg/${encodeURIComponent(reg)}`, { withImage: false, withRegistrations: false }, window, [200, 204]);
      if (!sent.ok) return failed(sent);
      if (sent.status === 204 || sent.body === null) return { outcome: 'miss' };
      if (!isObject(sent.body)) return malformed(this.name, 'an aircraft');
      const a = sent.body;
      return {
        outcome: 'hit',
        value: {
          registration: str(a.reg)?.toUpperCase() ?? reg,
          icao24: str(a.hexIcao)?.toUpperCase() ?? null,
          typeIcao: str(a.icaoCode)?.toUpperCase() ?? null,
          typeIata: str(a.iataType)?.toUpperCase() ?? null,
          label: str(a.typeName) ?? str(a.model),
          airline: str(a.airlineName) ? { name: str(a.airlineName), iata: null, icao: null } : null,
          operation: a.isFreighter === true ? 'cargo' : 'passenger',
          seats: typeof a.numSeats === 'number' && a.numSeats > 0 ? a.numSeats : null,
        },
      };
    });
  }
}

/** The offset in minutes of a `{utc, local}` pair (`2024-03-12 08:15+01:00` → 60). */
function localOffset(value: unknown): number | null {
  if (!isObject(value) || typeof value.local !== 'string') return null;
  const m = /([+-])(\d{2}):?(\d{2})$/.exec(value.local.trim());
  if (!m) return /Z$/i.test(value.local.trim()) ? 0 : null;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/**
 * A FIDS row (`withLeg=false`): `movement` holds the times at the board's airport and names the
 * other airport.
 */
function boardRow(item: Json, read: BoardRead, here: AirportRef): { row: BoardRow; codeshared: boolean } | null {
  const movement = isObject(item.movement) ? item.movement : null;
  const scheduledAt = time(movement ?? undefined, 'scheduledTime');
  const flightNumber = str(item.number);
  if (!movement || scheduledAt === null || !flightNumber) return null;
  const status = str(item.status) ?? 'Unknown';
  const departures = read.board === 'departures';
  const happened = departures ? DEPARTED.has(status) : status === 'Arrived';
  const end = endOf(movement, happened);
  const other = airportOf(movement.airport);
  const number = designators(flightNumber);
  const aircraft = isObject(item.aircraft) ? item.aircraft : null;
  const row: BoardRow = {
    flightNumber,
    flightIata: number.iata,
    flightIcao: number.icao,
    callsign: str(item.callSign)?.toUpperCase() ?? null,
    direction: departures ? 'departure' : 'arrival',
    airline: airlineOf(item.airline),
    codeshares: [],
    operation: operationOf(item),
    aircraftType: aircraft ? str(aircraft.model) : null,
    registration: aircraft ? (str(aircraft.reg)?.toUpperCase() ?? null) : null,
    origin: departures ? here : other,
    destination: departures ? other : here,
    divertedTo: null,
    scheduledAt,
    estimatedAt: end.estimated,
    actualAt: end.actual,
    status,
    cancelled: status === 'Canceled',
    diverted: status === 'Diverted',
    runway: end.runway,
  };
  return { row, codeshared: item.codeshareStatus === 'IsCodeshared' };
}

/**
 * With `withCodeshared=true` every marketing number is its own row. A codeshare row (`IsCodeshared`)
 * with the same scheduled time, other airport and callsign as an operating row is folded into it
 * (its number joins `codeshares`); one without a match stays as it is.
 */
function foldCodeshares(rows: { row: BoardRow; codeshared: boolean }[]): BoardRow[] {
  const key = (r: BoardRow) => `${r.scheduledAt}|${(r.direction === 'departure' ? r.destination : r.origin).icao ?? ''}|${r.callsign ?? ''}`;
  const operating = new Map<string, BoardRow>();
  const seen = new Set<string>();
  const out: BoardRow[] = [];
  const codeshares: BoardRow[] = [];
  for (const { row, codeshared } of rows) {
    const id = `${row.scheduledAt}|${row.flightNumber}`;
    if (seen.has(id)) continue; // the same row in two windows
    seen.add(id);
    if (codeshared) codeshares.push(row);
    else {
      out.push(row);
      if (row.callsign) operating.set(key(row), row);
    }
  }
  for (const row of codeshares) {
    const host = row.callsign ? operating.get(key(row)) : undefined;
    if (host) {
      const number = row.flightIata ?? row.flightIcao;
      if (number && !host.codeshares.includes(number)) host.codeshares.push(number);
    } else out.push(row);
  }
  return out.sort((a, b) => a.scheduledAt - b.scheduledAt);
}
