// A stand-in for OpenSky Network (../shared/research/providers.md §4): an OAuth2 client-credentials
// token endpoint under /auth/token (tokens expire; a revoked one gets 401), and the REST API under
// /api: GET /flights/aircraft?icao24=<lower-case hex>&begin&end (Unix seconds, at most two days),
// 404 with an empty body when nothing is found, 429 with X-Rate-Limit-Retry-After-Seconds. Flights
// carry the distances of their first and last contact to the estimated airports, as the API's do.
import { startFixtureServer, type FixtureReply, type FixtureRequest, type FixtureServer } from './fixture-server.js';

export const OPENSKY_CLIENT_ID = 'flightstatus-test';
export const OPENSKY_CLIENT_SECRET = 'osky-secret-93e1c7';

export interface OpenSkyFlight {
  icao24: string;
  firstSeen: number;
  lastSeen: number;
  estDepartureAirport: string | null;
  estArrivalAirport: string | null;
  callsign: string | null;
  /** Metres from the estimated airports; the real API always sends them (defaults: a contact at the runway). */
  estDepartureAirportHorizDistance?: number | null;
  estDepartureAirportVertDistance?: number | null;
  estArrivalAirportHorizDistance?: number | null;
  estArrivalAirportVertDistance?: number | null;
  departureAirportCandidatesCount?: number;
  arrivalAirportCandidatesCount?: number;
}

/** A flight as the API writes it: every field present. */
const served = (f: OpenSkyFlight) => ({
  estDepartureAirportHorizDistance: 1500,
  estDepartureAirportVertDistance: 40,
  estArrivalAirportHorizDistance: 1800,
  estArrivalAirportVertDistance: 60,
  departureAirportCandidatesCount: 1,
  arrivalAirportCandidatesCount: 1,
  ...f,
});

export interface OpenSkyFixture extends FixtureServer {
  apiUrl: string;
  authUrl: string;
  flights: OpenSkyFlight[];
  /** Replies to API requests taken first, one per request. */
  script: FixtureReply[];
  /** Tokens issued so far; remove one to make the API refuse it. */
  tokens: Set<string>;
}

export async function startOpenSkyFixture(flights: OpenSkyFlight[]): Promise<OpenSkyFixture> {
  const state = { flights, script: [] as FixtureReply[], tokens: new Set<string>() };
  let issued = 0;
  const server = await startFixtureServer((request: FixtureRequest): FixtureReply => {
    if (request.path === '/auth/token') {
      const params = new URLSearchParams(request.body);
      if (request.method !== 'POST' || params.get('grant_type') !== 'client_credentials')
        return { status: 400, body: { error: 'unsupported_grant_type' } };
      if (params.get('client_id') !== OPENSKY_CLIENT_ID || params.get('client_secret') !== OPENSKY_CLIENT_SECRET) {
        return {
          status: 401,
          body: { error: 'unauthorized_client', error_description: 'Invalid client or Invalid client credentials' },
        };
      }
      const token = `tok-${++issued}`;
      state.tokens.add(token);
      return {
        status: 200,
        body: {
          access_token: token,
          expires_in: 1800,
          refresh_expires_in: 0,
          token_type: 'Bearer',
          scope: 'profile email',
        },
      };
    }
    const token = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
    if (!token || !state.tokens.has(token)) return { status: 401 };
    const scripted = state.script.shift();
    if (scripted) return scripted;
    if (request.path === '/api/flights/aircraft') {
      const icao24 = request.query.get('icao24') ?? '';
      const begin = Number(request.query.get('begin'));
      const end = Number(request.query.get('end'));
      if (!(end > begin) || end - begin > 2 * 86_400)
        return { status: 400, body: 'The time interval must be smaller than 2 days' };
      const found = state.flights.filter((f) => f.icao24 === icao24 && f.firstSeen >= begin && f.firstSeen <= end);
      return found.length === 0 ? { status: 404 } : { status: 200, body: found.map(served) };
    }
    return { status: 404 };
  });
  return Object.assign(server, { ...state, apiUrl: `${server.url}/api`, authUrl: `${server.url}/auth/token` });
}

/** The documented example: PH-EXD (4851f4) as KLM1395, EHAM → EPWA, 2024-03-12 07:51–09:21 UTC. */
export const KLM1395_SEEN: OpenSkyFlight = {
  icao24: '4851f4',
  firstSeen: 1710229860,
  lastSeen: 1710235260,
  estDepartureAirport: 'EHAM',
  estArrivalAirport: 'EPWA',
  callsign: 'KLM1395 ',
};
