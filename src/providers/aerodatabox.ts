// AeroDataBox (through RapidAPI, or any host serving its API) behind the provider interface. Every
// mapping decision is in docs/providers.md, "AeroDataBox"; the schema is the provider's OpenAPI 1.14.
//
// - Flights: GET /flights/number/{number}/{dateLocal}?dateLocalRole=Departure. The date is the
//   departure airport's local date, ours is the UTC date (docs/flight-lookup.md, "The date"): local-dates.ts chooses the
//   files to ask and the legs to keep. A codeshare row (IsCodeshared) is resolved to its operating
//   flight with one more request: the FIDS board, with legs, of the row's departure (else arrival)
//   airport around its scheduled time there.
// - Times: the strongest evidence (runway and block times over revised estimates, times over the
//   status text), each with its kind; where a row contradicts itself, a doubt, and never settled
//   (docs/providers.md, "AeroDataBox in practice").
// - Boards: GET /flights/airports/iata/{code}/{fromLocal}/{toLocal} in windows of at most 11 hours
//   (the API allows 12 local hours; 11 stays inside it across a DST change), merged; codeshare rows
//   folded into the operating flight's row.
// - Aircraft: GET /aircrafts/reg/{registration}.
// - Rotation: GET /flights/reg/{registration}/{fromLocal}/{toLocal} (TIER 3), the aircraft's flights by
//   their local departure times; asked 14 hours wider each side (every zone's local time lies within
//   it) and kept by the UTC window.
// 204 No Content is AeroDataBox's "nothing found".
// This file asks, with aerodatabox/day.ts (an airport's whole local days) and aerodatabox/resolve.ts
// (the board a codeshare's operating flight is found on); aerodatabox/ reads the answers: flight.ts
// (a flight row to a ProviderFlight), codeshare.ts (a codeshare row to its operating flight), board.ts (board rows).
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
  Answer,
  BoardDay,
  BoardRead,
  BoardRow,
  CallCosts,
  CallOptions,
  DepartureDays,
  FlightLookup,
  FlightProvider,
  ProviderFlight,
  RotationQuery,
} from './types.js';
import type { Timer } from './timer.js';
import type { CallWindow } from './upstream.js';
import { legsOnUtcDate, type LocalFile } from './local-dates.js';
import { addDays, localMinute, zonedToUtc } from './zones.js';
import { type Json, scheduledLocal, isCodeshare, toFlight, setAsideStale } from './aerodatabox/flight.js';
import { localOffset, boardRow, foldCodeshares } from './aerodatabox/board.js';
import { AirportDays } from './aerodatabox/day.js';
import { resolveCodeshare } from './aerodatabox/resolve.js';

export { toFlight } from './aerodatabox/flight.js';

export const AERODATABOX_URL = 'https://aerodatabox.p.rapidapi.com';
/** RapidAPI's entry (Basic) plan allows about one request a second; its monthly quota is the real bound. */
export const AERODATABOX_REQUESTS_PER_MINUTE = 30;
const BOARD_PIECE_MS = 11 * 3_600_000;
/** Local times lie within 14 hours of UTC (Kiribati +14, Baker Island −12). */
const ZONE_SPAN_MS = 14 * 3_600_000;

export class AeroDataBoxProvider extends KeyedProvider implements FlightProvider {
  /** docs/providers.md, "What a call costs": a lookup is usually one file; a day of departures two windows of 12 local hours. */
  readonly costs: CallCosts = { lookup: 1, departuresDay: 2, airportDay: 4 };
  /** The airports' whole local days and their stored flights' coverage (aerodatabox/day.ts). */
  private readonly airportDays: AirportDays;

  constructor(
    settings: KeyedSettings,
    private readonly clock: Clock,
    private readonly airports: ReferenceAirports,
    /** The HTTP client's time and waits (timer.ts): real by default, a test's manual timer. */
    timer?: Timer,
  ) {
    // Checked by the airport of Amsterdam: a TIER 1 call, the cheapest the API has.
    super(
      'aerodatabox',
      settings,
      { headers: { 'x-rapidapi-key': settings.key, 'x-rapidapi-host': new URL(settings.url).host } },
      { path: '/airports/iata/AMS' },
      timer,
    );
    this.airportDays = new AirportDays(this.name, this.upstream, clock, airports);
  }

