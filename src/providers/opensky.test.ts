// The OpenSky adapter against a local fixture server: OAuth2 client credentials, and the take-off and
// landing ADS-B saw of the aircraft of a record another provider found.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { KLM1395_SEEN, OPENSKY_CLIENT_ID, OPENSKY_CLIENT_SECRET, startOpenSkyFixture, type OpenSkyFixture, type OpenSkyFlight } from '../../test/helpers/opensky-fixture.js';
import { mergeAnswers } from '../flights/merge.js';
import { classify } from '../flights/verdict.js';
import { OpenSkyProvider } from './opensky.js';
import type { FlightLookup, ProviderFlight } from './types.js';

let fixture: OpenSkyFixture;
afterEach(() => fixture?.close());

async function provider(secret = OPENSKY_CLIENT_SECRET, now = Date.parse('2024-03-14T12:00:00Z')) {
  fixture = await startOpenSkyFixture([KLM1395_SEEN]);
  return new OpenSkyProvider({ clientId: OPENSKY_CLIENT_ID, clientSecret: secret, url: fixture.apiUrl, authUrl: fixture.authUrl, requestsPerMinute: 100 }, new ManualClock(now));
}

const at = (iso: string) => Date.parse(iso);
/** What AeroDataBox gave for KL1395 (its documented example): runway times 07:51 and 09:21. */
const known = (over: Partial<ProviderFlight> = {}): ProviderFlight => ({
  provider: 'aerodatabox',
  flightIata: 'KL1395',
  flightIcao: null,
  callsign: 'KLM1395',
  airline: { name: 'KLM', iata: 'KL', icao: 'KLM' },
  operating: null,
  codeshares: [],
  operation: 'passenger',
  departure: { airport: { iata: 'AMS', icao: 'EHAM' }, scheduled: at('2024-03-12T07:15Z'), estimated: null, actual: at('2024-03-12T07:38Z'), runway: '24', runwayAt: at('2024-03-12T07:51Z') },
  arrival: { airport: { iata: 'WAW', icao: 'EPWA' }, scheduled: at('2024-03-12T09:10Z'), estimated: null, actual: at('2024-03-12T09:27Z'), runway: '29', runwayAt: at('2024-03-12T09:21Z') },
  divertedTo: null,
  phase: 'landed',
  cancelled: false,
  diverted: false,
  statusRaw: 'Arrived',
  aircraft: { registration: 'PH-EXD', icao24: '4851F4', typeIcao: null, typeIata: null, label: 'Embraer 175' },
  observedAt: at('2024-03-14T12:00Z'),
  settled: true,
  ...over,
});
const lookup = (k: ProviderFlight | null): FlightLookup => ({ designator: 'KL1395', flightDate: '2024-03-12', known: k });

