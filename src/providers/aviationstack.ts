// aviationstack (apilayer) behind the provider interface. Every mapping decision is in
// docs/providers.md, "aviationstack"; there is no machine-readable schema, so the shapes are those
// of its documentation and of many real answers (../shared/research/providers.md §2).
//
// - Flights: GET /flights?flight_iata=…&flight_date=… (flight_icao for an ICAO designator). The date
//   is the departure airport's local date (local-dates.ts), and the times are local wall-clock times mislabelled
//   `+00:00`: they are read in the airport's zone (`timezone`, else the reference airports').
// - Boards: GET /timetable?iataCode=…&type=departure|arrival: the airport's current local day only.
//   No past day's board (readBoardDay): the historical /flights by airport and date is filed by the
//   local departure date, one row per marketing number, and at times empty for valid queries, which a
//   whole day would take for a calm day (docs/providers.md, "A past day's boards").
// - Aircraft: GET /airplanes?registration_number=….
// The key is the `access_key` query parameter: it is in every request URL and in no message.
// This file asks; aviationstack/flight.ts reads a flight row.
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
  BoardRead,
  BoardRow,
  CallOptions,
  FlightLookup,
  FlightProvider,
  ProviderFlight,
} from './types.js';
import { hasLeft } from './types.js';
import type { Timer } from './timer.js';
import type { CallWindow } from './upstream.js';
import { legsOnUtcDate, type LocalFile } from './local-dates.js';
import { offsetMinutes } from './zones.js';
import {
  airlineOf,
  asOperating,
  code,
  errorOf,
  phaseOf,
  localTime,
  toFlight,
  zoneOf,
  type Json,
  type Zone,
} from './aviationstack/flight.js';

export { localTime, offsetOfText, type Zone } from './aviationstack/flight.js';

export const AVIATIONSTACK_URL = 'https://api.aviationstack.com/v1';
/** aviationstack documents no per-minute limit for /flights; its plans are monthly quotas. */
export const AVIATIONSTACK_REQUESTS_PER_MINUTE = 10;

export class AviationstackProvider extends KeyedProvider implements FlightProvider {
  constructor(
    settings: KeyedSettings,
    private readonly clock: Clock,
    private readonly airports: ReferenceAirports,
    /** The HTTP client's time and waits (timer.ts): real by default, a test's manual timer. */
    timer?: Timer,
  ) {
    // Checked by one flight (`limit=1`): one call of the monthly quota.
    super(
      'aviationstack',
      settings,
      { query: { access_key: settings.key } },
      { path: '/flights', query: { limit: '1' } },
      timer,
    );
  }

  /** The zone of an end (aviationstack/flight.ts, `zoneOf`). */
  zone(end: Json | undefined, iata: string | null): Zone | null {
    return zoneOf(this.airports, end, iata);
  }

  /** One `/flights` row as a flight (aviationstack/flight.ts). */
  toFlight(row: Json, observedAt: number): ProviderFlight | null {
    return toFlight(this.airports, row, observedAt);
  }

