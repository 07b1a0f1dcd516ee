// A stand-in for AeroDataBox on RapidAPI, answering in its documented schema (OpenAPI 1.14,
// ../shared/research/providers.md §1) with its quirks: `"2024-03-12 07:15Z"` times with a local twin,
// 204 for nothing, numbers with a space (`KL 1395`), flights filed under the local departure date,
// FIDS rows whose `movement` names the other airport, codeshares as rows of their own, each airport's
// stored dates (its feeds' `generalAvailability`), and RapidAPI's 401 body for a wrong key. Recorded answers (test/fixtures/real/aerodatabox) are served verbatim beside
// the built world: their flight objects under the by-number endpoint (by the departure's local date)
// and on the FIDS boards with `withLeg=true` (what the adapter asks).
import { startFixtureServer, type FixtureReply, type FixtureRequest, type FixtureServer } from './fixture-server.js';

export const ADB_KEY = 'adb-test-key-7f3a9c';

export interface AdbEnd {
  iata: string;
  icao: string;
  /** Offset of the airport's local time, minutes (e.g. 60 for +01:00). */
  offset: number;
  scheduled: string;
  revised?: string;
  runway?: string;
  predicted?: string;
}

export interface AdbFlight {
  number: string;
  status: string;
  departure: AdbEnd;
  arrival: AdbEnd;
  callSign?: string;
  codeshareStatus?: 'IsOperator' | 'IsCodeshared' | 'Unknown';
  airline?: { name: string; iata: string; icao: string };
  aircraft?: { reg: string; modeS: string; model: string };
  isCargo?: boolean;
}

/** `{utc, local}` in AeroDataBox's form from an ISO instant and the airport's offset. */
export function adbTime(instant: string, offset: number): { utc: string; local: string } {
  const ms = Date.parse(instant);
  const utc = new Date(ms).toISOString();
  const local = new Date(ms + offset * 60_000).toISOString();
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const zone = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return {
    utc: `${utc.slice(0, 10)} ${utc.slice(11, 16)}Z`,
    local: `${local.slice(0, 10)} ${local.slice(11, 16)}${zone}`,
  };
}

function end(e: AdbEnd): Record<string, unknown> {
  return {
    airport: { icao: e.icao, iata: e.iata, name: e.iata, shortName: e.iata, countryCode: 'XX' },
    scheduledTime: adbTime(e.scheduled, e.offset),
    ...(e.revised ? { revisedTime: adbTime(e.revised, e.offset) } : {}),
    ...(e.runway ? { runwayTime: adbTime(e.runway, e.offset) } : {}),
    ...(e.predicted ? { predictedTime: adbTime(e.predicted, e.offset) } : {}),
    terminal: '1',
    quality: ['Basic', 'Live'],
  };
}

/** A FlightContract. */
export function flightContract(f: AdbFlight): Record<string, unknown> {
  return {
    greatCircleDistance: { meter: 1098530.4, km: 1098.53, mile: 682.6, nm: 593.2, feet: 3604102.4 },
    departure: end(f.departure),
    arrival: end(f.arrival),
    lastUpdatedUtc: adbTime(f.arrival.revised ?? f.departure.scheduled, 0).utc,
    number: f.number,
    callSign: f.callSign ?? null,
    status: f.status,
    codeshareStatus: f.codeshareStatus ?? 'IsOperator',
    isCargo: f.isCargo ?? false,
    ...(f.aircraft ? { aircraft: f.aircraft } : {}),
    airline: f.airline ?? { name: 'KLM', iata: f.number.slice(0, 2), icao: 'KLM' },
  };
}

/** An AirportFlightContract of the board at `here` (`withLeg=false`). */
function fidsRow(f: AdbFlight, here: 'departure' | 'arrival'): Record<string, unknown> {
  const at = here === 'departure' ? f.departure : f.arrival;
  const other = here === 'departure' ? f.arrival : f.departure;
  const contract = flightContract(f);
  delete contract.departure;
  delete contract.arrival;
  delete contract.lastUpdatedUtc;
  delete contract.greatCircleDistance;
  return { ...contract, movement: { ...end(at), airport: { icao: other.icao, iata: other.iata, name: other.iata } } };
}

