// OpenSky Network behind the provider interface, as what it can be: a witness. It has no schedules,
// flight numbers, statuses or cancellations, only what ADS-B receivers saw of an aircraft, so it
// never answers a lookup on its own. Given the record other providers found (`known`, with the
// aircraft's ICAO 24-bit address), it finds that aircraft's flight in GET /flights/aircraft and
// answers its first and last contact as the take-off and landing it saw; the lookup compares them
// with the record's runway times (docs/providers.md, "OpenSky"). Boards and aircraft: not covered,
// nor a past day's board (readBoardDay): its flights by airport have no schedule to be late against
// and no flight that did not fly (docs/providers.md, "A past day's boards").
// Authentication: OAuth2 client credentials; the token is cached until shortly before it expires and
// fetched again after a 401.
import { request } from 'undici';
import { utcTime, type Clock } from '../clock.js';
import { failed, isObject, malformed, measured, statusOf, str } from './measured.js';
import { ProviderStats } from './stats.js';
import type {
  AircraftRecord,
  Answer,
  BoardRead,
  BoardRow,
  CallOptions,
  CheckResult,
  FlightLookup,
  FlightProvider,
  ProviderError,
  ProviderFlight,
  ProviderStatus,
} from './types.js';
import { Upstream } from './upstream.js';
import { abortError, withDeadline } from './call.js';

export const OPENSKY_URL = 'https://opensky-network.org/api';
export const OPENSKY_AUTH_URL =
  'https://auth.opensky-network.org/auth/realms/opensky-network/protocol/openid-connect/token';
/** A user's 4,000 daily credits buy about 1,000 /flights calls (4 credits each for the last 24 h). */
export const OPENSKY_REQUESTS_PER_MINUTE = 5;
/** OpenSky builds its flights in a nightly batch: nothing of the current UTC day is there yet. */
const DAY = 86_400_000;
/** /flights/aircraft spans at most two days. */
const MAX_SPAN_S = 2 * 86_400;
/** How far before departure and after arrival the aircraft's flights are looked for. */
const MARGIN_MS = 3 * 3_600_000;
/** A token is renewed this long before it expires. */
const TOKEN_EARLY_MS = 60_000;
/**
 * How close to its airport a first or last contact must be to stand for the take-off or landing.
 * OpenSky's first and last contacts are where receivers first and last heard the aircraft, reported
 * with their distance to the airport it estimated (`est…AirportHorizDistance`, `…VertDistance`, m).
 * Within 10 km and 600 m of it, an aircraft is on its first climb or final approach (a 3° glide path
 * is about 520 m up 10 km out), at most two or three minutes from the runway at 70 m/s: well inside
 * the 10 minutes the comparison allows (CORROBORATION_MINUTES). DLH 2VC's last contact, 7.2 km out and
 * 423 m up, is its final approach; AFR 57AG's first, 9.8 km out and 1,654 m up, is not its take-off.
 * Farther out or higher, the contact is not a take-off or landing and corroborates nothing.
 */
export const CONTACT_TOLERANCE = { horizontalMetres: 10_000, verticalMetres: 600 } as const;

export interface OpenSkySettings {
  clientId: string;
  clientSecret: string;
  url: string;
  authUrl: string;
  requestsPerMinute: number;
}

/** The OAuth2 client-credentials token, shared by concurrent calls, renewed before it expires. */
class TokenSource {
  private token: { value: string; until: number } | null = null;
  private pending: Promise<{ headers: Record<string, string> } | { error: ProviderError }> | null = null;

  constructor(
    private readonly s: OpenSkySettings,
    private readonly stats: ProviderStats,
  ) {}

  invalidate(): void {
    this.token = null;
  }

  headers(signal: AbortSignal): Promise<{ headers: Record<string, string> } | { error: ProviderError }> {
    if (this.token && performance.now() < this.token.until)
      return Promise.resolve({ headers: { authorization: `Bearer ${this.token.value}` } });
    this.pending ??= this.fetch(signal).finally(() => (this.pending = null));
    return this.pending;
  }

