// The OpenSky adapter against a local fixture server: OAuth2 client credentials, and the take-off and
// landing ADS-B saw of the aircraft of a record another provider found.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import {
  KLM1395_SEEN,
  OPENSKY_CLIENT_ID,
  OPENSKY_CLIENT_SECRET,
  startOpenSkyFixture,
  type OpenSkyFixture,
  type OpenSkyFlight,
} from '../../test/helpers/opensky-fixture.js';
import { mergeAnswers } from '../flights/merge.js';
import { classify } from '../flights/verdict.js';
import { OpenSkyProvider } from './opensky.js';
import type { FlightLookup, ProviderFlight } from './types.js';

let fixture: OpenSkyFixture;
afterEach(() => fixture?.close());

async function provider(secret = OPENSKY_CLIENT_SECRET, now = Date.parse('2024-03-14T12:00:00Z')) {
  fixture = await startOpenSkyFixture([KLM1395_SEEN]);
  return new OpenSkyProvider(
    {
      clientId: OPENSKY_CLIENT_ID,
      clientSecret: secret,
      url: fixture.apiUrl,
      authUrl: fixture.authUrl,
      requestsPerMinute: 100,
    },
    new ManualClock(now),
  );
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
  departure: {
    airport: { iata: 'AMS', icao: 'EHAM' },
    scheduled: at('2024-03-12T07:15Z'),
    estimated: null,
    actual: at('2024-03-12T07:38Z'),
    runway: '24',
    runwayAt: at('2024-03-12T07:51Z'),
  },
  arrival: {
    airport: { iata: 'WAW', icao: 'EPWA' },
    scheduled: at('2024-03-12T09:10Z'),
    estimated: null,
    actual: at('2024-03-12T09:27Z'),
    runway: '29',
    runwayAt: at('2024-03-12T09:21Z'),
  },
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
const lookup = (k: ProviderFlight | null): FlightLookup => ({
  designator: 'KL1395',
  flightDate: '2024-03-12',
  known: k,
});

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
      departure: {
        airport: { icao: 'EHAM', iata: null },
        scheduled: null,
        actual: null,
        runwayAt: at('2024-03-12T07:51Z'),
      },
      arrival: {
        airport: { icao: 'EPWA', iata: null },
        scheduled: null,
        actual: null,
        runwayAt: at('2024-03-12T09:21Z'),
      },
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
    const other = known({
      aircraft: { registration: null, icao24: 'ABCDEF', typeIcao: null, typeIata: null, label: null },
    });
    expect(await osky.lookupFlight(lookup(other))).toEqual({ outcome: 'miss' });
  });

  it('names refused client credentials without the secret; fetches a new token after a 401', async () => {
    const wrong = await provider('not-the-secret');
    const answer = await wrong.lookupFlight(lookup(known()));
    expect(answer).toMatchObject({
      outcome: 'error',
      error: { kind: 'unavailable', message: 'opensky refused the client credentials (HTTP 401)' },
    });
    expect(JSON.stringify(answer)).not.toContain('not-the-secret');
    expect((await wrong.check()).ok).toBe(false);
    await fixture.close();

    const osky = await provider();
    expect((await osky.lookupFlight(lookup(known()))).outcome).toBe('incomplete');
    fixture.tokens.clear(); // the token expired early
    expect(await osky.lookupFlight(lookup(known()))).toMatchObject({
      outcome: 'error',
      error: { kind: 'unavailable' },
    });
    expect((await osky.lookupFlight(lookup(known()))).outcome).toBe('incomplete');
    expect(fixture.requests.filter((r) => r.path === '/auth/token')).toHaveLength(2);
    expect(await osky.check()).toMatchObject({ ok: true });
  });

  it('waits out X-Rate-Limit-Retry-After-Seconds without another request', async () => {
    const osky = await provider();
    fixture.script.push({ status: 429, headers: { 'x-rate-limit-retry-after-seconds': '120' } });
    expect(await osky.lookupFlight(lookup(known()))).toMatchObject({
      outcome: 'error',
      error: { kind: 'rate_limited' },
    });
    const sent = fixture.requests.length;
    expect(await osky.lookupFlight(lookup(known()))).toMatchObject({
      outcome: 'error',
      error: { kind: 'rate_limited' },
    });
    expect(fixture.requests.length).toBe(sent);
    expect(osky.status().retryAfterMs).toBeGreaterThan(100_000);
  });
});