const localDate = (e: AdbEnd) => new Date(Date.parse(e.scheduled) + e.offset * 60_000).toISOString().slice(0, 10);
const localMinute = (e: AdbEnd) => new Date(Date.parse(e.scheduled) + e.offset * 60_000).toISOString().slice(0, 16);
const compact = (s: string) => s.replace(/\s+/g, '').toUpperCase();

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A recorded flight object (`FlightContract`), served verbatim. */
export interface RealFlight {
  row: Json;
  /**
   * IATA codes of the ends the row omits: a FIDS `withLeg=true` row leaves out the board's own airport
   * (S1's rows were read on Dublin's arrivals: `{arrival: 'DUB'}`). Used for serving only; the body
   * stays as recorded.
   */
  omitted?: { departure?: string; arrival?: string };
}

/** `"2023-08-01 20:45+01:00"` of an end's time, from `scheduledTime.local` or the legacy `scheduledTimeLocal`. */
function localText(end: unknown): string | null {
  if (!isObject(end)) return null;
  const structured = isObject(end.scheduledTime) ? end.scheduledTime.local : undefined;
  const text = typeof structured === 'string' ? structured : end.scheduledTimeLocal;
  return typeof text === 'string' && /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}/.test(text) ? text : null;
}
const realMinute = (end: unknown) => {
  const text = localText(end);
  return text ? `${text.slice(0, 10)}T${text.slice(11, 16)}` : null;
};
function realCodes(real: RealFlight, which: 'departure' | 'arrival'): string[] {
  const end = real.row[which];
  const airport = isObject(end) && isObject(end.airport) ? end.airport : {};
  return [airport.iata, airport.icao, real.omitted?.[which]]
    .filter((c): c is string => typeof c === 'string')
    .map((c) => c.toUpperCase());
}
/** The local date the by-number endpoint files a recorded flight under: its departure's, else (no departure time) its arrival's. */
const realDate = (row: Json) => (localText(row.departure) ?? localText(row.arrival))?.slice(0, 10) ?? null;

export interface AdbFixture extends FixtureServer {
  flights: AdbFlight[];
  /** Recorded answers served verbatim beside `flights`. */
  real: { flights: RealFlight[] };
  aircraft: Record<string, Record<string, unknown>>;
  /** Replies taken first, one per request, before the world answers (401, 429, 5xx, hangs…). */
  script: FixtureReply[];
  /**
   * Each airport's stored flights by ICAO code, the local dates `GET /health/services/airports/{icao}/feeds`
   * gives as `generalAvailability` (`minAvailableLocalDate` / `maxAvailableLocalDate`); an airport not
   * named answers 204, as for an airport AeroDataBox does not know.
   */
  coverage: Record<string, { min: string; max: string }>;
}