describe('OpenSky', () => {
  it('answers what ADS-B saw of the known aircraft: first and last contact, nothing else', async () => {
    const osky = await provider();
    const answer = await osky.lookupFlight(lookup(known()));
    expect(answer.outcome).toBe('incomplete');
    const [seen] = (answer as { value: ProviderFlight[] }).value;
    expect(seen).toMatchObject({
      provider: 'opensky',
      flightIata: null,
      callsign: 'KLM1395',
      statusRaw: null,
      phase: 'unknown',
      settled: false,
      aircraft: { icao24: '4851F4', registration: null },
      departure: { airport: { icao: 'EHAM', iata: null }, scheduled: null, actual: null, runwayAt: at('2024-03-12T07:51Z') },
      arrival: { airport: { icao: 'EPWA', iata: null }, scheduled: null, actual: null, runwayAt: at('2024-03-12T09:21Z') },
    });
    const api = fixture.requests.filter((r) => r.path === '/api/flights/aircraft');
    expect(api).toHaveLength(1);
    expect(api[0]!.query.get('icao24')).toBe('4851f4');
    expect(Number(api[0]!.query.get('end')) - Number(api[0]!.query.get('begin'))).toBeLessThanOrEqual(2 * 86_400);
    expect(api[0]!.headers.authorization).toBe('Bearer tok-1');
    // The token is cached: a second lookup asks for none.
    await osky.lookupFlight(lookup(known()));
    expect(fixture.requests.filter((r) => r.path === '/auth/token')).toHaveLength(1);
  });

  it('asks nothing without an aircraft address, or before the nightly batch has the day', async () => {
    const osky = await provider(OPENSKY_CLIENT_SECRET, at('2024-03-12T20:00Z'));
    expect(await osky.lookupFlight(lookup(null))).toEqual({ outcome: 'miss' });
    expect(await osky.lookupFlight(lookup(known({ aircraft: null })))).toEqual({ outcome: 'miss' });
    expect(await osky.lookupFlight(lookup(known()))).toEqual({ outcome: 'miss' }); // same UTC day
    expect(fixture.requests).toHaveLength(0);
    expect(await osky.readBoard({ airport: 'AMS', board: 'departures', from: 0, to: 1 })).toEqual({ outcome: 'miss' });
    expect(await osky.lookupAircraft('PH-EXD')).toEqual({ outcome: 'miss' });
  });

  it('answers miss for its 404 with an empty body', async () => {
    const osky = await provider();
    const other = known({ aircraft: { registration: null, icao24: 'ABCDEF', typeIcao: null, typeIata: null, label: null } });
    expect(await osky.lookupFlight(lookup(other))).toEqual({ outcome: 'miss' });
  });

  it('names refused client credentials without the secret; fetches a new token after a 401', async () => {
    const wrong = await provider('not-the-secret');
    const answer = await wrong.lookupFlight(lookup(known()));
    expect(answer).toMatchObject({ outcome: 'error', error: { kind: 'unavailable', message: 'opensky refused the client credentials (HTTP 401)' } });
    expect(JSON.stringify(answer)).not.toContain('not-the-secret');
    expect((await wrong.check()).ok).toBe(false);
    await fixture.close();

    const osky = await provider();
    expect((await osky.lookupFlight(lookup(known()))).outcome).toBe('incomplete');
    fixture.tokens.clear(); // the token expired early
    expect(await osky.lookupFlight(lookup(known()))).toMatchObject({ outcome: 'error', error: { kind: 'unavailable' } });
    expect((await osky.lookupFlight(lookup(known()))).outcome).toBe('incomplete');
    expect(fixture.requests.filter((r) => r.path === '/auth/token')).toHaveLength(2);
    expect(await osky.check()).toMatchObject({ ok: true });
  });

  it('waits out X-Rate-Limit-Retry-After-Seconds without another request', async () => {
    const osky = await provider();
    fixture.script.push({ status: 429, headers: { 'x-rate-limit-retry-after-seconds': '120' } });
    expect(await osky.lookupFlight(lookup(known()))).toMatchObject({ outcome: 'error', error: { kind: 'rate_limited' } });
    const sent = fixture.requests.length;
    expect(await osky.lookupFlight(lookup(known()))).toMatchObject({ outcome: 'error', error: { kind: 'rate_limited' } });
    expect(fixture.requests.length).toBe(sent);
    expect(osky.status().retryAfterMs).toBeGreaterThan(100_000);
  });
});

