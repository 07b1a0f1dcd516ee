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
// This file asks; aerodatabox/ reads the answers: flight.ts (a flight row to a ProviderFlight),
// codeshare.ts (a codeshare row to its operating flight), board.ts (board rows).
import { utcTime, type Clock } from '../clock.js';
import type { ReferenceAirports } from '../airports/index.js';
import { failed, isObject, KeyedProvider, malformed, measured, normaliseDesignator, str, type KeyedSettings } from './measured.js';
import type { AircraftRecord, AirportRef, Direction, Answer, BoardDay, BoardRead, BoardRow, CallCosts, CallOptions, DepartureDays, FlightLookup, FlightProvider, ProviderFlight, RotationQuery } from './types.js';
import type { Timer } from './timer.js';
import type { CallWindow } from './upstream.js';
import { legsOnUtcDate, type LocalFile } from './local-dates.js';
import { addDays, localMinute, offsetMinutes, zonedToUtc } from './zones.js';
import { type Json, scheduledLocal, isCodeshare, toFlight, setAsideStale } from './aerodatabox/flight.js';
import { operatorOf, asMarketing, unresolved } from './aerodatabox/codeshare.js';
import { localOffset, boardRow, foldCodeshares } from './aerodatabox/board.js';

export { toFlight } from './aerodatabox/flight.js';

export const AERODATABOX_URL = 'https://aerodatabox.p.rapidapi.com';
/** RapidAPI's entry (Basic) plan allows about one request a second; its monthly quota is the real bound. */
export const AERODATABOX_REQUESTS_PER_MINUTE = 30;
const BOARD_PIECE_MS = 11 * 3_600_000;
/** How long an airport's coverage, as its feeds said it, is used before it is asked again. */
const COVERAGE_TTL_MS = 6 * 3_600_000;
/** Local times lie within 14 hours of UTC (Kiribati +14, Baker Island −12). */
const ZONE_SPAN_MS = 14 * 3_600_000;

export class AeroDataBoxProvider extends KeyedProvider implements FlightProvider {
  /** docs/providers.md, "What a call costs": a lookup is usually one file; a day of departures two windows of 12 local hours. */
  readonly costs: CallCosts = { lookup: 1, departuresDay: 2, airportDay: 4 };
  /** Each airport's stored flights, by local date, as its feeds said, until when that answer is used. */
  private readonly coverage = new Map<string, { until: number; range: { min: string; max: string } | null }>();

  constructor(
    settings: KeyedSettings,
    private readonly clock: Clock,
    private readonly airports: ReferenceAirports,
    /** The HTTP client's time and waits (timer.ts): real by default, a test's manual timer. */
    timer?: Timer,
  ) {
    // Checked by the airport of Amsterdam: a TIER 1 call, the cheapest the API has.
    super('aerodatabox', settings, { headers: { 'x-rapidapi-key': settings.key, 'x-rapidapi-host': new URL(settings.url).host } }, { path: '/airports/iata/AMS' }, timer);
  }

  lookupFlight(lookup: FlightLookup, options?: CallOptions): Promise<Answer<ProviderFlight[]>> {
    return measured<ProviderFlight[]>(this.upstream, this.clock, 'flight', options, async (window) => {
      const designator = normaliseDesignator(lookup.designator);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(lookup.flightDate) || !/^[A-Z0-9]{3,10}$/.test(designator)) return { outcome: 'miss' };
      const origin = lookup.origin?.toUpperCase() ?? null;
      const days = options?.departures && origin ? options.departures : null;
      const now = this.clock.now();
      const rows = new WeakMap<ProviderFlight, Json>();
      const found = await legsOnUtcDate(lookup, {
        originZone: (lookup.origin && this.airports.find(lookup.origin)?.timezone) || null,
        // A day of departures the batch's plan reads whole answers for every flight of it (fromDay).
        file: (date) => (days && origin && days.planned(origin, date) ? this.fromDay(designator, origin, date, days, window) : this.file(designator, date, window)),
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
        legs.push(row && isCodeshare(row) ? await this.resolve(leg, row, lookup, now, window) : leg);
      }
      if (legs.length === 0) return { outcome: 'miss' };
      // A resolved codeshare now has its operator's departure time.
      legs.sort((a, b) => (a.departure.scheduled ?? Infinity) - (b.departure.scheduled ?? Infinity));
      return { outcome: legs.every((f) => f.settled) ? 'hit' : 'incomplete', value: legs };
    });
  }

