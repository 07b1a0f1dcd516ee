// The request line the provider receives: a base URL's path (AeroAPI's default is
// https://aeroapi.flightaware.com/aeroapi) prefixes every path, the call's query and the provider's
// fixed query (aviationstack's access_key) are both sent, encoded, and undefined values are left out.
// A 429's Retry-After, capped at 15 minutes, then one probing call, and the per-minute budget's wait,
// on a manual timer: no test here sleeps.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MINUTE } from '../clock.js';
import { startFixtureServer, type FixtureReply, type FixtureServer } from '../../test/helpers/fixture-server.js';
import { ProviderStats } from './stats.js';
import { ManualTimer } from './timer.js';
import { MAX_RETRY_AFTER_MS, Upstream } from './upstream.js';

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
    const sent = await upstream.get(
      '/flights',
      { flight_iata: 'TR 428', cursor: undefined, limit: 100, withCargo: false },
      window(),
    );
    expect(sent).toEqual({ ok: true, status: 200, body: { ok: true } });
    const [request] = fixture.requests;
    expect(request!.path).toBe('/v1/flights');
    expect(Object.fromEntries(request!.query)).toEqual({
      flight_iata: 'TR 428',
      limit: '100',
      withCargo: 'false',
      access_key: 'k&y=1',
    });
  });

  it('sends a bare path when the base URL has none', async () => {
    fixture = await startFixtureServer(() => ({ status: 204 }));
    const upstream = new Upstream({
      provider: 'aerodatabox',
      baseUrl: fixture.url,
      requestsPerMinute: 10,
      stats: new ProviderStats('aerodatabox'),
    });
    for (let i = 0; i < 3; i++)
      expect(await upstream.get('/airports/iata/AMS', {}, window(), [204])).toEqual({
        ok: true,
        status: 204,
        body: null,
      });
    expect(fixture.requests.map((r) => [r.path, [...r.query].length])).toEqual(
      Array(3).fill(['/airports/iata/AMS', 0]),
    );
  });
});

describe('Upstream after a 429', () => {
  const setup = async (script: (FixtureReply | Promise<FixtureReply>)[]) => {
    const served = await startFixtureServer(() => script.shift() ?? { status: 200, body: { ok: true } });
    fixture = served;
    const clock = new ManualTimer();
    const upstream = new Upstream({
      provider: 'aeroapi',
      baseUrl: served.url,
      requestsPerMinute: 1000,
      stats: new ProviderStats('aeroapi'),
      clock,
    });
    return {
      served,
      clock,
      upstream,
      get: () => upstream.get('/flights/KL1395', {}, upstream.window(new AbortController().signal, 5000)),
    };
  };

  it('waits at most 15 minutes whatever Retry-After asks, then asks the provider again', async () => {
    expect(MAX_RETRY_AFTER_MS).toBe(15 * MINUTE);
    const { served, clock, upstream, get } = await setup([{ status: 429, headers: { 'retry-after': '999999' } }]);
    const first = await get();
    expect(first).toMatchObject({ ok: false, error: { kind: 'rate_limited' } });
    expect(first.ok ? '' : first.error.message).toBe(
      'aeroapi answered 429; no call before 900 s (it asked for 999999 s; 15 minutes at most, then one call probes it)',
    );
    expect(upstream.state().retryAfterMs).toBe(15 * MINUTE);

    clock.advance(15 * MINUTE - 1);
    expect(await get()).toMatchObject({
      ok: false,
      error: { kind: 'rate_limited', message: 'aeroapi asked to wait 1 s more (429 Retry-After)' },
    });
    expect(served.requests).toHaveLength(1);

    clock.advance(1);
    expect(await get()).toEqual({ ok: true, status: 200, body: { ok: true } });
    expect(await get()).toEqual({ ok: true, status: 200, body: { ok: true } });
    expect(served.requests).toHaveLength(3);
    expect(upstream.state()).toEqual({ circuit: 'closed', retryAfterMs: 0 });
  });

  it('backs off again when the probe gets another 429, and lets only the probe through meanwhile', async () => {
    // The probe's answer is held until the test lets it go, so a second call arrives while it is in flight.
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    const { served, clock, get } = await setup([
      { status: 429, headers: { 'retry-after': '999999' } },
      held.then(() => ({ status: 429, headers: { 'retry-after': '120' } })),
    ]);
    await get();
    clock.advance(15 * MINUTE + 1);
    const probe = get();
    // While the probe is out, the others are refused unsent.
    const other = await get();
    answer();
    expect(other).toMatchObject({
      ok: false,
      error: {
        kind: 'rate_limited',
        message: 'aeroapi is being asked again after a 429; other calls wait for its answer',
      },
    });
    expect(await probe).toMatchObject({
      ok: false,
      error: { kind: 'rate_limited', message: 'aeroapi answered 429; no call before 120 s' },
    });
    expect(served.requests).toHaveLength(2);

    clock.advance(119_000);
    expect((await get()).ok).toBe(false);
    expect(served.requests).toHaveLength(2);
    clock.advance(1000);
    expect((await get()).ok).toBe(true);
    expect(served.requests).toHaveLength(3);
  });
});