// Two flights OpenSky recorded leaving Paris CDG on 2023-10-10 (test/fixtures/real/opensky/SOURCES.md),
// replayed as the API answers /flights/aircraft for their aircraft.
describe('OpenSky as it really answers', () => {
  const recorded = (file: string) =>
    JSON.parse(readFileSync(new URL(`../../test/fixtures/real/opensky/${file}`, import.meta.url), 'utf8')) as OpenSkyFlight;
  const record = (icao24: string, callsign: string, destination: string, takeOff: string, landing: string) =>
    known({
      flightIata: null,
      callsign,
      departure: { airport: { iata: 'CDG', icao: 'LFPG' }, scheduled: at('2023-10-10T08:35Z'), estimated: null, actual: at('2023-10-10T08:40Z'), runway: null, runwayAt: at(takeOff) },
      arrival: { airport: { iata: null, icao: destination }, scheduled: at('2023-10-10T11:00Z'), estimated: null, actual: at('2023-10-10T11:10Z'), runway: null, runwayAt: at(landing) },
      aircraft: { registration: null, icao24: icao24.toUpperCase(), typeIcao: null, typeIata: null, label: null },
    });

  it.each([
    // file, record, the landing it must refuse and why
    ['bti69r-lfpg-evta-arrival-guessed-17km-zero-candidates.json', record('502ce6', 'BTI69R', 'EVTA', '2023-10-10T08:53Z', '2023-10-10T11:08Z'), 'BTI69R', /last contact \(11:04 UTC\) was 17\.7 km from EVTA and 3186 m above it/],
    ['afr21yb-lfpg-levt-arrival-guessed-62km-2km-up.json', record('39856f', 'AFR21YB', 'LEVT', '2023-10-10T08:53Z', '2023-10-10T10:05Z'), 'AFR21YB', /last contact \(09:52 UTC\) was 62\.5 km from LEVT and 2169 m above it/],
  ])('%s: the first contact, near and low, stands for the take-off; the last, far out and high, for nothing', async (file, k, callsign, refused) => {
    const flight = recorded(file);
    fixture = await startOpenSkyFixture([flight]);
    const osky = new OpenSkyProvider(
      { clientId: OPENSKY_CLIENT_ID, clientSecret: OPENSKY_CLIENT_SECRET, url: fixture.apiUrl, authUrl: fixture.authUrl, requestsPerMinute: 100 },
      new ManualClock(at('2023-10-12T12:00Z')),
    );
    const answer = await osky.lookupFlight({ designator: callsign, flightDate: '2023-10-10', known: k });
    expect(answer.outcome).toBe('incomplete');
    const [seen] = (answer as { value: ProviderFlight[] }).value;
    expect(seen!.callsign).toBe(callsign); // the padding trimmed
    expect(seen!.departure.runwayAt).toBe(flight.firstSeen * 1000);
    expect(seen!.arrival.runwayAt).toBeNull();
    expect(seen!.doubts).toHaveLength(1);
    expect(seen!.doubts![0]).toMatch(refused);
    expect(seen!.doubts![0]).toMatch(/it corroborates no landing time\.$/);

    // Through the merge: the take-off corroborates, the landing is said and not compared.
    const merged = mergeAnswers([{ provider: 'aerodatabox', legs: [k] }, { provider: 'opensky', legs: [seen!], corroborates: true }])!;
    expect(merged.evidence).toEqual([expect.objectContaining({ field: 'takeOff', agrees: true })]);
    expect(merged.doubts).toEqual([]);
    const rationale = classify(merged).flightDelay!.disruption.rationale.join(' ');
    expect(rationale).toMatch(/opensky saw it take off at 08:5\d UTC by ADS-B, \d minutes from aerodatabox's runway time: it corroborates it\./);
    expect(rationale).toMatch(refused);
    expect(rationale).not.toMatch(/saw it land/);
  });

  it('takes no contact near another airport than the record\'s for its take-off or landing', async () => {
    fixture = await startOpenSkyFixture([{ ...KLM1395_SEEN, estArrivalAirport: 'EPKK' }]);
    const osky = new OpenSkyProvider(
      { clientId: OPENSKY_CLIENT_ID, clientSecret: OPENSKY_CLIENT_SECRET, url: fixture.apiUrl, authUrl: fixture.authUrl, requestsPerMinute: 100 },
      new ManualClock(Date.parse('2024-03-14T12:00:00Z')),
    );
    const [seen] = ((await osky.lookupFlight(lookup(known()))) as { value: ProviderFlight[] }).value;
    expect(seen!.departure.runwayAt).toBe(KLM1395_SEEN.firstSeen * 1000);
    expect(seen!.arrival.runwayAt).toBeNull();
    expect(seen!.doubts).toEqual([expect.stringMatching(/last contact \(09:21 UTC\) was near EPKK, not EPWA: it corroborates no landing time\./)]);
  });
});
