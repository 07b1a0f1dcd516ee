// The request line the provider receives: a base URL's path (AeroAPI's default is
// https://aeroapi.flightaware.com/aeroapi) prefixes every path, the call's query and the provider's
// fixed query (aviationstack's access_key) are both sent, encoded, and undefined values are left out.
import { afterEach, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../../test/helpers/fixture-server.js';
import { ProviderStats } from './stats.js';
import { Upstream } from './upstream.js';

let fixture: FixtureServer | undefined;
afterEach(async () => fixture?.close());

const window = () => ({ signal: new AbortController().signal, deadlineAt: performance.now() + 5000 });

describe('Upstream requests', () => {
  it("keeps the base URL's path and sends the call's and the provider's query, encoded", async () => {
    fixture = await startFixtureServer(() => ({ status: 200, body: { ok: true } }));
    const upstream = new Upstream({
      provider: 'aviationstack',
      baseUrl: `${fixture.url}/v1`,
      requestsPerMinute: 10,
      stats: new ProviderStats('aviationstack'),
      query: { access_key: 'k&y=1' },
    });
    const sent = await upstream.get('/flights', { flight_iata: 'TR 428', cursor: undefined, limit: 100, withCargo: false }, window());
    expect(sent).toEqual({ ok: true, status: 200, body: { ok: true } });
    const [request] = fixture.requests;
    expect(request!.path).toBe('/v1/flights');
    expect(Object.fromEntries(request!.query)).toEqual({ flight_iata: 'TR 428', limit: '100', withCargo: 'false', access_key: 'k&y=1' });
  });

  it('sends a bare path when the base URL has none', async () => {
    fixture = await startFixtureServer(() => ({ status: 204 }));
    const upstream = new Upstream({ provider: 'aerodatabox', baseUrl: fixture.url, requestsPerMinute: 10, stats: new ProviderStats('aerodatabox') });
    for (let i = 0; i < 3; i++) expect(await upstream.get('/airports/iata/AMS', {}, window(), [204])).toEqual({ ok: true, status: 204, body: null });
    expect(fixture.requests.map((r) => [r.path, [...r.query].length])).toEqual(Array(3).fill(['/airports/iata/AMS', 0]));
  });
});