describe('Upstream under its per-minute limit', () => {
  it('holds a call past the limit until a slot frees, and refuses one whose deadline comes first', async () => {
    fixture = await startFixtureServer(() => ({ status: 200, body: { ok: true } }));
    const clock = new ManualTimer();
    const upstream = new Upstream({
      provider: 'aeroapi',
      baseUrl: fixture.url,
      requestsPerMinute: 1,
      stats: new ProviderStats('aeroapi'),
      clock,
    });
    const get = (timeoutMs: number) =>
      upstream.get('/flights/KL1395', {}, upstream.window(new AbortController().signal, timeoutMs));
    expect((await get(5000)).ok).toBe(true);
    expect(await get(5000)).toMatchObject({
      ok: false,
      error: {
        kind: 'rate_limited',
        message: 'aeroapi: 1 requests a minute reached (FLIGHTSTATUS_AEROAPI_REQUESTS_PER_MINUTE)',
      },
    });

    const waited = get(2 * MINUTE);
    await vi.waitFor(() => expect(clock.waiting).toBe(1));
    expect(fixture.requests).toHaveLength(1);
    clock.advance(MINUTE); // the first request is still within the last minute
    await Promise.resolve();
    expect(clock.waiting).toBe(1);
    clock.advance(1);
    expect(await waited).toEqual({ ok: true, status: 200, body: { ok: true } });
    expect(fixture.requests).toHaveLength(2);
  });

  it("leaves a quarter of the minute to single lookups: a batch's call waits at three quarters, a single lookup does not, and both are counted", async () => {
    fixture = await startFixtureServer(() => ({ status: 200, body: { ok: true } }));
    const clock = new ManualTimer();
    const upstream = new Upstream({
      provider: 'aerodatabox',
      baseUrl: fixture.url,
      requestsPerMinute: 8,
      stats: new ProviderStats('aerodatabox'),
      clock,
    });
    const meter = { requests: 0 };
    const background = (timeoutMs: number) =>
      upstream.get(
        '/flights/number/KL1395/2024-03-12',
        {},
        upstream.window(new AbortController().signal, timeoutMs, { meter, background: true }),
      );
    const single = () =>
      upstream.get('/flights/number/KL1395/2024-03-12', {}, upstream.window(new AbortController().signal, 5000));
    for (let i = 0; i < 6; i++) expect((await background(5000)).ok).toBe(true);
    expect(meter.requests).toBe(6);
    // Six of eight sent: the batch waits for the minute to move on, a single lookup goes at once.
    const waiting = background(2 * MINUTE);
    await vi.waitFor(() => expect(clock.waiting).toBe(1));
    expect((await single()).ok).toBe(true);
    expect((await single()).ok).toBe(true);
    expect(fixture.requests).toHaveLength(8);
    clock.advance(MINUTE + 1);
    expect((await waiting).ok).toBe(true);
    expect(meter.requests).toBe(7);
  });
});