export async function startAdbFixture(flights: AdbFlight[] = []): Promise<AdbFixture> {
  const state = {
    flights,
    aircraft: {} as Record<string, Record<string, unknown>>,
    script: [] as FixtureReply[],
    real: { flights: [] as RealFlight[] },
    coverage: {} as Record<string, { min: string; max: string }>,
  };
  const answer = (request: FixtureRequest): FixtureReply => {
    if (request.headers['x-rapidapi-key'] !== ADB_KEY) {
      return {
        status: 401,
        body: { message: 'Invalid API key. Go to https://docs.rapidapi.com/docs/keys for more info.' },
      };
    }
    const scripted = state.script.shift();
    if (scripted) return scripted;
    let m = /^\/flights\/number\/([^/]+)\/(\d{4}-\d{2}-\d{2})$/.exec(request.path);
    if (m) {
      const number = compact(decodeURIComponent(m[1]!));
      const found = state.flights.filter((f) => compact(f.number) === number && localDate(f.departure) === m![2]);
      const real = state.real.flights.filter(
        (r) => typeof r.row.number === 'string' && compact(r.row.number) === number && realDate(r.row) === m![2],
      );
      return found.length + real.length === 0
        ? { status: 204 }
        : { status: 200, body: [...found.map(flightContract), ...real.map((r) => r.row)] };
    }
    m =
      /^\/flights\/airports\/(iata|icao)\/([A-Z0-9]{3,4})\/(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})\/(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})$/.exec(
        request.path,
      );
    if (m) {
      const [, codeType, code, from, to] = m as unknown as [string, 'iata' | 'icao', string, string, string];
      const hours = (Date.parse(`${to}Z`) - Date.parse(`${from}Z`)) / 3_600_000;
      if (!(hours > 0 && hours <= 12))
        return { status: 400, body: { message: 'The time range must be positive and at most 12 hours.' } };
      const here = request.query.get('direction') === 'Arrival' ? 'arrival' : 'departure';
      const withCodeshared = request.query.get('withCodeshared') !== 'false';
      const withLeg = request.query.get('withLeg') === 'true';
      const inWindow = (minute: string | null) => minute !== null && minute >= from && minute <= to;
      const rows = state.flights
        .filter((f) => f[here][codeType] === code)
        .filter((f) => inWindow(localMinute(f[here])))
        .filter((f) => withCodeshared || f.codeshareStatus !== 'IsCodeshared')
        .map((f) => (withLeg ? flightContract(f) : fidsRow(f, here)));
      const notCodeshare = (row: Json) => withCodeshared || row.codeshareStatus !== 'IsCodeshared';
      if (withLeg) {
        rows.push(
          ...state.real.flights
            .filter(
              (r) => realCodes(r, here).includes(code) && inWindow(realMinute(r.row[here])) && notCodeshare(r.row),
            )
            .map((r) => r.row),
        );
      }
      if (rows.length === 0) return { status: 204 };
      return {
        status: 200,
        body: here === 'departure' ? { departures: rows, arrivals: [] } : { departures: [], arrivals: rows },
      };
    }
    // The aircraft's flights by local departure time (GET /flights/reg/{reg}/{fromLocal}/{toLocal}).
    m = /^\/flights\/reg\/([^/]+)\/(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})\/(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})$/.exec(
      request.path,
    );
    if (m) {
      const [, reg, from, to] = m as unknown as [string, string, string, string];
      const days = (Date.parse(`${to}Z`) - Date.parse(`${from}Z`)) / 86_400_000;
      if (!(days > 0 && days <= 7))
        return { status: 400, body: { message: 'The time range must be positive and at most 7 days.' } };
      const rows = state.flights
        .filter((f) => f.aircraft && compact(f.aircraft.reg) === compact(decodeURIComponent(reg)))
        .filter((f) => localMinute(f.departure) >= from && localMinute(f.departure) <= to)
        .map(flightContract);
      return rows.length === 0 ? { status: 204 } : { status: 200, body: rows };
    }
    m = /^\/airports\/iata\/([A-Z]{3})$/.exec(request.path);
    if (m) {
      return {
        status: 200,
        body: {
          icao: 'EHAM',
          iata: m[1],
          shortName: 'Schiphol',
          fullName: 'Amsterdam Schiphol',
          municipalityName: 'Amsterdam',
          countryCode: 'NL',
          timeZone: 'Europe/Amsterdam',
        },
      };
    }
    // An airport's feeds and the dates of its stored flights (a FREE TIER request).
    m = /^\/health\/services\/airports\/([A-Z]{4})\/feeds$/.exec(request.path);
    if (m) {
      const range = state.coverage[m[1]!];
      if (!range) return { status: 204 };
      const feed = (service: string) => ({ service, status: 'OK' });
      return {
        status: 200,
        body: {
          flightSchedulesFeed: feed('FlightSchedules'),
          liveFlightUpdatesFeed: feed('FlightLiveUpdates'),
          adsbUpdatesFeed: feed('AdsbUpdates'),
          generalAvailability: {
            minAvailableLocalDate: `${range.min}T00:00:00Z`,
            maxAvailableLocalDate: `${range.max}T00:00:00Z`,
          },
        },
      };
    }
    m = /^\/aircrafts\/reg\/([^/]+)$/.exec(request.path);
    if (m) {
      const found = state.aircraft[decodeURIComponent(m[1]!).toUpperCase()];
      return found ? { status: 200, body: found } : { status: 204 };
    }
    return { status: 404, body: { message: `Endpoint '${request.path}' does not exist` } };
  };
  const server = await startFixtureServer(answer);
  return Object.assign(server, state);
}

/** The documented example: KL 1395 AMS → WAW on 2024-03-12, 17 minutes late at the gate. */
export const KL1395: AdbFlight = {
  number: 'KL 1395',
  callSign: 'KLM1395',
  status: 'Arrived',
  airline: { name: 'KLM', iata: 'KL', icao: 'KLM' },
  aircraft: { reg: 'PH-EXD', modeS: '4851F4', model: 'Embraer 175' },
  departure: {
    iata: 'AMS',
    icao: 'EHAM',
    offset: 60,
    scheduled: '2024-03-12T07:15Z',
    revised: '2024-03-12T07:38Z',
    runway: '2024-03-12T07:51Z',
  },
  arrival: {
    iata: 'WAW',
    icao: 'EPWA',
    offset: 60,
    scheduled: '2024-03-12T09:10Z',
    revised: '2024-03-12T09:27Z',
    runway: '2024-03-12T09:21Z',
    predicted: '2024-03-12T09:25Z',
  },
};