  private async fetch(signal: AbortSignal): Promise<{ headers: Record<string, string> } | { error: ProviderError }> {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.s.clientId,
      client_secret: this.s.clientSecret,
    });
    this.stats.request();
    try {
      const response = await request(this.s.authUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        signal,
      });
      const text = await response.body.text();
      if (response.statusCode === 400 || response.statusCode === 401 || response.statusCode === 403) {
        return {
          error: {
            kind: 'unavailable',
            message: `opensky refused the client credentials (HTTP ${response.statusCode})`,
          },
        };
      }
      if (response.statusCode !== 200)
        return {
          error: { kind: 'unavailable', message: `opensky's token service answered HTTP ${response.statusCode}` },
        };
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return {
          error: { kind: 'bad_response', message: "opensky's token service answered with a body that is not JSON" },
        };
      }
      const value = isObject(body) ? str(body.access_token) : null;
      if (!value)
        return { error: { kind: 'bad_response', message: "opensky's token service answered without an access_token" } };
      const seconds = isObject(body) && typeof body.expires_in === 'number' ? body.expires_in : 1800;
      this.token = { value, until: performance.now() + Math.max(0, seconds * 1000 - TOKEN_EARLY_MS) };
      return { headers: { authorization: `Bearer ${value}` } };
    } catch (error) {
      if (signal.aborted) return { error: abortError(signal) };
      const code = (error as { code?: string } | null)?.code;
      return {
        error: { kind: 'unavailable', message: `opensky's token service: network error${code ? ` (${code})` : ''}` },
      };
    }
  }
}

export class OpenSkyProvider implements FlightProvider {
  readonly name = 'opensky';
  readonly corroborates = true;
  readonly stats = new ProviderStats('opensky');
  readonly upstream: Upstream;
  private readonly tokens: TokenSource;

  constructor(
    private readonly settings: OpenSkySettings,
    private readonly clock: Clock,
  ) {
    this.tokens = new TokenSource(settings, this.stats);
    this.upstream = new Upstream({
      provider: this.name,
      baseUrl: settings.url.replace(/\/+$/, ''),
      requestsPerMinute: settings.requestsPerMinute,
      stats: this.stats,
      authorize: (signal) => this.tokens.headers(signal),
      onUnauthorized: () => this.tokens.invalidate(),
      secrets: [settings.clientSecret],
    });
  }

  status(): ProviderStatus {
    return statusOf(this.name, this.settings.url, this.settings.requestsPerMinute, this.upstream, this.stats);
  }

  /** A token from the client credentials: no credits spent. */
  async check(options?: CallOptions): Promise<CheckResult> {
    const began = performance.now();
    const answer = await withDeadline<null>(
      { signal: options?.signal, timeoutMs: options?.timeoutMs ?? 8000 },
      async (signal) => {
        this.tokens.invalidate();
        const token = await this.tokens.headers(signal);
        return 'error' in token ? { outcome: 'error', error: token.error } : { outcome: 'hit', value: null };
      },
    );
    const durationMs = Math.round(performance.now() - began);
    return answer.outcome === 'error'
      ? { ok: false, message: answer.error.message, durationMs }
      : { ok: true, message: `issued a token in ${durationMs} ms; the client credentials work`, durationMs };
  }

  lookupFlight(lookup: FlightLookup, options?: CallOptions): Promise<Answer<ProviderFlight[]>> {
    return measured<ProviderFlight[]>(this.upstream, this.clock, 'flight', options, async (window) => {
      const known = lookup.known;
      const icao24 = known?.aircraft?.icao24?.toLowerCase() ?? null;
      const departure = known
        ? (known.departure.runwayAt ?? known.departure.actual ?? known.departure.scheduled)
        : null;
      if (!known || !icao24 || !/^[0-9a-f]{6}$/.test(icao24) || departure === null) return { outcome: 'miss' };
      const now = this.clock.now();
      if (departure >= Math.floor(now / DAY) * DAY) return { outcome: 'miss' }; // tonight's batch will have it
      const arrival =
        known.arrival.runwayAt ?? known.arrival.actual ?? known.arrival.scheduled ?? departure + 12 * 3_600_000;
      const begin = Math.floor((departure - MARGIN_MS) / 1000);
      const end = Math.min(Math.ceil((arrival + MARGIN_MS) / 1000), begin + MAX_SPAN_S);
      const sent = await this.upstream.get('/flights/aircraft', { icao24, begin, end }, window, [200, 404]);
      if (!sent.ok) return failed(sent);
      if (sent.status === 404 || sent.body === null) return { outcome: 'miss' };
      if (!Array.isArray(sent.body)) return malformed(this.name, 'a flight list');
      // The aircraft's flight nearest the record's departure, within three hours, from its airport when both name it.
      const origin = known.departure.airport.icao;
      const candidates = sent.body
        .filter(isObject)
        .filter((f) => typeof f.firstSeen === 'number' && typeof f.lastSeen === 'number')
        .filter((f) => !origin || !str(f.estDepartureAirport) || str(f.estDepartureAirport) === origin)
        .map((f) => ({ f, distance: Math.abs((f.firstSeen as number) * 1000 - departure) }))
        .filter((c) => c.distance <= MARGIN_MS)
        .sort((a, b) => a.distance - b.distance);
      // The operating flight's callsign breaks a tie (a codeshare's record carries the operator's).
      const callsign = known.callsign?.toUpperCase() ?? null;
      const seen =
        (callsign && candidates.find((c) => str(c.f.callsign)?.toUpperCase() === callsign)?.f) || candidates[0]?.f;
      if (!seen) return { outcome: 'miss' };
      return { outcome: 'incomplete', value: [this.witness(seen, icao24, now, known)] };
    });
  }

