// A stand-in for FlightAware AeroAPI v4 answering in its documented schema (OpenAPI 4.28,
// ../shared/research/providers.md §3): UTC `…Z` times for out/off/on/in, delays in seconds,
// `cancelled` as "no longer tracked", a diversion's continuation as a second leg under the same
// fa_flight_id, pages of 15 with `links.next` cursors, 400 bodies `{title, reason, detail, status}`,
// and the window rules (/flights: the last 10 days; /history: spans of at most 7 days). Airport boards
// as the OpenAPI describes them: the live `departures` / `arrivals` hold what flew and was not
// diverted, by `actual_off` / `actual_on`; `scheduled_departures` / `scheduled_arrivals` what did not
// fly yet or was cancelled, by `scheduled_off` / `scheduled_on`; start no further than 10 days back.
// The history boards (`/history/airports/{id}/flights/departures|arrivals`) hold every flight planned,
// cancelled ones included, by `scheduled_off` / `scheduled_on`, with start and end required, a span of
// at most 24 hours, and an end no later than 15 days ago.
//
// It also replays recorded answers (test/fixtures/real/aeroapi/, provenance in its SOURCES.md) as
// their text was published: a whole `/flights/{ident}` body, or flight objects wrapped in the list
// envelope of `/flights/{ident}` or of an airport board (`recordedFlights`, `recordedBoards`).
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startFixtureServer, type FixtureReply, type FixtureRequest, type FixtureServer } from './fixture-server.js';

export const AEROAPI_KEY = 'fa-test-key-2b81d0';
const PAGE = 15;

export interface AeroEnd {
  icao: string;
  iata: string;
  /** Gate (out/in) times; runway (off/on) times are derived 12 and 8 minutes inside them unless given. */
  scheduled: string;
  estimated?: string;
  actual?: string;
}

export interface AeroLeg {
  ident_iata: string;
  ident_icao: string;
  fa_flight_id: string;
  origin: AeroEnd;
  destination: AeroEnd;
  status: string;
  cancelled?: boolean;
  diverted?: boolean;
  registration?: string;
  codeshares_iata?: string[];
}

const shift = (iso: string | undefined, minutes: number) =>
  iso ? new Date(Date.parse(iso) + minutes * 60_000).toISOString().replace('.000Z', 'Z') : null;
const z = (iso: string | undefined) => shift(iso, 0);
const airport = (e: AeroEnd) => ({
  code: e.icao,
  code_icao: e.icao,
  code_iata: e.iata,
  code_lid: null,
  timezone: 'Europe/Amsterdam',
  name: e.iata,
  city: e.iata,
  airport_info_url: `/airports/${e.icao}`,
});
const delay = (e: AeroEnd) =>
  (e.actual ?? e.estimated)
    ? Math.round((Date.parse(e.actual ?? e.estimated!) - Date.parse(e.scheduled)) / 1000)
    : null;

/** A flight object of `flights`, `departures`, `arrivals`, `scheduled_*`. */
export function aeroFlight(l: AeroLeg): Record<string, unknown> {
  return {
    ident: l.ident_icao,
    ident_icao: l.ident_icao,
    ident_iata: l.ident_iata,
    actual_runway_off: l.origin.actual ? '24' : null,
    actual_runway_on: l.destination.actual ? '29' : null,
    fa_flight_id: l.fa_flight_id,
    operator: l.ident_icao.slice(0, 3),
    operator_icao: l.ident_icao.slice(0, 3),
    operator_iata: l.ident_iata.slice(0, 2),
    flight_number: l.ident_iata.slice(2),
    registration: l.registration ?? null,
    atc_ident: null,
    inbound_fa_flight_id: null,
    codeshares: [],
    codeshares_iata: l.codeshares_iata ?? [],
    blocked: false,
    diverted: l.diverted ?? false,
    cancelled: l.cancelled ?? false,
    position_only: false,
    origin: airport(l.origin),
    destination: airport(l.destination),
    departure_delay: delay(l.origin),
    arrival_delay: delay(l.destination),
    filed_ete: 6000,
    progress_percent: l.destination.actual ? 100 : 0,
    status: l.status,
    aircraft_type: 'E75L',
    route_distance: 710,
    type: 'Airline',
    scheduled_out: z(l.origin.scheduled),
    estimated_out: z(l.origin.estimated ?? l.origin.actual),
    actual_out: z(l.origin.actual),
    scheduled_off: shift(l.origin.scheduled, 12),
    estimated_off: shift(l.origin.estimated ?? l.origin.actual, 12),
    actual_off: shift(l.origin.actual, 12),
    scheduled_on: shift(l.destination.scheduled, -8),
    estimated_on: shift(l.destination.estimated ?? l.destination.actual, -8),
    actual_on: shift(l.destination.actual, -8),
    scheduled_in: z(l.destination.scheduled),
    estimated_in: z(l.destination.estimated ?? l.destination.actual),
    actual_in: z(l.destination.actual),
  };
}

