// FlightAware AeroAPI v4 behind the provider interface. Every mapping decision is in
// docs/providers.md, "FlightAware AeroAPI"; the schema is the provider's OpenAPI 4.28.
//
// - Flights: GET /flights/{ident}?ident_type=designator&start&end for the last 10 days (AeroAPI's
//   live window), GET /history/flights/{ident} before. start/end are compared with the scheduled
//   gate departure in UTC, so the UTC flight date is asked as it is.
// - Boards: the departed and the scheduled flights of the airport (two lists per board), merged.
// - A past day's board: /history/airports/{id}/flights/… (15 days ago and older, pieces of 24 hours),
//   or the two live lists (the last 10 days); between them, none (aeroapi/day.ts).
// - Aircraft: GET /history/aircraft/{registration}/last_flight.
// - Rotation: GET /flights/{registration}?ident_type=registration&start&end (or /history/…, span
//   under 7 days): the aircraft's legs by scheduled departure, one result set per 15 legs.
// Times are UTC (`…Z`); `cancelled` means "no longer tracked"; a diverted flight's continuation is a
// second leg with the same fa_flight_id. Real answers break the documented promises (docs/providers.md,
// "AeroAPI in practice"): the status text is localised and never read, the `*_delay` fields are never
// used, gate times can be copies of runway times or of the schedule, schedules can be the filed flight
// plan or copies of the actual times; each such answer carries a doubt and does not settle.
// This file asks; aeroapi/flight.ts reads a flight row, aeroapi/day.ts plans a past day's board.
import type { Clock } from '../clock.js';
import type { ReferenceAirports } from '../airports/index.js';
import {
  failed,
  isObject,
  KeyedProvider,
  malformed,
  measured,
  normaliseDesignator,
  str,
  type KeyedSettings,
} from './measured.js';
import type {
  AircraftRecord,
  AirportRef,
  Answer,
  BoardDay,
  BoardRead,
  BoardRow,
  CallOptions,
  FlightLookup,
  FlightProvider,
  ProviderFlight,
  RotationQuery,
} from './types.js';
import { hasLeft } from './types.js';
import { matchesAirport } from './local-dates.js';
import type { Timer } from './timer.js';
import type { CallWindow } from './upstream.js';
import { addDays, utcDate } from './zones.js';
import { type Json, toFlight, isTrackOnly } from './aeroapi/flight.js';
import { LIVE_DAYS, planDay } from './aeroapi/day.js';

export { toFlight } from './aeroapi/flight.js';

export const AEROAPI_URL = 'https://aeroapi.flightaware.com/aeroapi';
/** The Personal tier's limit: 10 result sets a minute. */
export const AEROAPI_REQUESTS_PER_MINUTE = 10;
/** Pages followed per list (each page is a billed result set of up to 15 flights). */
const MAX_PAGES = 5;
/**
 * Pages followed per list of a past day's board: 1,500 flights, more than the busiest airport's day
 * each way (Atlanta's is about 1,100); a list cut short by it makes the day `incomplete`.
 */
const DAY_MAX_PAGES = 100;
const stamp = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

export class AeroApiProvider extends KeyedProvider implements FlightProvider {
  constructor(
    settings: KeyedSettings,
    private readonly clock: Clock,
    private readonly airports: ReferenceAirports,
    /** The HTTP client's time and waits (timer.ts): real by default, a test's manual timer. */
    timer?: Timer,
  ) {
    // Checked by the account's usage: a call AeroAPI does not bill.
    super('aeroapi', settings, { headers: { 'x-apikey': settings.key } }, { path: '/account/usage' }, timer);
  }