  /**
   * What OpenSky saw: first and last contact as take-off and landing where they lie within
   * CONTACT_TOLERANCE of the record's airports, and nothing it cannot know. A contact that does not is
   * left out (`runwayAt: null`) and said in `doubts`, so the rationale names it; it does not make the
   * record doubtful, since OpenSky only corroborates.
   */
  private witness(f: Record<string, unknown>, icao24: string, now: number, known: ProviderFlight): ProviderFlight {
    const doubts: string[] = [];
    const end = (which: 'departure' | 'arrival') => {
      const prefix = which === 'departure' ? 'Departure' : 'Arrival';
      const airport = str(f[`est${prefix}Airport`])?.toUpperCase() ?? null;
      const at = (which === 'departure' ? (f.firstSeen as number) : (f.lastSeen as number)) * 1000;
      const horizontal =
        typeof f[`est${prefix}AirportHorizDistance`] === 'number'
          ? (f[`est${prefix}AirportHorizDistance`] as number)
          : null;
      const vertical =
        typeof f[`est${prefix}AirportVertDistance`] === 'number'
          ? (f[`est${prefix}AirportVertDistance`] as number)
          : null;
      const expected = known[which].airport.icao;
      const contact = which === 'departure' ? 'first contact' : 'last contact';
      const event = which === 'departure' ? 'take-off' : 'landing';
      let problem: string | null = null;
      if (!airport || horizontal === null || vertical === null)
        problem = `OpenSky estimated no airport for its ${contact} (${utcTime(at)})`;
      else if (expected && airport !== expected)
        problem = `its ${contact} (${utcTime(at)}) was near ${airport}, not ${expected}`;
      else if (horizontal > CONTACT_TOLERANCE.horizontalMetres || vertical > CONTACT_TOLERANCE.verticalMetres)
        problem = `its ${contact} (${utcTime(at)}) was ${(horizontal / 1000).toFixed(1)} km from ${airport} and ${Math.round(vertical)} m above it, beyond the ${CONTACT_TOLERANCE.horizontalMetres / 1000} km and ${CONTACT_TOLERANCE.verticalMetres} m within which a contact stands for the ${event}`;
      if (problem) doubts.push(`${problem[0]!.toUpperCase()}${problem.slice(1)}: it corroborates no ${event} time.`);
      return {
        airport: { iata: null, icao: airport },
        scheduled: null,
        estimated: null,
        actual: null,
        runway: null,
        runwayAt: problem ? null : at,
      };
    };
    const departure = end('departure');
    const arrival = end('arrival');
    return {
      provider: this.name,
      flightIata: null,
      flightIcao: null,
      // Callsigns are space-padded to 8 characters (str trims them).
      callsign: str(f.callsign)?.toUpperCase() ?? null,
      airline: { name: null, iata: null, icao: null },
      operating: null,
      codeshares: [],
      operation: 'passenger',
      departure,
      arrival,
      divertedTo: null,
      phase: 'unknown',
      cancelled: false,
      diverted: false,
      statusRaw: null,
      aircraft: { registration: null, icao24: icao24.toUpperCase(), typeIcao: null, typeIata: null, label: null },
      observedAt: now,
      settled: false,
      ...(doubts.length > 0 ? { doubts } : {}),
    };
  }

  /** OpenSky has no boards of scheduled flights. */
  readBoard(_read: BoardRead, options?: CallOptions): Promise<Answer<BoardRow[]>> {
    return measured<BoardRow[]>(this.upstream, this.clock, 'board', options, async () => ({ outcome: 'miss' }));
  }

  /** Nor registrations. */
  lookupAircraft(_registration: string, options?: CallOptions): Promise<Answer<AircraftRecord>> {
    return measured<AircraftRecord>(this.upstream, this.clock, 'aircraft', options, async () => ({ outcome: 'miss' }));
  }
}
