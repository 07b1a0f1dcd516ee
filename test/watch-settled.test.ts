// A watch ending by itself (docs/watches.md, "flight.settled"), through HTTP on both databases, on the
// manual clock over the simulated world, with a real local receiver: a watched flight's events end
// with exactly one flight.settled whose verdict is a lookup's, the watch is ended and lists it, no
// credit is taken beyond the watch's own, a second run sends nothing twice, and a watch of a flight
// that does not exist ends as not_found. The provider's flight requests are counted.
import { expect, it } from 'vitest';
import { HOUR } from '../src/clock.js';
import { loadCatalogue } from '../src/airports/index.js';
import { createSimWorld, groundTruth, SimProvider } from '../src/sim/index.js';
import type { FlightProvider } from '../src/providers/index.js';
import { verifyWebhook } from '../src/webhooks/verify.js';
import { describeEachDatabase } from './helpers/databases.js';
import { apiFor, deliveryHarness } from './helpers/webhooks.js';
import { delayedOtpDeparture } from './helpers/sim-flights.js';

// A passenger departure from OTP that the world delays, due 3 to 8 hours after the test clock's start.
const flight = delayedOtpDeparture('test', 3, 8);

/** The provider's calls by method: the board poll's reads, and the flight lookups a settle or a lookup makes. */
const calls: Record<string, number> = {};
const counted = (clock: ConstructorParameters<typeof SimProvider>[1]): FlightProvider[] => {
  const sim = new SimProvider(createSimWorld('test'), clock);
  return [
    new Proxy(sim, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls[String(property)] = (calls[String(property)] ?? 0) + 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }),
  ];
};
// A passenger flight of the next day between two catalogue airports, leaving once the first test is over.
const catalogued = groundTruth(createSimWorld('test'), '2026-03-02').find(
  (f) =>
    f.status === 'on_time' &&
    f.operation === 'passenger' &&
    loadCatalogue().find(f.destination) !== undefined &&
    f.origin === 'OTP' &&
    Date.parse(f.scheduledDeparture) > Date.parse('2026-03-02T10:00:00Z') &&
    Date.parse(f.scheduledDeparture) < Date.parse('2026-03-02T16:00:00Z'),
)!;

// Two passenger departures from OTP the day after: one watched by its number alone, one by its origin
// (which has the poll read OTP's boards, so following leaves the first to them), leaving later.
const nextDay = groundTruth(createSimWorld('test'), '2026-03-03').filter(
  (f) => f.operation === 'passenger' && f.origin === 'OTP' && f.scheduledDeparture.startsWith('2026-03-03'),
);
const leftToBoards = nextDay.find(
  (f) =>
    f.status === 'on_time' &&
    f.scheduledDeparture >= '2026-03-03T10:00' &&
    f.scheduledDeparture < '2026-03-03T14:00' &&
    nextDay.filter((o) => o.flightNumber === f.flightNumber).length === 1,
)!;
const namingOtp = nextDay.find(
  (f) => f.flightNumber !== leftToBoards.flightNumber && f.scheduledDeparture > '2026-03-03T18:00',
)!;

const flightRequests = () => (calls.lookupFlight ?? 0) + (calls.readDay ?? 0) + (calls.lookupAircraft ?? 0);