  /**
   * A codeshare row resolved to its operating flight: the FIDS board (with legs, operators only) of
   * the end whose airport and scheduled time the row gives, an hour either side of that time. One
   * request more per codeshare leg; a failure, no match or two matches keep the row, unsettled, with
   * a doubt.
   */
  private async resolve(codeshare: ProviderFlight, row: Json, lookup: FlightLookup, now: number, window: CallWindow): Promise<ProviderFlight> {
    const ends: [Direction, string | null | undefined][] = [
      ['departure', lookup.origin],
      ['arrival', lookup.destination],
    ];
    for (const [end, asked] of ends) {
      const at = codeshare[end].scheduled;
      const airport = codeshare[end].airport;
      const code = airport.iata ?? airport.icao ?? (asked ? asked.toUpperCase() : null);
      if (at === null || !code) continue;
      const zone = this.airports.find(code)?.timezone;
      const offset = localOffset(scheduledLocal(row[end])) ?? (zone ? offsetMinutes(zone, at) : null);
      if (offset === null) continue;
      const wall = (ms: number) => new Date(ms + offset * 60_000).toISOString().slice(0, 16);
      const sent = await this.upstream.get(
        `/flights/airports/${/^[A-Z0-9]{3}$/.test(code) ? 'iata' : 'icao'}/${encodeURIComponent(code)}/${wall(at - 3_600_000)}/${wall(at + 3_600_000)}`,
        { direction: end === 'departure' ? 'Departure' : 'Arrival', withLeg: true, withCancelled: true, withCodeshared: false, withCargo: true, withPrivate: false, withLocation: false },
        window,
        [200, 204],
      );
      if (!sent.ok) return unresolved(codeshare, `could not be looked up (${sent.error.message})`);
      const list = isObject(sent.body) ? sent.body[end === 'departure' ? 'departures' : 'arrivals'] : undefined;
      const candidates = (Array.isArray(list) ? list : [])
        .filter((item): item is Json => isObject(item) && !isCodeshare(item))
        .map((item) => toFlight(item, now))
        .filter((f): f is ProviderFlight => f !== null)
        // The board's own airport is often left out of its rows.
        .map((f) => {
          if (f[end].airport.iata || f[end].airport.icao) return f;
          const here: AirportRef = { iata: /^[A-Z0-9]{3}$/.test(code) ? code : null, icao: /^[A-Z]{4}$/.test(code) ? code : null };
          return end === 'departure' ? { ...f, departure: { ...f.departure, airport: here } } : { ...f, arrival: { ...f.arrival, airport: here } };
        });
      const operator = operatorOf(codeshare, end, candidates);
      return operator ? asMarketing(codeshare, operator) : unresolved(codeshare, `is not on the ${end === 'departure' ? 'departures' : 'arrivals'} board of ${code} at ${utcTime(at)}`);
    }
    return unresolved(codeshare, 'cannot be looked for (no end with both an airport and a scheduled time)');
  }

  /**
   * A local date's file of the number read from its origin's departures of that day, which are read
   * whole once (two requests of 12 local hours, shared by the batch's lookups of that day); the
   * number's own file when the day could not be read.
   */
  private async fromDay(designator: string, origin: string, date: string, days: DepartureDays, window: CallWindow): Promise<LocalFile<Json>> {
    let rows: Json[];
    try {
      rows = await days.read(`${this.name}|${origin}|${date}`, async () => {
        // Past windows only where the airport's stored flights reach (its coverage, documented limit).
        if (!(await this.covers(origin, date, window))) throw new Error(`${date} is outside ${origin}'s stored flights`);
        const day = await this.departuresDay(origin, date, window);
        if (day.outcome === 'error') throw new Error(day.error.message);
        return day.rows;
      });
    } catch {
      return this.file(designator, date, window);
    }
    return { outcome: 'rows', rows: rows.filter((row) => typeof row.number === 'string' && normaliseDesignator(row.number) === designator) };
  }

  /**
   * Whether the airport's stored flights reach this local date: `generalAvailability` of
   * GET /health/services/airports/{icao}/feeds (a free-tier request, asked once per airport per
   * COVERAGE_TTL_MS). Unknown (no ICAO code, a failed request, no dates given) is taken as not covered:
   * the lookups then ask for their flights one by one, as a single lookup would.
   */
  private async covers(airport: string, date: string, window: CallWindow): Promise<boolean> {
    const now = this.clock.now();
    let known = this.coverage.get(airport);
    if (!known || known.until <= now) {
      const icao = this.airports.find(airport)?.icao ?? null;
      let range: { min: string; max: string } | null = null;
      if (icao) {
        const sent = await this.upstream.get(`/health/services/airports/${encodeURIComponent(icao)}/feeds`, {}, window, [200, 204]);
        const general = sent.ok && isObject(sent.body) && isObject(sent.body.generalAvailability) ? sent.body.generalAvailability : null;
        const min = str(general?.minAvailableLocalDate)?.slice(0, 10);
        const max = str(general?.maxAvailableLocalDate)?.slice(0, 10);
        if (min && max) range = { min, max };
      }
      known = { until: now + COVERAGE_TTL_MS, range };
      this.coverage.set(airport, known);
    }
    return known.range !== null && date >= known.range.min && date <= known.range.max;
  }

