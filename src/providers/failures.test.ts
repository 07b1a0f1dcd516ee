// The ways a call fails, for every adapter that answers lookups from a provider of its own, each
// against its own fixture server (AeroDataBox's are in aerodatabox.test.ts with its other cases).
import { afterEach, describe, expect, it } from 'vitest';
import { loadReferenceAirports } from '../airports/index.js';
import { ManualClock } from '../clock.js';
import { AEROAPI_KEY, KLM1395, startAeroFixture } from '../../test/helpers/aeroapi-fixture.js';
import { AVIATIONSTACK_KEY, TR428, startAvsFixture } from '../../test/helpers/aviationstack-fixture.js';
import type { FixtureReply, FixtureServer } from '../../test/helpers/fixture-server.js';
import { AeroApiProvider } from './aeroapi.js';
import { AviationstackProvider } from './aviationstack.js';
import { bounded } from './call.js';
import { ManualTimer } from './timer.js';
import type { FlightLookup, FlightProvider } from './types.js';

interface Setup {
  fixture: FixtureServer & { script: FixtureReply[] };
  provider: FlightProvider;
  lookup: FlightLookup;
}

/** The backoff between retries passes at once: these tests are about what the tries answer. */
const skipWaits = () => new ManualTimer({ skipWaits: true });

const ADAPTERS: { name: string; start: () => Promise<Setup> }[] = [
  {
    name: 'aeroapi',
    start: async () => {
      const now = Date.parse('2024-03-14T12:00:00Z');
      const fixture = await startAeroFixture([KLM1395], now);
      const provider = new AeroApiProvider(
        { key: AEROAPI_KEY, url: fixture.url, requestsPerMinute: 100 },
        new ManualClock(now),
        loadReferenceAirports(),
        skipWaits(),
      );
      return { fixture, provider, lookup: { designator: 'KL1395', flightDate: '2024-03-12' } };
    },
  },
  {
    name: 'aviationstack',
    start: async () => {
      const fixture = await startAvsFixture([TR428]);
      const provider = new AviationstackProvider(
        { key: AVIATIONSTACK_KEY, url: fixture.url, requestsPerMinute: 100 },
        new ManualClock(Date.parse('2020-02-10T00:00:00Z')),
        loadReferenceAirports(),
        skipWaits(),
      );
      return { fixture, provider, lookup: { designator: 'TR428', flightDate: '2020-02-04', origin: 'SIN' } };
    },
  },
];

describe.each(ADAPTERS)('$name when the provider fails', ({ name, start }) => {
  let s: Setup;
  afterEach(() => s?.fixture.close());

  it('retries a 5xx within the deadline and answers once the provider recovers', async () => {
    s = await start();
    s.fixture.script.push({ status: 503, body: { message: 'unavailable' } }, { status: 502 });
    expect((await s.provider.lookupFlight(s.lookup, { timeoutMs: 5000 })).outcome).toBe('hit');
    expect(s.fixture.requests).toHaveLength(3);
  });

  it('reports a 5xx that persists', async () => {
    s = await start();
    s.fixture.script.push({ status: 500 }, { status: 500 }, { status: 500 });
    expect(await s.provider.lookupFlight(s.lookup, { timeoutMs: 5000 })).toMatchObject({
      outcome: 'error',
      error: { kind: 'unavailable', message: `${name} answered HTTP 500` },
    });
  });

  it('gives up at the deadline when the provider hangs', async () => {
    s = await start();
    s.fixture.script.push({ status: 200, body: {}, delayMs: 5000 });
    const began = performance.now();
    expect(await bounded(s.provider, 200).lookupFlight(s.lookup)).toMatchObject({
      outcome: 'error',
      error: { kind: 'timeout' },
    });
    expect(performance.now() - began).toBeLessThan(2000);
  });

  it('refuses malformed JSON', async () => {
    s = await start();
    s.fixture.script.push({ status: 200, body: '{"data": [{"flight_date": ' });
    expect(await s.provider.lookupFlight(s.lookup)).toMatchObject({
      outcome: 'error',
      error: { kind: 'bad_response', message: `${name} answered 200 with a body that is not JSON` },
    });
  });

  it('obeys a 429: no request until its Retry-After has passed', async () => {
    s = await start();
    s.fixture.script.push({ status: 429, headers: { 'retry-after': '60' } });
    expect(await s.provider.lookupFlight(s.lookup)).toMatchObject({
      outcome: 'error',
      error: { kind: 'rate_limited' },
    });
    expect(await s.provider.lookupFlight(s.lookup)).toMatchObject({
      outcome: 'error',
      error: { kind: 'rate_limited' },
    });
    expect(s.fixture.requests).toHaveLength(1);
  });
});