  lookupFlight(lookup: FlightLookup, options?: CallOptions): Promise<Answer<ProviderFlight[]>> {
    return measured<ProviderFlight[]>(this.upstream, this.clock, 'flight', options, async (window) => {
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
      // Position-only tracks (a marketing number's adhoc fragments, private tracks) are no legs.
      const rows = list.rows.filter((row) => !isTrackOnly(row));
      const byId = new Map<string, Json[]>();
      for (const row of rows) {
        const id = str(row.fa_flight_id);
        if (id) byId.set(id, [...(byId.get(id) ?? []), row]);
      }
      const flights: ProviderFlight[] = [];
      for (const row of rows) {
        const id = str(row.fa_flight_id);
        const siblings = id ? (byId.get(id) ?? []) : [];
        // A diversion's continuation (same id, not itself diverted) is part of the diverted leg.
        if (row.diverted !== true && siblings.some((s) => s !== row && s.diverted === true)) continue;
        const continuation =
          row.diverted === true ? (siblings.find((s) => s !== row && s.diverted !== true) ?? null) : null;
        const flight = toFlight(row, continuation, now, ident);
        if (!flight) continue;
        if (flight.departure.scheduled === null || utcDate(flight.departure.scheduled) !== date) continue;
        if (
          !matchesAirport(flight.departure.airport, lookup.origin) ||
          !matchesAirport(flight.arrival.airport, lookup.destination)
        )
          continue;
        flights.push(flight);
      }
      if (flights.length === 0) return { outcome: 'miss' };
      flights.sort((a, b) => a.departure.scheduled! - b.departure.scheduled!);
      return { outcome: flights.every((f) => f.settled) ? 'hit' : 'incomplete', value: flights };
    });
  }

  lookupRotation(query: RotationQuery, options?: CallOptions): Promise<Answer<ProviderFlight[]>> {
    return measured<ProviderFlight[]>(this.upstream, this.clock, 'rotation', options, async (window) => {
      const reg = query.registration.trim().toUpperCase().replace(/-/g, '');
      if (!/^[A-Z0-9]{2,10}$/.test(reg) || !(query.to > query.from)) return { outcome: 'miss' };
      const live = query.from >= this.clock.now() - LIVE_DAYS * 86_400_000;
      const list = await this.list(
        `${live ? '' : '/history'}/flights/${encodeURIComponent(reg)}`,
        { ident_type: 'registration', start: stamp(query.from), end: stamp(query.to) },
        'flights',
        window,
      );
      if (list.outcome === 'error') return list;
      const now = this.clock.now();
      const flights = list.rows
        .filter((row) => !isTrackOnly(row))
        .map((row) => toFlight(row, null, now, null))
        .filter(
          (f): f is ProviderFlight =>
            f !== null &&
            f.departure.scheduled !== null &&
            f.departure.scheduled >= query.from &&
            f.departure.scheduled < query.to,
        )
        .sort((a, b) => a.departure.scheduled! - b.departure.scheduled!);
      return { outcome: 'hit', value: flights };
    });
  }

  /**
   * Every page of one list (`flights`, `departures`…), following `links.next` up to `maxPages`, one
   * request (one result set) a page; `truncated` when a next page was left unread.
   */
  private async list(
    path: string,
    query: Record<string, string>,
    field: string,
    window: CallWindow,
    maxPages = MAX_PAGES,
  ): Promise<{ outcome: 'rows'; rows: Json[]; truncated: boolean } | Extract<Answer<never>, { outcome: 'error' }>> {
    const rows: Json[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < maxPages; page++) {
      const sent = await this.upstream.get(path, { ...query, cursor }, window);
      if (!sent.ok) return failed(sent);
      const body = sent.body;
      if (!isObject(body) || !Array.isArray(body[field])) return malformed(this.name, `a ${field} list`);
      rows.push(...(body[field] as unknown[]).filter(isObject));
      const next = isObject(body.links) ? str(body.links.next) : null;
      const nextCursor = next ? new URL(next, 'http://x').searchParams.get('cursor') : null;
      if (!nextCursor) return { outcome: 'rows', rows, truncated: false };
      cursor = nextCursor;
    }
    return { outcome: 'rows', rows, truncated: true };
  }

  readBoard(read: BoardRead, options?: CallOptions): Promise<Answer<BoardRow[]>> {
    return measured<BoardRow[]>(this.upstream, this.clock, 'board', options, async (window) => {
      const airport = this.airports.find(read.airport);
      if (!airport || !(read.to > read.from)) return { outcome: 'miss' };
      const here = { iata: airport.iata, icao: airport.icao };
      const departures = read.board === 'departures';
      const query = { start: stamp(read.from), end: stamp(read.to), type: 'Airline' };
      const rows = new BoardRows(departures, here, read.from, read.to, this.clock.now());
      // What already left (or arrived), then what is still to come.
      for (const list of departures ? ['departures', 'scheduled_departures'] : ['arrivals', 'scheduled_arrivals']) {
        const answer = await this.list(`/airports/${airport.icao}/flights/${list}`, query, list, window);
        if (answer.outcome === 'error') return answer;
        rows.add(answer.rows);
      }
      return { outcome: 'hit', value: rows.sorted() };
    });
  }