export interface AeroFixture extends FixtureServer {
  legs: AeroLeg[];
  script: FixtureReply[];
  /**
   * Recorded `/flights/{ident}` (and `/history/flights/{ident}`) bodies by ident (letters and
   * digits, upper case), sent as they are; a request with a `cursor` (a recorded `links.next`
   * followed) gets an empty last page. Take precedence over `legs`.
   */
  recordedFlights: Map<string, string>;
  /** Recorded board bodies by `{ICAO}/{list}` (`SAEZ/arrivals`), sent as they are whatever the window. */
  recordedBoards: Map<string, string>;
}

/** The folder of recorded AeroAPI answers. */
export const AERO_REAL_DIR = fileURLToPath(new URL('../fixtures/real/aeroapi/', import.meta.url));

/** The recorded answers' file names (the `.json` files of the folder). */
export const aeroRealFiles = (): string[] =>
  readdirSync(AERO_REAL_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();

/** A recorded file's text, unmodified. */
export const aeroRealText = (file: string): string => readFileSync(AERO_REAL_DIR + file, 'utf8');

/** Whether a recorded text is a whole `/flights` body (`{"flights": [...]}`) or one flight object. */
export const isWholeAnswer = (text: string): boolean =>
  Array.isArray((JSON.parse(text) as Record<string, unknown>).flights);

/** Flight objects' text in a list envelope (`flights`, `arrivals`...), each object's text kept as published. */
export const wrapRecorded = (field: string, objects: string[]): string =>
  `{"${field}": [${objects.join(',\n')}], "links": null, "num_pages": 1}`;

/** An ISO time in [start, end): start inclusive, end exclusive, as AeroAPI's windows are. */
const within = (iso: unknown, start: number, end: number) =>
  typeof iso === 'string' && Date.parse(iso) >= start && Date.parse(iso) < end;

const badRequest = (detail: string): FixtureReply => ({
  status: 400,
  body: { title: 'Invalid argument', reason: 'INVALID_ARGUMENT', detail, status: 400 },
});

/** `now` is the fixture's idea of today (the /flights window is relative to it). */
export async function startAeroFixture(legs: AeroLeg[], now: number): Promise<AeroFixture> {
  const state = {
    legs,
    script: [] as FixtureReply[],
    recordedFlights: new Map<string, string>(),
    recordedBoards: new Map<string, string>(),
  };
  const paged = (request: FixtureRequest, field: string, items: Record<string, unknown>[]): FixtureReply => {
    const offset = Number(request.query.get('cursor') ?? 0);
    const page = items.slice(offset, offset + PAGE);
    const more = offset + PAGE < items.length;
    const next = new URLSearchParams(request.query);
    next.set('cursor', String(offset + PAGE));
    return {
      status: 200,
      body: { links: more ? { next: `${request.path}?${next}` } : null, num_pages: 1, [field]: page },
    };
  };
  const answer = (request: FixtureRequest): FixtureReply => {
    if (request.headers['x-apikey'] !== AEROAPI_KEY) {
      return {
        status: 401,
        body: { title: 'Unauthorized', reason: 'UNAUTHORIZED', detail: 'Invalid API key', status: 401 },
      };
    }
    const scripted = state.script.shift();
    if (scripted) return scripted;
    if (request.path === '/account/usage')
      return { status: 200, body: { total_calls: 12, total_pages: 12, total_cost: 0.06 } };
    let m = /^(\/history)?\/flights\/([^/]+)$/.exec(request.path);
    if (m) {
      const ident = decodeURIComponent(m[2]!).toUpperCase();
      const start = Date.parse(request.query.get('start') ?? '');
      const end = Date.parse(request.query.get('end') ?? '');
      if (m[1]) {
        if (Number.isNaN(start) || Number.isNaN(end)) return badRequest('start and end are required');
        if (end - start > 7 * 86_400_000) return badRequest('The time span must be at most 7 days');
      } else if (start < now - 10 * 86_400_000) {
        return badRequest('start must be within the last 10 days; use /history/flights');
      }
      const recorded = state.recordedFlights.get(ident.replace(/[^A-Z0-9]/g, ''));
      if (recorded !== undefined)
        return { status: 200, body: request.query.get('cursor') ? wrapRecorded('flights', []) : recorded };
      // ident_type=registration: the aircraft's legs (registrations without their dash, as AeroAPI keeps them).
      const byRegistration = request.query.get('ident_type') === 'registration';
      const found = state.legs
        .filter((l) =>
          byRegistration
            ? (l.registration ?? '').replace(/-/g, '') === ident
            : l.ident_iata === ident || l.ident_icao === ident,
        )
        .filter(
          (l) =>
            (Number.isNaN(start) || Date.parse(l.origin.scheduled) >= start) &&
            (Number.isNaN(end) || Date.parse(l.origin.scheduled) < end),
        )
        .map(aeroFlight);
      return paged(request, 'flights', found);
    }
    m = /^\/airports\/([A-Z]{4})\/flights\/(departures|scheduled_departures|arrivals|scheduled_arrivals)$/.exec(
      request.path,
    );
    if (m) {
      const [, code, list] = m as unknown as [string, string, string];
      const recorded = state.recordedBoards.get(`${code}/${list}`);
      if (recorded !== undefined)
        return { status: 200, body: request.query.get('cursor') ? wrapRecorded(list, []) : recorded };
      const start = Date.parse(request.query.get('start') ?? '');
      const end = Date.parse(request.query.get('end') ?? '');
      if (start < now - 10 * 86_400_000) return badRequest('start must be no further than 10 days in the past');
      const departing = list.endsWith('departures');
      const pending = list.startsWith('scheduled');
      const found = state.legs
        .filter((l) => (departing ? l.origin : l.destination).icao === code)
        .map(aeroFlight)
        // Flown (and not diverted) by the actual runway time; not flown yet, or cancelled, by the scheduled one.
        .filter((f) =>
          pending
            ? f[departing ? 'actual_off' : 'actual_on'] === null
            : f[departing ? 'actual_off' : 'actual_on'] !== null && f.diverted !== true,
        )
        .filter((f) =>
          within(
            f[pending ? (departing ? 'scheduled_off' : 'scheduled_on') : departing ? 'actual_off' : 'actual_on'],
            start,
            end,
          ),
        );
      return paged(request, list, found);
    }
    m = /^\/history\/airports\/([A-Z]{4})\/flights\/(departures|arrivals)$/.exec(request.path);
    if (m) {
      const [, code, list] = m as unknown as [string, string, 'departures' | 'arrivals'];
      const start = Date.parse(request.query.get('start') ?? '');
      const end = Date.parse(request.query.get('end') ?? '');
      if (Number.isNaN(start) || Number.isNaN(end)) return badRequest('start and end are required');
      if (!(end > start) || end - start > 86_400_000) return badRequest('The time span must be at most 1 day');
      if (start < Date.UTC(2011, 0, 1) || end > now - 15 * 86_400_000)
        return badRequest('start and end must lie between 2011-01-01 and 15 days ago');
      const departing = list === 'departures';
      const found = state.legs
        .filter((l) => (departing ? l.origin : l.destination).icao === code)
        .map(aeroFlight)
        .filter((f) => within(f[departing ? 'scheduled_off' : 'scheduled_on'], start, end));
      return paged(request, list, found);
    }
    m = /^\/history\/aircraft\/([^/]+)\/last_flight$/.exec(request.path);
    if (m) {
      const reg = decodeURIComponent(m[1]!);
      const last = state.legs.filter((l) => l.registration === reg).at(-1);
      return { status: 200, body: { flights: last ? [aeroFlight(last)] : [], links: null, num_pages: 1 } };
    }
    return {
      status: 404,
      body: { title: 'Not found', reason: 'NOT_FOUND', detail: `No route ${request.path}`, status: 404 },
    };
  };
  const server = await startFixtureServer(answer);
  return Object.assign(server, state);
}

/** The documented example: KLM1395 AMS → WAW on 2024-03-12, 17 minutes late at the gate. */
export const KLM1395: AeroLeg = {
  ident_iata: 'KL1395',
  ident_icao: 'KLM1395',
  fa_flight_id: 'KLM1395-1710050000-schedule-0123',
  status: 'Arrived / Gate Arrival',
  registration: 'PHEXD',
  codeshares_iata: ['DL9372'],
  origin: { icao: 'EHAM', iata: 'AMS', scheduled: '2024-03-12T07:15:00Z', actual: '2024-03-12T07:38:00Z' },
  destination: { icao: 'EPWA', iata: 'WAW', scheduled: '2024-03-12T09:10:00Z', actual: '2024-03-12T09:27:00Z' },
};