  lookupFlight(lookup: FlightLookup, options?: CallOptions): Promise<Answer<ProviderFlight[]>> {
    return measured<ProviderFlight[]>(this.upstream, this.clock, 'flight', options, async (window) => {
      const designator = normaliseDesignator(lookup.designator);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(lookup.flightDate) || !/^[A-Z0-9]{3,10}$/.test(designator))
        return { outcome: 'miss' };
      const origin = lookup.origin?.toUpperCase() ?? null;
      const days = options?.departures && origin ? options.departures : null;
      const now = this.clock.now();
      const rows = new WeakMap<ProviderFlight, Json>();
      const found = await legsOnUtcDate(lookup, {
        originZone: (lookup.origin && this.airports.find(lookup.origin)?.timezone) || null,
        // A day of departures the batch's plan reads whole answers for every flight of it (fromDay).
        file: (date) =>
          days && origin && days.planned(origin, date)
            ? this.fromDay(designator, origin, date, days, window)
            : this.file(designator, date, window),
        toFlight: (row) => {
          const flight = toFlight(row, now);
          if (flight) rows.set(flight, row);
          return flight;
        },
        offsetOf: (row) => localOffset(scheduledLocal(row.departure)),
        // A codeshare row can give no departure time, and a FIDS-born row no code for the board's own airport.
        keepUndated: true,
        codelessAirportsMatch: true,
      });
      if (found.outcome !== 'hit' && found.outcome !== 'incomplete') return found;
      const legs: ProviderFlight[] = [];
      for (const leg of setAsideStale(found.value)) {
        const row = rows.get(leg);
        legs.push(
          row && isCodeshare(row)
            ? await resolveCodeshare(this.upstream, this.airports, leg, row, lookup, now, window)
            : leg,
        );
      }
      if (legs.length === 0) return { outcome: 'miss' };
      // A resolved codeshare now has its operator's departure time.
      legs.sort((a, b) => (a.departure.scheduled ?? Infinity) - (b.departure.scheduled ?? Infinity));
      return { outcome: legs.every((f) => f.settled) ? 'hit' : 'incomplete', value: legs };
    });
  }

  /**
   * A local date's file of the number read from its origin's departures of that day, which are read
   * whole once (two requests of 12 local hours, shared by the batch's lookups of that day); the
   * number's own file when the day could not be read.
   */
  private async fromDay(
    designator: string,
    origin: string,
    date: string,
    days: DepartureDays,
    window: CallWindow,
  ): Promise<LocalFile<Json>> {
    let rows: Json[];
    try {
      rows = await days.read(`${this.name}|${origin}|${date}`, async () => {
        // Past windows only where the airport's stored flights reach (its coverage, documented limit).
        if (!(await this.airportDays.covers(origin, date, window)))
          throw new Error(`${date} is outside ${origin}'s stored flights`);
        const day = await this.airportDays.departuresDay(origin, date, window);
        if (day.outcome === 'error') throw new Error(day.error.message);
        return day.rows;
      });
    } catch {
      return this.file(designator, date, window);
    }
    return {
      outcome: 'rows',
      rows: rows.filter((row) => typeof row.number === 'string' && normaliseDesignator(row.number) === designator),
    };
  }

  /**
   * A past local day of the airport's board, as it ended: `miss` outside the airport's stored flights
   * (its coverage, asked as a batch's day read asks it). Four priced requests an airport-day, both boards.
   */
  readBoardDay(day: BoardDay, options?: CallOptions): Promise<Answer<BoardRow[]>> {
    return measured<BoardRow[]>(this.upstream, this.clock, 'board', options, async (window) => {
      const airport = this.airports.find(day.airport);
      if (
        !airport ||
        !/^\d{4}-\d{2}-\d{2}$/.test(day.date) ||
        !(await this.airportDays.covers(airport.iata, day.date, window))
      )
        return { outcome: 'miss' };
      const read = await this.airportDays.boardDay(airport.iata, day.board, day.date, window);
      if (read.outcome === 'error') return read;
      const here = { iata: airport.iata, icao: airport.icao };
      // The rows' own window: the local day, as boardRow reads a window (rows outside it are another day's).
      const from = zonedToUtc(`${day.date}T00:00`, airport.timezone)!;
      const to = zonedToUtc(`${addDays(day.date, 1)}T00:00`, airport.timezone)!;
      const window_: BoardRead = { airport: airport.iata, board: day.board, from, to };
      const now = this.clock.now();
      const rows = read.rows
        .map((item) => boardRow(item, window_, here, now))
        .filter(
          (r): r is { row: BoardRow; codeshared: boolean } =>
            r !== null && r.row.scheduledAt >= from && r.row.scheduledAt < to,
        );
      return { outcome: 'hit', value: foldCodeshares(rows) };
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
    return measured<BoardRow[]>(this.upstream, this.clock, 'board', options, async (window) => {
      const airport = this.airports.find(read.airport);
      if (!airport || !(read.to > read.from)) return { outcome: 'miss' };
      const direction = read.board === 'departures' ? 'Departure' : 'Arrival';
      const rows: { row: BoardRow; codeshared: boolean }[] = [];
      for (let from = read.from; from < read.to; from += BOARD_PIECE_MS) {
        const to = Math.min(read.to, from + BOARD_PIECE_MS);
        const sent = await this.upstream.get(
          `/flights/airports/iata/${airport.iata}/${localMinute(from, airport.timezone)}/${localMinute(to, airport.timezone)}`,
          // With legs: each row holds the flight's other end too (BoardRow.otherEnd), at the same price.
          {
            direction,
            withLeg: true,
            withCancelled: true,
            withCodeshared: true,
            withCargo: true,
            withPrivate: false,
            withLocation: false,
          },
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
          const read_ = boardRow(item, read, { iata: airport.iata, icao: airport.icao }, this.clock.now());
          if (read_ && read_.row.scheduledAt >= read.from && read_.row.scheduledAt < read.to) rows.push(read_);
        }
      }
      return { outcome: 'hit', value: foldCodeshares(rows) };
    });
  }

  lookupRotation(query: RotationQuery, options?: CallOptions): Promise<Answer<ProviderFlight[]>> {
    return measured<ProviderFlight[]>(this.upstream, this.clock, 'rotation', options, async (window) => {
      const reg = query.registration.trim().toUpperCase();
      if (!/^[A-Z0-9-]{2,10}$/.test(reg) || !(query.to > query.from)) return { outcome: 'miss' };
      const wall = (ms: number) => new Date(ms).toISOString().slice(0, 16);
      const sent = await this.upstream.get(
        `/flights/reg/${encodeURIComponent(reg)}/${wall(query.from - ZONE_SPAN_MS)}/${wall(query.to + ZONE_SPAN_MS)}`,
        { withAircraftImage: false, withLocation: false },
        window,
        [200, 204],
      );
      if (!sent.ok) return failed(sent);
      if (sent.status === 204 || sent.body === null) return { outcome: 'hit', value: [] };
      if (!Array.isArray(sent.body) || !sent.body.every(isObject))
        return malformed(this.name, "a registration's flights");
      const now = this.clock.now();
      const flights = sent.body
        .filter((row) => !isCodeshare(row))
        .map((row) => toFlight(row, now))
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

  lookupAircraft(registration: string, options?: CallOptions): Promise<Answer<AircraftRecord>> {
    return measured<AircraftRecord>(this.upstream, this.clock, 'aircraft', options, async (window) => {
      const reg = registration.trim().toUpperCase();
      if (!/^[A-Z0-9-]{2,10}$/.test(reg)) return { outcome: 'miss' };
      const sent = await this.upstream.get(
        `/aircrafts/reg/${encodeURIComponent(reg)}`,
        { withImage: false, withRegistrations: false },
        window,
        [200, 204],
      );
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