// Four flights as OpenSky recorded them (test/fixtures/real/opensky/SOURCES.md), replayed as the API
// answers /flights/aircraft for their aircraft.
describe('OpenSky as it really answers', () => {
  const recorded = (file: string) =>
    JSON.parse(
      readFileSync(new URL(`../../test/fixtures/real/opensky/${file}`, import.meta.url), 'utf8'),
    ) as OpenSkyFlight;
  /** A record another provider gave, its runway times within minutes of what OpenSky saw. */
  const record = (
    icao24: string,
    callsign: string,
    origin: string,
    destination: string,
    takeOff: string,
    landing: string,
  ) =>
    known({
      flightIata: null,
      callsign,
      departure: {
        airport: { iata: null, icao: origin },
        scheduled: at(takeOff) - 20 * 60_000,
        estimated: null,
        actual: at(takeOff) - 10 * 60_000,
        runway: null,
        runwayAt: at(takeOff),
      },
      arrival: {
        airport: { iata: null, icao: destination },
        scheduled: at(landing),
        estimated: null,
        actual: at(landing) + 5 * 60_000,
        runway: null,
        runwayAt: at(landing),
      },
      aircraft: { registration: null, icao24: icao24.toUpperCase(), typeIcao: null, typeIata: null, label: null },
    });

  it.each([
    // file, record, callsign, the take-off it must refuse (null: corroborated), the landing it must refuse
    [
      'bti69r-lfpg-evta-arrival-guessed-17km-zero-candidates.json',
      record('502ce6', 'BTI69R', 'LFPG', 'EVTA', '2023-10-10T08:53Z', '2023-10-10T11:08Z'),
      'BTI69R',
      null,
      /last contact \(11:04 UTC\) was 17\.7 km from EVTA and 3186 m above it/,
    ],
    [
      'afr21yb-lfpg-levt-arrival-guessed-62km-2km-up.json',
      record('39856f', 'AFR21YB', 'LFPG', 'LEVT', '2023-10-10T08:53Z', '2023-10-10T10:05Z'),
      'AFR21YB',
      null,
      /last contact \(09:52 UTC\) was 62\.5 km from LEVT and 2169 m above it/,
    ],
    [
      'afr57ag-lflw-lfpo-first-contact-9.8km-1.7km-up.json',
      record('39ad00', 'AFR57AG', 'LFLW', 'LFPO', '2022-04-11T15:58Z', '2022-04-11T17:01Z'),
      'AFR57AG',
      /first contact \(16:01 UTC\) was 9\.8 km from LFLW and 1654 m above it/,
      null,
    ],
    [
      'dlh2vc-eddf-essa-3c675a-opensky-docs-example.json',
      record('3c675a', 'DLH2VC', 'EDDF', 'ESSA', '2018-01-29T20:33Z', '2018-01-29T22:13Z'),
      'DLH2VC',
      null,
      null,
    ],
  ])(
    '%s: a contact near and low stands for the take-off or landing; one far out or high, for nothing',
    async (file, k, callsign, takeOffRefused, landingRefused) => {
      const flight = recorded(file);
      fixture = await startOpenSkyFixture([flight]);
      const day = new Date(k.departure.runwayAt!).toISOString().slice(0, 10);
      const osky = new OpenSkyProvider(
        {
          clientId: OPENSKY_CLIENT_ID,
          clientSecret: OPENSKY_CLIENT_SECRET,
          url: fixture.apiUrl,
          authUrl: fixture.authUrl,
          requestsPerMinute: 100,
        },
        new ManualClock(k.departure.runwayAt! + 3 * 86_400_000),
      );
      const answer = await osky.lookupFlight({ designator: callsign, flightDate: day, known: k });
      expect(answer.outcome).toBe('incomplete');
      const [seen] = (answer as { value: ProviderFlight[] }).value;
      expect(seen!.callsign).toBe(callsign); // the padding trimmed
      expect(seen!.departure.runwayAt).toBe(takeOffRefused ? null : flight.firstSeen * 1000);
      expect(seen!.arrival.runwayAt).toBe(landingRefused ? null : flight.lastSeen * 1000);
      const refused = [takeOffRefused, landingRefused].filter((r): r is RegExp => r !== null);
      expect(seen!.doubts ?? []).toHaveLength(refused.length);
      refused.forEach((r, i) => expect(seen!.doubts![i]).toMatch(r));

      // Through the merge: what is near corroborates (the record's runway times are within minutes), the rest is said and compared with nothing.
      const merged = mergeAnswers([
        { provider: 'aerodatabox', legs: [k] },
        { provider: 'opensky', legs: [seen!], corroborates: true },
      ])!;
      expect(merged.evidence.map((e) => [e.field, e.agrees])).toEqual([
        ...(takeOffRefused ? [] : [['takeOff', true]]),
        ...(landingRefused ? [] : [['landing', true]]),
      ]);
      expect(merged.doubts).toEqual([]);
      const rationale = classify(merged).flightDelay!.disruption.rationale.join(' ');
      for (const r of refused) expect(rationale).toMatch(r);
      expect(rationale).toMatch(
        takeOffRefused
          ? /it corroborates no take-off time/
          : /opensky saw it take off at \d\d:\d\d UTC by ADS-B, \d minutes from aerodatabox's runway time: it corroborates it\./,
      );
      expect(rationale).toMatch(
        landingRefused
          ? /it corroborates no landing time/
          : /opensky saw it land at \d\d:\d\d UTC by ADS-B, \d minutes from aerodatabox's runway time: it corroborates it\./,
      );
    },
  );

  it("takes no contact near another airport than the record's for its take-off or landing", async () => {
    fixture = await startOpenSkyFixture([{ ...KLM1395_SEEN, estArrivalAirport: 'EPKK' }]);
    const osky = new OpenSkyProvider(
      {
        clientId: OPENSKY_CLIENT_ID,
        clientSecret: OPENSKY_CLIENT_SECRET,
        url: fixture.apiUrl,
        authUrl: fixture.authUrl,
        requestsPerMinute: 100,
      },
      new ManualClock(Date.parse('2024-03-14T12:00:00Z')),
    );
    const [seen] = ((await osky.lookupFlight(lookup(known()))) as { value: ProviderFlight[] }).value;
    expect(seen!.departure.runwayAt).toBe(KLM1395_SEEN.firstSeen * 1000);
    expect(seen!.arrival.runwayAt).toBeNull();
    expect(seen!.doubts).toEqual([
      expect.stringMatching(/last contact \(09:21 UTC\) was near EPKK, not EPWA: it corroborates no landing time\./),
    ]);
  });
});