  /**
   * A past local day of the airport's board, as it ended (aeroapi/day.ts): from the history boards for
   * a day 15 days ago or older, from the live lists for one within the last 10 days, `miss` between
   * them and for an airport without an ICAO code or zone. Result sets: one per 15 flights of each
   * list asked, at least one per request (docs/providers.md, "A past day's boards").
   */
  readBoardDay(day: BoardDay, options?: CallOptions): Promise<Answer<BoardRow[]>> {
    return measured<BoardRow[]>(this.upstream, this.clock, 'board', options, async (window) => {
      const airport = this.airports.find(day.airport);
      if (!airport || !/^[A-Z]{4}$/.test(airport.icao ?? '') || !/^\d{4}-\d{2}-\d{2}$/.test(day.date))
        return { outcome: 'miss' };
      const plan = planDay(airport.icao!, day.board, day.date, airport.timezone, this.clock.now());
      if (!plan) return { outcome: 'miss' };
      const rows = new BoardRows(
        day.board === 'departures',
        { iata: airport.iata, icao: airport.icao },
        plan.from,
        plan.to,
        this.clock.now(),
      );
      let truncated = false;
      for (const request of plan.requests) {
        const answer = await this.list(
          request.path,
          { start: stamp(request.start), end: stamp(request.end), type: 'Airline' },
          request.field,
          window,
          DAY_MAX_PAGES,
        );
        if (answer.outcome === 'error') return answer;
        rows.add(answer.rows);
        truncated ||= answer.truncated;
      }
      return { outcome: truncated ? 'incomplete' : 'hit', value: rows.sorted() };
    });
  }

  lookupAircraft(registration: string, options?: CallOptions): Promise<Answer<AircraftRecord>> {
    return measured<AircraftRecord>(this.upstream, this.clock, 'aircraft', options, async (window) => {
      const reg = registration.trim().toUpperCase();
      if (!/^[A-Z0-9-]{2,10}$/.test(reg)) return { outcome: 'miss' };
      // FlightAware writes registrations without the hyphen (PHEXD).
      const list = await this.list(
        `/history/aircraft/${encodeURIComponent(reg.replace(/-/g, ''))}/last_flight`,
        {},
        'flights',
        window,
      );
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
          airline:
            operator || str(last.operator_iata)
              ? { name: null, iata: str(last.operator_iata)?.toUpperCase() ?? null, icao: operator }
              : null,
          operation: last.type === 'General_Aviation' ? 'private' : 'passenger',
          seats: null,
        },
      };
    });
  }
}

/** A board's rows gathered from its lists: one per fa_flight_id, scheduled (at the gate) in [from, to). */
class BoardRows {
  private readonly seen = new Set<string>();
  private readonly rows: BoardRow[] = [];

  constructor(
    private readonly departures: boolean,
    private readonly here: AirportRef,
    private readonly from: number,
    private readonly to: number,
    private readonly now: number,
  ) {}

  add(items: Json[]): void {
    for (const item of items) {
      const row = boardRow(item, this.departures, this.here, this.now);
      const id = str(item.fa_flight_id) ?? `${row?.flightNumber}|${row?.scheduledAt}`;
      if (!row || this.seen.has(id) || row.scheduledAt < this.from || row.scheduledAt >= this.to) continue;
      this.seen.add(id);
      this.rows.push(row);
    }
  }

  sorted(): BoardRow[] {
    return this.rows.sort((a, b) => a.scheduledAt - b.scheduledAt);
  }
}

function boardRow(item: Json, departures: boolean, here: AirportRef, now: number): BoardRow | null {
  if (isTrackOnly(item)) return null;
  const flight = toFlight(item, null, now);
  if (!flight) return null;
  const end = departures ? flight.departure : flight.arrival;
  const other = departures ? flight.arrival : flight.departure;
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
    // From the times AeroAPI gives, never its (localised) status text.
    departed: hasLeft(flight.phase),
    // The board's flights hold both ends (on and off times), as a lookup's do.
    ...(other.scheduled !== null
      ? { otherEnd: { scheduledAt: other.scheduled, estimatedAt: other.estimated, actualAt: other.actual } }
      : {}),
  };
}