describeEachDatabase('a watch ending by itself', (kind) => {
  const h = deliveryHarness(kind, {
    webhooks: { perEndpoint: 1 },
    providers: counted,
    publicUrl: 'https://fs.example',
  });

  it('ends a watched flight’s events with one flight.settled carrying a lookup’s verdict, and ends the watch without another credit', async () => {
    expect(flight).toBeDefined();
    const account = await h.t.account();
    const api = apiFor(h.t, account.key);
    const receiver = await h.receiver();
    const created = await api('POST', '/api/v1/webhooks', {
      name: 'policies',
      url: `${receiver.url}/hook`,
      airports: [],
    });
    const endpoint = created.body.data as { id: string; secret: string };
    const asked = { flightNumber: flight.flightNumber, flightDate: flight.flightDate, origin: 'OTP' };
    const w1 = (await api('POST', '/api/v1/watches', { ...asked, reference: 'POLICY-1', endpoints: [endpoint.id] }))
      .body.data as { id: string };
    const ghost = { flightNumber: 'ZZ9876', flightDate: flight.flightDate, origin: 'OTP' };
    const w2 = (await api('POST', '/api/v1/watches', { ...ghost, reference: 'GHOST', endpoints: [endpoint.id] })).body
      .data as { id: string };
    // The same flight watched by number and date only, for another endpoint: following finds it at OTP,
    // which the poll reads for the watch above, and leaves it to the boards.
    const receiver3 = await h.receiver();
    const app3 = (await api('POST', '/api/v1/webhooks', { name: 'app', url: `${receiver3.url}/hook`, airports: [] }))
      .body.data as { id: string };
    const w3 = (
      await api('POST', '/api/v1/watches', {
        flightNumber: flight.flightNumber,
        flightDate: flight.flightDate,
        reference: 'BOOKING-3',
        endpoints: [app3.id],
      })
    ).body.data as { id: string };

    // Half-hourly passes until a day and a half after the flight date began, then the last deliveries.
    const requestsBefore = flightRequests();
    const due = Date.parse(`${flight.flightDate}T00:00:00Z`) + 30 * HOUR;
    while (h.t.clock.now() < due) {
      await h.advance(30 * 60);
    }
    await h.advance(30 * 60);
    const settleRequests = flightRequests() - requestsBefore;

    const mine = receiver.received.filter((r) => r.body.watches?.[0]?.id === w1.id);
    expect(mine.length).toBeGreaterThan(1);
    const settled = mine.filter((r) => r.body.type === 'flight.settled');
    expect(settled).toHaveLength(1);
    // The last of the watch's events (one delivery at a time per endpoint: received in queue order).
    expect(mine[mine.length - 1]!.body.type).toBe('flight.settled');
    const got = settled[0]!;
    expect(verifyWebhook(got.raw, got.headers['x-flight-signature'], endpoint.secret).id).toBe(got.body.id);
    expect(got.headers['x-flight-event-type']).toBe('flight.settled');
    expect(got.body.watches).toEqual([{ id: w1.id, reference: 'POLICY-1' }]);
    expect(got.body.data.reason).toBe('settled');
    expect(got.body.data.evidenceUrl).toBe(
      `https://fs.example/api/v1/flights/evidence?${new URLSearchParams(asked).toString()}`,
    );

    // The watches are ended and list the event; no credit was taken but the watches' own two.
    const read = (await api('GET', `/api/v1/watches/${w1.id}`)).body.data;
    expect(read).toMatchObject({ state: 'ended', endedReason: 'settled' });
    expect(read.endedAt).not.toBeNull();
    const listed = read.events.find((e: { type: string }) => e.type === 'flight.settled');
    expect(listed.deliveries).toEqual([expect.objectContaining({ endpoint: endpoint.id, state: 'delivered' })]);
    expect(read.events[0].type).toBe('flight.settled');
    const usage = await h.t.app.db.kysely
      .selectFrom('usage_log')
      .select(['endpoint'])
      .where('account_id', '=', account.accountId)
      .execute();
    expect(usage.map((u) => u.endpoint)).toEqual([
      'POST /api/v1/watches',
      'POST /api/v1/watches',
      'POST /api/v1/watches',
    ]);
    expect((await api('GET', '/api/v1/account')).body.data.credits.used).toBe(3);

    // The flight that does not exist: ended as not_found, with the not-found verdict sent once.
    // It shows the verdict it ended on, the one its flight.settled carried.
    expect(read.flight.selected).toEqual(got.body.data.selected);
    expect(read.flight.compensation).toEqual(got.body.data.compensation);
    const ghostRead = (await api('GET', `/api/v1/watches/${w2.id}`)).body.data;
    expect(ghostRead).toMatchObject({ state: 'ended', endedReason: 'not_found' });
    const ghostSent = receiver.received.filter((r) => r.body.watches?.[0]?.id === w2.id);
    expect(ghostSent.map((r) => r.body.type)).toEqual(['flight.settled']);
    expect(ghostSent[0]!.body.data).toMatchObject({ reason: 'not_found', status: 'not_found', evidenceUrl: null });

    // A second run that finds the watch active again (another worker, say) queues nothing twice.
    await h.t.app.db.kysely
      .updateTable('flight_watches')
      .set({ state: 'active', ended_reason: null, ended_at: null })
      .where('id', '=', w1.id)
      .execute();
    await h.advance(30 * 60);
    expect(
      receiver.received.filter((r) => r.body.type === 'flight.settled' && r.body.watches?.[0]?.id === w1.id),
    ).toHaveLength(1);
    const deliveries = await h.t.app.db.kysely
      .selectFrom('deliveries')
      .select('id')
      .where('event_type', '=', 'flight.settled')
      .where('endpoint_id', '=', endpoint.id)
      .execute();
    expect(deliveries).toHaveLength(2);
    expect((await api('GET', `/api/v1/watches/${w1.id}`)).body.data.state).toBe('ended');

    // The verdict is a lookup's of the same flight (this lookup takes its own credit).
    const lookup = await api('GET', `/api/v1/flights/status?${new URLSearchParams(asked).toString()}`);
    expect(lookup.status).toBe(200);
    const data = lookup.body.data;
    // The record's times and outcome (its aircraft details and status text may come from the boards' kept rows).
    const timesOf = (r: Record<string, unknown>) =>
      Object.fromEntries(
        [
          'status',
          'complete',
          'delayMinutes',
          'departureDelayMinutes',
          'scheduledDeparture',
          'scheduledArrival',
          'actualDeparture',
          'actualArrival',
        ].map((k) => [k, r[k]]),
      );
    expect(timesOf(got.body.data.selected)).toEqual(timesOf(data.selected));
    // The same judgement; its rationale and sources name where the times came from (the boards' kept
    // rows for the settle, the provider for this lookup), which is the one difference allowed.
    const judgement = ({ disruption: { rationale: _r, sources: _s, ...disruption }, ...rest }: any) => ({
      ...rest,
      disruption,
    });
    expect(judgement(got.body.data.flightDelay)).toEqual(judgement(data.flightDelay));
    expect(got.body.data.flightDelay.disruption.rationale.length).toBe(data.flightDelay.disruption.rationale.length);
    expect(got.body.data.status).toBe(data.selected.status);
    expect(got.body.data.compensation).toEqual(data.compensation ?? null);
    expect(got.body.data.circumstances).toEqual(data.circumstances ?? null);

    // Its origin's board showed it leave for an airport no board read shows: following asked the
    // provider about its arrival (docs/watches.md, "Seen leaving, landing elsewhere"), sent the watch
    // flight.landed, and the settle job answered from that answer within the hour of the landing, hours
    // before the date's 30-hour mark.
    const landed = mine.filter((r) => r.body.type === 'flight.landed');
    expect(landed).toHaveLength(1);
    expect(landed[0]!.body.data.flight).toMatchObject({
      direction: 'arrival',
      destination: { iata: flight.destination },
    });
    expect(mine.filter((r) => r.body.type === 'flight.tracked')).toHaveLength(2);
    expect(Date.parse(got.body.createdAt) - Date.parse(landed[0]!.body.createdAt)).toBeLessThanOrEqual(HOUR);
    expect(Date.parse(got.body.createdAt)).toBeLessThan(due - 3 * HOUR);
    // Provider requests (the board poll's reads apart): following's for the watched flight, and one
    // for the flight no board holds; the settle job asked nothing again for the watched one.
    const followed = await h.t.app.db.kysely
      .selectFrom('followed_flights')
      .select(['requests', 'origin'])
      .where('flight_number', '=', flight.flightNumber)
      .execute();
    const requestsOf = (origin: string | null) => Number(followed.find((r) => r.origin === origin)!.requests);
    expect(requestsOf('OTP')).toBeGreaterThanOrEqual(1);
    expect(requestsOf('OTP')).toBeLessThanOrEqual(2);
    // The watch by number only: its first question found the flight at OTP (left to the boards), the
    // later ones its arrival, as the other watch's; it got flight.landed and settled within the hour.
    expect(requestsOf(null)).toBeGreaterThanOrEqual(2);
    expect(requestsOf(null)).toBeLessThanOrEqual(3);
    expect(settleRequests).toBe(requestsOf('OTP') + requestsOf(null) + 1);
    const third = receiver3.received.filter((r) => r.body.watches?.[0]?.id === w3.id);
    const thirdTypes = third.map((r) => r.body.type as string);
    expect(thirdTypes.filter((t) => t === 'flight.landed')).toHaveLength(1);
    expect(thirdTypes.at(-1)).toBe('flight.settled');
    expect(third.at(-1)!.body.data).toMatchObject({ reason: 'settled' });
    const landed3 = third.find((r) => r.body.type === 'flight.landed')!;
    expect(Date.parse(third.at(-1)!.body.createdAt) - Date.parse(landed3.body.createdAt)).toBeLessThanOrEqual(HOUR);
  });

  it('settles a flight its boards saw land within the hour, not by its date, and sends the watch flight.landed first', async () => {
    expect(catalogued).toBeDefined();
    const account = await h.t.account();
    const api = apiFor(h.t, account.key);
    const receiver = await h.receiver();
    const endpoint = (await api('POST', '/api/v1/webhooks', { name: 'app', url: `${receiver.url}/hook`, airports: [] }))
      .body.data as { id: string };
    const asked = {
      flightNumber: catalogued.flightNumber,
      flightDate: catalogued.flightDate,
      origin: catalogued.origin,
      destination: catalogued.destination,
    };
    const watch = (await api('POST', '/api/v1/watches', { ...asked, endpoints: [endpoint.id] })).body.data as {
      id: string;
    };
    const requestsBefore = flightRequests();
    // Half-hourly until the end of the flight's date, hours before the 30-hour mark.
    const dayEnd = Date.parse(`${catalogued.flightDate}T00:00:00Z`) + 24 * HOUR;
    while (h.t.clock.now() < dayEnd) await h.advance(30 * 60);

    const types = receiver.received.map((r) => r.body.type as string);
    expect(types.filter((t) => t === 'flight.landed')).toHaveLength(1);
    expect(types.at(-1)).toBe('flight.settled');
    const landed = receiver.received.find((r) => r.body.type === 'flight.landed')!;
    const settled = receiver.received.at(-1)!;
    expect(landed.body.data.flight.direction).toBe('arrival');
    expect(landed.body.watches).toEqual([{ id: watch.id, reference: null }]);
    expect(Date.parse(settled.body.createdAt) - Date.parse(landed.body.createdAt)).toBeLessThanOrEqual(HOUR);
    expect(Date.parse(settled.body.createdAt)).toBeLessThan(dayEnd);
    expect(settled.body.data).toMatchObject({ reason: 'settled', status: 'on_time' });
    expect((await api('GET', `/api/v1/watches/${watch.id}`)).body.data).toMatchObject({
      state: 'ended',
      endedReason: 'settled',
    });
    // Both boards kept the flight's rows final: settled without a provider request.
    expect(flightRequests() - requestsBefore).toBe(0);
  }, 120_000);

  it('follows a flight left to boards the poll no longer reads through the providers again, sending nothing twice', async () => {
    const account = await h.t.account();
    const api = apiFor(h.t, account.key);
    const receiver = await h.receiver();
    const endpoint = (await api('POST', '/api/v1/webhooks', { name: 'app', url: `${receiver.url}/hook`, airports: [] }))
      .body.data as { id: string };
    const date = '2026-03-03';
    const byNumber = (
      await api('POST', '/api/v1/watches', {
        flightNumber: leftToBoards.flightNumber,
        flightDate: date,
        endpoints: [endpoint.id],
      })
    ).body.data as { id: string };
    const byOrigin = (
      await api('POST', '/api/v1/watches', {
        flightNumber: namingOtp.flightNumber,
        flightDate: date,
        origin: 'OTP',
        endpoints: [endpoint.id],
      })
    ).body.data as { id: string };
    const departs = Date.parse(leftToBoards.scheduledDeparture);
    // Following finds the first at OTP, whose boards the poll reads for the second: it leaves it to them.
    while (h.t.clock.now() < departs - 3 * HOUR) await h.advance(30 * 60);
    const left = await h.t.app.db.kysely
      .selectFrom('followed_flights')
      .select(['state'])
      .where('flight_number', '=', leftToBoards.flightNumber)
      .where('flight_date', '=', date)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(left.state).done).toBe('on_boards');
    const mine = () => receiver.received.filter((r) => r.body.watches?.[0]?.id === byNumber.id);
    expect(mine().map((r) => r.body.type)).toContain('flight.tracked');
    // The watch that had OTP read ends before the first leaves: nothing reads OTP's boards any more.
    expect((await api('DELETE', `/api/v1/watches/${byOrigin.id}`)).status).toBe(200);
    const dayEnd = Date.parse(`${date}T00:00:00Z`) + 24 * HOUR;
    while (h.t.clock.now() < dayEnd) await h.advance(30 * 60);

    const events = mine();
    const types = events.map((r) => r.body.type as string);
    const departureTracked = events.filter(
      (r) => r.body.type === 'flight.tracked' && r.body.data.flight.direction === 'departure',
    );
    // The departure's first sighting came from OTP's board and is not sent again by following.
    expect(departureTracked, types.join(',')).toHaveLength(1);
    expect(new Set(events.map((r) => r.body.event)).size).toBe(events.length);
    expect(types.filter((t) => t === 'flight.landed')).toHaveLength(1);
    expect(types.at(-1)).toBe('flight.settled');
    const landed = events.find((r) => r.body.type === 'flight.landed')!;
    const settled = events.at(-1)!;
    expect(Date.parse(settled.body.createdAt) - Date.parse(landed.body.createdAt)).toBeLessThanOrEqual(HOUR);
    expect(settled.body.data).toMatchObject({ reason: 'settled', status: 'on_time' });
    // The departure's later events carry the flight id OTP's board gave it.
    const departureIds = new Set(
      events.filter((r) => r.body.data.flight?.direction === 'departure').map((r) => r.body.data.flight.id),
    );
    expect(departureIds.size).toBe(1);
  }, 120_000);
});