  lookupFlight(lookup: FlightLookup, options?: CallOptions): Promise<Answer<ProviderFlight[]>> {
    return measured<ProviderFlight[]>(this.upstream, this.clock, 'flight', options, async (window) => {
      const designator = normaliseDesignator(lookup.designator);
      const date = lookup.flightDate;
      // A designator names a number: "HMB" (an airline code alone, as some rows carry) is none.
      if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || !/^[A-Z0-9]{3,10}$/.test(designator) || !/\d/.test(designator))
        return { outcome: 'miss' };
      const byIcao = /^[A-Z]{3}\d/.test(designator);
      const now = this.clock.now();
      const rowOf = new Map<ProviderFlight, Json>();
      /** Marketing numbers seen on codeshare rows, by the operating flight's departure. */
      const marketing = new Map<string, Set<string>>();
      const departureKey = (f: ProviderFlight) =>
        `${f.departure.scheduled}|${f.departure.airport.iata ?? f.departure.airport.icao}`;
      const answer = await legsOnUtcDate(lookup, {
        originZone: (lookup.origin && this.airports.find(lookup.origin)?.timezone) || null,
        // The rows under the number first, then the codeshare rows naming it as the operating flight.
        file: async (day) => {
          const file = await this.day(designator, byIcao, day, window);
          if (file.outcome !== 'rows') return file;
          return {
            outcome: 'rows',
            rows: [
              ...file.rows.filter((r) => this.isUnder(r, designator)),
              ...file.rows.filter((r) => this.isOperatedAs(r, designator)),
            ],
          };
        },
        toFlight: (row) => {
          const flight = this.toFlight(row, now);
          if (!flight) return null;
          if (this.isUnder(row, designator)) {
            rowOf.set(flight, row);
            return flight;
          }
          // A codeshare row of the flight asked: the operating flight, as the row copies it.
          const operated = asOperating(flight);
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
          legs.push(
            seen
              ? { ...leg, codeshares: [...new Set([...leg.codeshares, ...seen])].filter((c) => c !== leg.flightIata) }
              : leg,
          );
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
    return (
      !this.isUnder(row, designator) &&
      shared !== null &&
      (code(shared.flight_iata) === designator || code(shared.flight_icao) === designator)
    );
  }

  /**
   * A codeshare leg with the operating flight's status and times: one more request, for the
   * operating number on the row's local date, and its row that leaves from the same airport at the
   * same scheduled time. Without one (not found, or the request failed), the codeshare row's own
   * times stand: aviationstack copies the operator's times into every marketing row.
   */
  private async operatorOf(
    leg: ProviderFlight,
    row: Json | undefined,
    now: number,
    window: CallWindow,
  ): Promise<ProviderFlight> {
    const number = leg.operating!.flightIata ?? leg.operating!.flightIcao;
    const localDate = str(row?.flight_date);
    if (!number || !localDate || !/^\d{4}-\d{2}-\d{2}$/.test(localDate)) return leg;
    const file = await this.day(number, /^[A-Z]{3}\d/.test(number), localDate, window);
    if (file.outcome !== 'rows') return leg;
    for (const candidate of file.rows) {
      if (!this.isUnder(candidate, number) || (isObject(candidate.flight) && isObject(candidate.flight.codeshared)))
        continue;
      const operated = this.toFlight(candidate, now);
      if (
        !operated ||
        operated.departure.scheduled !== leg.departure.scheduled ||
        operated.departure.airport.iata !== leg.departure.airport.iata
      )
        continue;
      return {
        ...operated,
        flightIata: leg.flightIata,
        flightIcao: leg.flightIcao,
        airline: leg.airline,
        operating: {
          ...leg.operating!,
          airline: { ...operated.airline, name: operated.airline.name ?? leg.operating!.airline.name },
        },
        codeshares: [],
        operation: leg.operation,
      };
    }
    return leg;
  }

  /** The flights of one local date under the number. */
  private async day(designator: string, byIcao: boolean, date: string, window: CallWindow): Promise<LocalFile<Json>> {
    const sent = await this.upstream.get(
      '/flights',
      { [byIcao ? 'flight_icao' : 'flight_iata']: designator, flight_date: date, limit: 100 },
      window,
    );
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
      const sent = await this.upstream.get(
        '/timetable',
        { iataCode: airport.iata, type: departures ? 'departure' : 'arrival' },
        window,
      );
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
      const operating = new Map(
        rows.filter((r) => !r.operatedBy).map((r) => [`${r.row.flightIata}|${r.row.scheduledAt}`, r.row]),
      );
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
  private timetableRow(
    item: Json,
    departures: boolean,
    here: AirportRef,
    zone: string,
  ): { row: BoardRow; operatedBy: string | null } | null {
    const at = isObject(departures ? item.departure : item.arrival)
      ? ((departures ? item.departure : item.arrival) as Json)
      : null;
    const other = isObject(departures ? item.arrival : item.departure)
      ? ((departures ? item.arrival : item.departure) as Json)
      : {};
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
