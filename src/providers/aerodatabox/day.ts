// An airport's whole local days on AeroDataBox (aerodatabox.ts reads them for a past day's board and a
// batch's day of departures): whether its stored flights reach a date, and a day of its board in two
// windows of 12 local hours.
import type { Clock } from '../../clock.js';
import type { ReferenceAirports } from '../../airports/index.js';
import { failed, isObject, malformed, str } from '../measured.js';
import type { CallWindow, Upstream } from '../upstream.js';
import type { LocalFile } from '../local-dates.js';
import { type Json, scheduledLocal } from './flight.js';

/** How long an airport's coverage, as its feeds said it, is used before it is asked again. */
const COVERAGE_TTL_MS = 6 * 3_600_000;

export class AirportDays {
  /** Each airport's stored flights, by local date, as its feeds said, until when that answer is used. */
  private readonly coverage = new Map<string, { until: number; range: { min: string; max: string } | null }>();

  constructor(
    private readonly name: string,
    private readonly upstream: Upstream,
    private readonly clock: Clock,
    private readonly airports: ReferenceAirports,
  ) {}

  /**
   * Whether the airport's stored flights reach this local date: `generalAvailability` of
   * GET /health/services/airports/{icao}/feeds (a free-tier request, asked once per airport per
   * COVERAGE_TTL_MS). Unknown (no ICAO code, a failed request, no dates given) is taken as not covered:
   * the lookups then ask for their flights one by one, as a single lookup would.
   */
  async covers(airport: string, date: string, window: CallWindow): Promise<boolean> {
    const now = this.clock.now();
    let known = this.coverage.get(airport);
    if (!known || known.until <= now) {
      const icao = this.airports.find(airport)?.icao ?? null;
      let range: { min: string; max: string } | null = null;
      if (icao) {
        const sent = await this.upstream.get(
          `/health/services/airports/${encodeURIComponent(icao)}/feeds`,
          {},
          window,
          [200, 204],
        );
        const general =
          sent.ok && isObject(sent.body) && isObject(sent.body.generalAvailability)
            ? sent.body.generalAvailability
            : null;
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
  async departuresDay(origin: string, date: string, window: CallWindow): Promise<LocalFile<Json>> {
    const day = await this.boardDay(origin, 'departures', date, window);
    return day.outcome === 'rows' ? { outcome: 'rows', rows: day.rows.map((item) => withOrigin(item, origin)) } : day;
  }

  /**
   * One local day of an airport's board (its departures or its arrivals), with both ends: two windows
   * of 12 local hours, [00:00, 12:00] and [12:00, 23:59], the widest FIDS allows (two priced requests).
   */
  async boardDay(
    airport: string,
    board: 'departures' | 'arrivals',
    date: string,
    window: CallWindow,
  ): Promise<LocalFile<Json>> {
    const seen = new Set<string>();
    const rows: Json[] = [];
    const end = board === 'departures' ? 'departure' : 'arrival';
    for (const [from, to] of [
      ['00:00', '12:00'],
      ['12:00', '23:59'],
    ] as const) {
      const sent = await this.upstream.get(
        `/flights/airports/iata/${encodeURIComponent(airport)}/${date}T${from}/${date}T${to}`,
        {
          direction: board === 'departures' ? 'Departure' : 'Arrival',
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
}

/** A FIDS row with legs leaves out the board's own airport: it is the departure's. */
function withOrigin(row: Json, origin: string): Json {
  const departure = isObject(row.departure) ? row.departure : {};
  const airport = isObject(departure.airport) ? departure.airport : {};
  if (str(airport.iata) || str(airport.icao)) return row;
  return { ...row, departure: { ...departure, airport: { ...airport, iata: origin } } };
}
