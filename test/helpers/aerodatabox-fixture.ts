// A stand-in for AeroDataBox on RapidAPI, answering in its documented schema (OpenAPI 1.14,
// ../shared/research/providers.md §1) with its quirks: `"2024-03-12 07:15Z"` times with a local twin,
// 204 for nothing, numbers with a space (`KL 1395`), flights filed under the local departure date,
// FIDS rows whose `movement` names the other airport, codeshares as rows of their own, and RapidAPI's
// 401 body for a wrong key.
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
  return { utc: `${utc.slice(0, 10)} ${utc.slice(11, 16)}Z`, local: `${local.slice(0, 10)} ${local.slice(11, 16)}${zone}` };
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

export interface AdbFixture extends FixtureServer {
  flights: AdbFlight[];
  aircraft: Record<string, Record<string, unknown>>;
  /** Replies taken first, one per request, before the world answers (401, 429, 5xx, hangs…). */
  script: FixtureReply[];
}

export async function startAdbFixture(flights: AdbFlight[] = []): Promise<AdbFixture> {
  const state = { flights, aircraft: {} as Record<string, Record<string, unknown>>, script: [] as FixtureReply[] };
  const answer = (request: FixtureRequest): FixtureReply => {
    if (request.headers['x-rapidapi-key'] !== ADB_KEY) {
      return { status: 401, body: { message: 'Invalid API key. Go to https://docs.rapidapi.com/docs/keys for more info.' } };
    }
    const scripted = state.script.shift();
    if (scripted) return scripted;
    let m = /^\/flights\/number\/([^/]+)\/(\d{4}-\d{2}-\d{2})$/.exec(request.path);
    if (m) {
      const number = compact(decodeURIComponent(m[1]!));
      const found = state.flights.filter((f) => compact(f.number) === number && localDate(f.departure) === m![2]);
      return found.length === 0 ? { status: 204 } : { status: 200, body: found.map(flightContract) };
    }
    m = /^\/flights\/airports\/iata\/([A-Z]{3})\/(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})\/(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})$/.exec(request.path);
    if (m) {
      const [, code, from, to] = m as unknown as [string, string, string, string];
      const hours = (Date.parse(`${to}Z`) - Date.parse(`${from}Z`)) / 3_600_000;
      if (!(hours > 0 && hours <= 12)) return { status: 400, body: { message: 'The time range must be positive and at most 12 hours.' } };
      const here = request.query.get('direction') === 'Arrival' ? 'arrival' : 'departure';
      const rows = state.flights
        .filter((f) => f[here].iata === code)
        .filter((f) => localMinute(f[here]) >= from && localMinute(f[here]) <= to)
        .filter((f) => request.query.get('withCodeshared') !== 'false' || f.codeshareStatus !== 'IsCodeshared')
        .map((f) => fidsRow(f, here));
      if (rows.length === 0) return { status: 204 };
      return { status: 200, body: here === 'departure' ? { departures: rows, arrivals: [] } : { departures: [], arrivals: rows } };
    }
    m = /^\/airports\/iata\/([A-Z]{3})$/.exec(request.path);
    if (m) {
      return { status: 200, body: { icao: 'EHAM', iata: m[1], shortName: 'Schiphol', fullName: 'Amsterdam Schiphol', municipalityName: 'Amsterdam', countryCode: 'NL', timeZone: 'Europe/Amsterdam' } };
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
  departure: { iata: 'AMS', icao: 'EHAM', offset: 60, scheduled: '2024-03-12T07:15Z', revised: '2024-03-12T07:38Z', runway: '2024-03-12T07:51Z' },
  arrival: { iata: 'WAW', icao: 'EPWA', offset: 60, scheduled: '2024-03-12T09:10Z', revised: '2024-03-12T09:27Z', runway: '2024-03-12T09:21Z', predicted: '2024-03-12T09:25Z' },
};