  /** An airport's departures of one local day, with both ends (FIDS `withLeg=true`): [00:00, 12:00] and [12:00, 23:59]. */
  private async departuresDay(origin: string, date: string, window: CallWindow): Promise<LocalFile<Json>> {
    const day = await this.boardDay(origin, 'departures', date, window);
    return day.outcome === 'rows' ? { outcome: 'rows', rows: day.rows.map((item) => withOrigin(item, origin)) } : day;
  }

  /**
   * One local day of an airport's board (its departures or its arrivals), with both ends: two windows
   * of 12 local hours, [00:00, 12:00] and [12:00, 23:59], the widest FIDS allows (two priced requests).
   */
  private async boardDay(airport: string, board: 'departures' | 'arrivals', date: string, window: CallWindow): Promise<LocalFile<Json>> {
    const seen = new Set<string>();
    const rows: Json[] = [];
    const end = board === 'departures' ? 'departure' : 'arrival';
    for (const [from, to] of [['00:00', '12:00'], ['12:00', '23:59']] as const) {
      const sent = await this.upstream.get(
        `/flights/airports/iata/${encodeURIComponent(airport)}/${date}T${from}/${date}T${to}`,
        { direction: board === 'departures' ? 'Departure' : 'Arrival', withLeg: true, withCancelled: true, withCodeshared: true, withCargo: true, withPrivate: false, withLocation: false },
        window,
        [200, 204],
      );
      if (!sent.ok) return failed(sent);
      if (sent.status === 204 || sent.body === null) continue;
      const list = isObject(sent.body) ? sent.body[board] : undefined;
      if (!Array.isArray(list)) return malformed(this.name, 'a board');
      for (const item of list) {
        if (!isObject(item)) continue;
        // A flight at 12:00 is in both windows.
        const key = `${String(item.number)}|${scheduledLocal(item[end]) ?? ''}`;
        if (seen.has(key)) continue;
        seen.add(key);
        rows.push(item);
      }
    }
    return { outcome: 'rows', rows };
  }

  /**
   * A past local day of the airport's board, as it ended: `miss` outside the airport's stored flights
   * (its coverage, asked as a batch's day read asks it). Four priced requests an airport-day, both boards.
   */
  readBoardDay(day: BoardDay, options?: CallOptions): Promise<Answer<BoardRow[]>> {
    return measured<BoardRow[]>(this.upstream, this.clock, 'board', options, async (window) => {
      const airport = this.airports.find(day.airport);
      if (!airport || !/^\d{4}-\d{2}-\d{2}$/.test(day.date) || !(await this.covers(airport.iata, day.date, window))) return { outcome: 'miss' };
      const read = await this.boardDay(airport.iata, day.board, day.date, window);
      if (read.outcome === 'error') return read;
      const here = { iata: airport.iata, icao: airport.icao };
      // The rows' own window: the local day, as boardRow reads a window (rows outside it are another day's).
      const from = zonedToUtc(`${day.date}T00:00`, airport.timezone)!;
      const to = zonedToUtc(`${addDays(day.date, 1)}T00:00`, airport.timezone)!;
      const window_: BoardRead = { airport: airport.iata, board: day.board, from, to };
      const now = this.clock.now();
      const rows = read.rows.map((item) => boardRow(item, window_, here, now)).filter((r): r is { row: BoardRow; codeshared: boolean } => r !== null && r.row.scheduledAt >= from && r.row.scheduledAt < to);
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
          { direction, withLeg: true, withCancelled: true, withCodeshared: true, withCargo: true, withPrivate: false, withLocation: false },
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
      if (!Array.isArray(sent.body) || !sent.body.every(isObject)) return malformed(this.name, 'a registration\'s flights');
      const now = this.clock.now();
      const flights = sent.body
        .filter((row) => !isCodeshare(row))
        .map((row) => toFlight(row, now))
        .filter((f): f is ProviderFlight => f !== null && f.departure.scheduled !== null && f.departure.scheduled >= query.from && f.departure.scheduled < query.to)
        .sort((a, b) => a.departure.scheduled! - b.departure.scheduled!);
      return { outcome: 'hit', value: flights };
    });
  }

  lookupAircraft(registration: string, options?: CallOptions): Promise<Answer<AircraftRecord>> {
    return measured<AircraftRecord>(this.upstream, this.clock, 'aircraft', options, async (window) => {
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

/** A FIDS row with legs leaves out the board's own airport: it is the departure's. */
function withOrigin(row: Json, origin: string): Json {
  const departure = isObject(row.departure) ? row.departure : {};
  const airport = isObject(departure.airport) ? departure.airport : {};
  if (str(airport.iata) || str(airport.icao)) return row;
  return { ...row, departure: { ...departure, airport: { ...airport, iata: origin } } };
}
