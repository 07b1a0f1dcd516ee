// Following watched flights nobody's boards show (docs/watches.md, "Followed through the providers"),
// through HTTP on both databases: the service asks AeroDataBox (a stand-in serving the simulated world
// as it looks at the service's manual clock, bench/sim-adb-live.mjs, with boards, aircraft and feeds
// from bench/sim-adb.mjs) about watches of flights at airports no endpoint selects, on a schedule
// their phase sets. A real receiver gets each watch's events once each, in order, with the flight in
// `data.flight`, `flight.landed` once the arrival is in, and `flight.settled` last, sent soon after the
// landing (not by the flight date); the requests the stand-in received are counted per flight, none
// is charged a credit, the budgets hold and a 429 is waited out.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HOUR, MINUTE, type ManualClock } from '../src/clock.js';
import { loadReferenceAirports } from '../src/airports/index.js';
import { createSimWorld, groundTruth, SimProvider, type TruthFlight } from '../src/sim/index.js';
import { offsetMinutes } from '../src/providers/zones.js';
import type { ProviderFlight } from '../src/providers/index.js';
import { adbFlights, startSimAdb } from '../bench/sim-adb.mjs';
import { adbRowOf, startLiveAdb } from '../bench/sim-adb-live.mjs';
import { verifyWebhook } from '../src/webhooks/verify.js';
import { createLogger } from '../src/logger.js';
import { SETTLE_AFTER_MS, WatchFollower } from '../src/watches/index.js';
import { describeEachDatabase } from './helpers/databases.js';
import { apiFor, deliveryHarness } from './helpers/webhooks.js';

const KEY = 'adb-follow-key-47';
const DATE = '2026-03-02';
const airports = loadReferenceAirports();
const zoneOf = (iata: string | null) => (iata ? (airports.find(iata)?.timezone ?? null) : null);
const world = createSimWorld('test');
const truths = [...groundTruth(world, '2026-03-01'), ...groundTruth(world, DATE), ...groundTruth(world, '2026-03-03')];

// Single-leg passenger flights of the date, each kind of life: the ones the measure is about.
const once = new Map<string, number>();
for (const f of truths) if (f.flightDate === DATE) once.set(f.flightNumber, (once.get(f.flightNumber) ?? 0) + 1);
const pick = (status: TruthFlight['status'], n: number, from = `${DATE}T00:00`) =>
  truths
    .filter(
      (f) =>
        f.flightDate === DATE &&
        f.operation === 'passenger' &&
        once.get(f.flightNumber) === 1 &&
        f.status === status &&
        f.scheduledDeparture.slice(0, 10) === DATE &&
        f.scheduledDeparture >= from,
    )
    .slice(0, n);
// The first six on-time flights leave just after midnight: their aircraft is named at the first
// question, the evening before. Three more leave in the afternoon: named only 2 hours before.
const chosen = [
  ...pick('on_time', 6),
  ...pick('on_time', 3, `${DATE}T14:00`),
  ...pick('delayed', 2),
  ...pick('cancelled', 2),
  ...pick('diverted', 1),
];
// A departure 4 hours late or more because its aircraft was late on an earlier leg, leaving after noon
// (its aircraft is not named yet at the first question, the evening before): a prediction's flight.
const knockOn = truths.find(
  (f) =>
    f.flightDate === DATE &&
    f.operation === 'passenger' &&
    once.get(f.flightNumber) === 1 &&
    f.status === 'delayed' &&
    f.delayCause.kind === 'knock_on' &&
    f.departureDelayMinutes! >= 240 &&
    f.scheduledDeparture >= `${DATE}T12:00`,
)!;
// Watched by the local date a boarding pass shows (`dateBasis: "local"`), which is not their UTC date:
// one that leaves before local midnight's UTC (east of Greenwich), one after it (west). The number
// flies other days too, so the UTC date's own leg is another day's flight.
const localDay = (f: TruthFlight) => {
  const at = Date.parse(f.scheduledDeparture);
  return new Date(at + offsetMinutes(zoneOf(f.origin) ?? 'UTC', at) * MINUTE).toISOString().slice(0, 10);
};
const byLocalDate = (utcDate: string) =>
  truths.find(
    (f) =>
      f.operation === 'passenger' &&
      f.status === 'on_time' &&
      f.scheduledDeparture.slice(0, 10) === utcDate &&
      localDay(f) === DATE &&
      truths.filter((o) => o.flightNumber === f.flightNumber && localDay(o) === DATE).length === 1 &&
      // Its requests are counted by number: none of the flights above.
      !chosen.some((c) => c.flightNumber === f.flightNumber),
  )!;
const localChosen = [byLocalDate('2026-03-01'), byLocalDate('2026-03-03')];

describeEachDatabase('following watched flights through the providers', (kind) => {
  let clock: ManualClock | null = null;
  let sim: SimProvider;
  let boards: Awaited<ReturnType<typeof startSimAdb>>;
  let live: Awaited<ReturnType<typeof startLiveAdb>>;
  /** Flight requests per designator, as the stand-in received them. */
  const perFlight = new Map<string, number>();
  /**
   * Following's reads of an aircraft's day per registration (its window ends just after the departure:
   * 48 hours with the adapter's zone span either side; the verdicts' reads of the aircraft's day span 68).
   */
  const perAircraft = new Map<string, number>();
  let verdictAircraftReads = 0;
  /** Flights whose arrival the stand-in never gives (a provider's gap): their record never completes. */
  const noArrival = new Set<string>();
  const withoutArrival = (f: ProviderFlight): ProviderFlight =>
    noArrival.has(f.flightIata ?? '')
      ? {
          ...f,
          phase: f.phase === 'landed' ? 'departed' : f.phase,
          arrival: { ...f.arrival, actual: null },
          settled: false,
        }
      : f;

  beforeAll(async () => {
    boards = await startSimAdb(
      adbFlights(truths, (iata: string) => airports.find(iata), offsetMinutes),
      KEY,
    );
    live = await startLiveAdb(
      async (number, localDate) => {
        perFlight.set(number, (perFlight.get(number) ?? 0) + 1);
        const now = clock!.now();
        const legs: ProviderFlight[] = [];
        for (const offset of [-1, 0, 1]) {
          const utc = new Date(Date.parse(`${localDate}T00:00:00Z`) + offset * 24 * HOUR).toISOString().slice(0, 10);
          const answer = await sim.lookupFlight({ designator: number, flightDate: utc });
          if (answer.outcome === 'hit' || answer.outcome === 'incomplete') legs.push(...answer.value);
        }
        const localDay = (f: ProviderFlight) => {
          const at = f.departure.scheduled!;
          const zone = zoneOf(f.departure.airport.iata) ?? 'UTC';
          return new Date(at + offsetMinutes(zone, at) * MINUTE).toISOString().slice(0, 10);
        };
        const seen = new Set<number>();
        return legs
          .filter((f) => f.departure.scheduled !== null && localDay(f) === localDate)
          .filter((f) => !seen.has(f.departure.scheduled!) && seen.add(f.departure.scheduled!))
          .map((f) => adbRowOf(withoutArrival(f), zoneOf, offsetMinutes, now));
      },
      KEY,
      boards.url,
      (registration, from, to) => {
        if (to - from < 60 * HOUR) perAircraft.set(registration, (perAircraft.get(registration) ?? 0) + 1);
        else verdictAircraftReads++;
        const now = clock!.now();
        return world
          .flightsOfAircraft(registration, from, to, now)
          .map((f) => adbRowOf(withoutArrival(f), zoneOf, offsetMinutes, now));
      },
    );
  });
  afterAll(async () => {
    await live?.close();
    await boards?.close();
  });

  // The stand-in's address is known once it listens (beforeAll above runs first): the options are read then.
  const options: Parameters<typeof deliveryHarness>[1] & object = {
    webhooks: { perEndpoint: 1 },
    providerNames: ['aerodatabox'],
    follow: { requestsPerHour: 1000, accountRequestsPerHour: 500 },
  };
  beforeAll(() => {
    options.upstream = { aerodatabox: { key: KEY, url: live.url, requestsPerMinute: 100_000 } };
  });
  const h = deliveryHarness(kind, options);
  beforeAll(() => {
    clock = h.t.clock;
    sim = new SimProvider(createSimWorld('test'), clock);
  });

  it('follows each flight through its life with few requests, sends its events once in order, and settles it soon after it lands', async () => {
    expect(chosen.filter((f) => f.status === 'on_time')).toHaveLength(9);
    const account = await h.t.account();
    const api = apiFor(h.t, account.key);
    const receiver = await h.receiver();
    const endpoint = (
      await api('POST', '/api/v1/webhooks', { name: 'policies', url: `${receiver.url}/hook`, airports: [] })
    ).body.data as { id: string; secret: string };
    // No origin named: nobody's boards show these flights (no endpoint selects their airports).
    const rows = chosen.map((f, i) => ({
      flightNumber: f.flightNumber,
      flightDate: DATE,
      reference: `${f.status}-${i}`,
      endpoints: [endpoint.id],
    }));
    const locals = localChosen.map((f, i) => ({
      flightNumber: f.flightNumber,
      flightDate: DATE,
      dateBasis: 'local',
      reference: `local-${i}`,
      endpoints: [endpoint.id],
    }));
    const predicted = {
      flightNumber: knockOn.flightNumber,
      flightDate: DATE,
      reference: 'knock-on',
      endpoints: [endpoint.id],
    };
    const created = await api('POST', '/api/v1/watches', [...rows, ...locals, predicted]);
    expect(created.status).toBe(201);
    const watchOf = new Map<string, string>(
      (created.body.data.watches as { id: string; reference: string }[]).map((w) => [w.reference, w.id]),
    );
    const localRequestsBefore = localChosen.map((f) => perFlight.get(f.flightNumber) ?? 0);

    // Ten-minute steps from the day before until the day after the flights.
    const end = Date.parse(`${DATE}T00:00:00Z`) + 36 * HOUR;
    while (h.t.clock.now() < end) await h.advance(10 * 60);

    /** Following's requests of one flight: its own questions and the reads of its aircraft's day. */
    const requestsOf = (f: TruthFlight) =>
      (perFlight.get(f.flightNumber) ?? 0) + (perAircraft.get(f.registration!) ?? 0);
    expect(new Set([...chosen, knockOn].map((f) => f.registration)).size).toBe(chosen.length + 1);
    const measured: Record<string, number[]> = {};
    for (const [i, f] of chosen.entries()) {
      const id = watchOf.get(`${f.status}-${i}`)!;
      const mine = receiver.received.filter((r) => r.body.watches?.[0]?.id === id);
      const types = mine.map((r) => r.body.type as string);
      // Once each, in order, the first sighting first and flight.settled last.
      expect(new Set(mine.map((r) => r.body.event)).size, `${f.flightNumber} ${types.join(',')}`).toBe(mine.length);
      const times = mine.map((r) => Date.parse(r.body.createdAt));
      expect([...times].sort((a, b) => a - b)).toEqual(times);
      expect(types[0]).toBe('flight.tracked');
      expect(types.filter((t) => t === 'flight.settled')).toHaveLength(1);
      expect(types.at(-1)).toBe('flight.settled');
      for (const r of mine)
        expect(verifyWebhook(r.raw, r.headers['x-flight-signature'], endpoint.secret).id).toBe(r.body.id);
      const flightEvents = mine.filter((r) => r.body.type !== 'flight.settled');
      for (const r of flightEvents) expect(r.body.data.flight.flightNumber.replace(/\s+/g, '')).toBe(f.flightNumber);
      expect(types).not.toContain('flight.status_changed');
      const settled = mine.at(-1)!;
      expect(settled.body.data.reason).toBe('settled');
      expect(settled.body.data.status).toBe(f.status);
      // Settled within an hour of what showed the flight's end, long before the date's 30-hour mark.
      const landed = mine.find((r) => r.body.type === 'flight.landed');
      const ended = landed ?? mine.find((r) => r.body.type === 'flight.cancelled' || r.body.type === 'flight.diverted');
      expect(Date.parse(settled.body.createdAt) - Date.parse(ended!.body.createdAt)).toBeLessThanOrEqual(HOUR);
      if (f.status === 'on_time' || f.status === 'delayed') {
        expect(types.filter((t) => t === 'flight.landed')).toHaveLength(1);
        expect(landed!.body.data.flight.direction).toBe('arrival');
      }
      if (f.status === 'cancelled') expect(types).toContain('flight.cancelled');
      if (f.status === 'delayed') expect(types).toContain('flight.delayed');
      if (f.status === 'diverted') expect(types).toContain('flight.diverted');
      (measured[f.status] ??= []).push(requestsOf(f));
      // The watch lists what it was sent.
      const read = (await api('GET', `/api/v1/watches/${id}`)).body.data;
      expect(read).toMatchObject({ state: 'ended', endedReason: 'settled' });
      expect(read.events.map((e: { type: string }) => e.type).reverse()).toEqual(types);
      // And shows the flight as it ended on it, whatever its outcome (an on-time one no lookup stores).
      expect(read.flight.selected).toEqual(settled.body.data.selected);
      expect(read.flight.selected.status).toBe(f.status);
    }
    // The late aircraft's departure was predicted at its last question before it left, from its
    // aircraft's day: before the flight itself showed it 3 hours late, with what the prediction rests on.
    const mine = receiver.received.filter((r) => r.body.watches?.[0]?.id === watchOf.get('knock-on'));
    const types = mine.map((r) => r.body.type as string);
    expect(
      types.filter((t) => t === 'flight.predicted_qualifying'),
      types.join(','),
    ).toHaveLength(1);
    const prediction = mine.find((r) => r.body.type === 'flight.predicted_qualifying')!.body.data.prediction;
    expect(prediction.registration).toBe(knockOn.registration);
    expect(prediction.projectedDelayMinutes).toBeGreaterThanOrEqual(180);
    expect(prediction.minutesBeforeScheduled).toBeGreaterThanOrEqual(30);
    expect(prediction.inbound.flightNumber).toBeTruthy();
    expect(prediction.basis.length).toBeGreaterThan(0);
    expect(types.indexOf('flight.predicted_qualifying')).toBeLessThan(types.indexOf('flight.qualifying'));
    expect(types.at(-1)).toBe('flight.settled');
    expect(mine.at(-1)!.body.data.status).toBe('delayed');
    // The local-date watches were followed as the flight of their local date (not the UTC date's leg,
    // another day's flight), and settled soon after landing, not at their date's 44-hour mark.
    const localRequests: number[] = [];
    for (const [i, f] of localChosen.entries()) {
      const id = watchOf.get(`local-${i}`)!;
      const mine = receiver.received.filter((r) => r.body.watches?.[0]?.id === id);
      const types = mine.map((r) => r.body.type as string);
      expect(types[0], `${f.flightNumber} ${types.join(',')}`).toBe('flight.tracked');
      expect(types.at(-1)).toBe('flight.settled');
      expect(types.filter((t) => t === 'flight.landed')).toHaveLength(1);
      const tracked = mine[0]!.body.data.flight;
      expect(tracked.scheduledAt).toBe(new Date(Date.parse(f.scheduledDeparture)).toISOString());
      const settled = mine.at(-1)!.body.data;
      expect(settled).toMatchObject({ reason: 'settled', status: 'on_time', flightDate: DATE });
      expect(settled.selected.scheduledDeparture).toBe(new Date(Date.parse(f.scheduledDeparture)).toISOString());
      const landed = mine.find((r) => r.body.type === 'flight.landed')!;
      expect(Date.parse(mine.at(-1)!.body.createdAt) - Date.parse(landed.body.createdAt)).toBeLessThanOrEqual(HOUR);
      localRequests.push((perFlight.get(f.flightNumber) ?? 0) - localRequestsBefore[i]!);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    // The measure (docs/performance.md, "Following a watched flight"): priced flight requests per flight.
    console.log(
      `[${kind}] AeroDataBox flight requests per followed flight:`,
      Object.fromEntries(Object.entries(measured).map(([k, v]) => [k, { each: v, mean: mean(v) }])),
      'local-date watches:',
      localRequests,
      "reads of an aircraft's day, following's:",
      Object.fromEntries(perAircraft),
      "the verdicts':",
      verdictAircraftReads,
      'the predicted departure:',
      { flight: perFlight.get(knockOn.flightNumber), aircraft: perAircraft.get(knockOn.registration!) },
      'boards, aircraft and feeds for the verdicts:',
      boards.requests,
    );
    expect(mean(measured.on_time!)).toBeLessThanOrEqual(6);
    // Every flight request was following's, counted on its flight (the refused one too: it counts
    // against a quota); the verdicts asked for none again.
    const followed = await h.t.app.db.kysely.selectFrom('followed_flights').select('requests').execute();
    const following = live.requests.aircraft - verdictAircraftReads;
    expect(followed.reduce((n, r) => n + Number(r.requests), 0)).toBe(
      live.requests.flight + following + live.requests.refused,
    );
    // The prediction cost one read of the aircraft's day, besides the flight's own questions.
    expect(perAircraft.get(knockOn.registration!)).toBe(1);
    // No credit but the watches' own.
    expect((await api('GET', '/api/v1/account')).body.data.credits.used).toBe(chosen.length + localChosen.length + 1);
  }, 180_000);

  it('asks no more than the budgets allow in an hour, globally and per account, and asks the rest the next hour', async () => {
    const now = h.t.clock.now();
    const today = new Date(now).toISOString().slice(0, 10);
    const later = groundTruth(world, today).filter(
      (f) => f.operation === 'passenger' && Date.parse(f.scheduledDeparture) > now + 4 * HOUR,
    );
    const numbers = [...new Set(later.map((f) => f.flightNumber))].slice(0, 6);
    const follower = new WatchFollower({
      db: h.t.app.db,
      clock: h.t.clock,
      logger: createLogger('silent'),
      providers: [new SimProvider(createSimWorld('test'), h.t.clock)],
      airports,
      catalogue: () => null,
      polled: async () => [],
      publish: async () => 0,
      budgets: { requestsPerHour: 3, accountRequestsPerHour: 2 },
      intervalMs: 5 * 60_000,
      providerTimeoutMs: 5000,
    });
    const ids: string[] = [];
    for (const group of [numbers.slice(0, 3), numbers.slice(3)]) {
      const account = await h.t.account();
      const api = apiFor(h.t, account.key);
      const endpoint = (
        await api('POST', '/api/v1/webhooks', { name: 'b', url: 'http://127.0.0.1:9/hook', airports: [] })
      ).body.data as { id: string };
      const made = await api(
        'POST',
        '/api/v1/watches',
        group.map((n) => ({ flightNumber: n, flightDate: today, endpoints: [endpoint.id] })),
      );
      ids.push(...(made.body.data.watches as { id: string }[]).map((w) => w.id));
    }
    // Each flight has its row from the request that made its watch, before any run.
    const enrolled = () =>
      h.t.app.db.kysely
        .selectFrom('followed_flights')
        .select(['flight_number', 'next_at', 'requests'])
        .where('flight_number', 'in', numbers)
        .where('flight_date', '=', today)
        .execute();
    expect((await enrolled()).map((r) => r.flight_number).sort()).toEqual([...numbers].sort());
    const before = await follower.budget.used('*', now);
    const report = await follower.run(now, new AbortController().signal);
    // Each question is one request of the simulated world: three asked (two of one account's, one of
    // the other's), three left for the next hour.
    expect(report).toMatchObject({ asked: 3, requests: 3, deferred: 3 });
    expect((await follower.budget.used('*', now)) - before).toBe(3);
    const nextHour = Math.floor(now / HOUR) * HOUR + HOUR;
    const rows = await enrolled();
    expect(rows.filter((r) => Number(r.requests) === 0).map((r) => Number(r.next_at))).toEqual([
      nextHour,
      nextHour,
      nextHour,
    ]);
    // The next hour the budgets have room again.
    const again = await follower.run(nextHour, new AbortController().signal);
    expect(again.deferred).toBe(0);
    expect(again.asked).toBeGreaterThanOrEqual(3);
    for (const id of ids) {
      const owner = await h.t.app.db.kysely
        .selectFrom('flight_watches')
        .select('account_id')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      await h.t.app.db.kysely
        .updateTable('flight_watches')
        .set({ state: 'stopped', ended_at: now })
        .where('id', '=', id)
        .where('account_id', '=', owner.account_id)
        .execute();
    }
    // Watched no more, each flight is forgotten when it is next due (a new watch of it starts afresh).
    const waiting = (await enrolled()).filter((r) => r.next_at !== null);
    expect(waiting.length).toBeGreaterThan(0);
    const lastDue = Math.max(...waiting.map((r) => Number(r.next_at)));
    expect(await follower.run(lastDue, new AbortController().signal)).toMatchObject({ asked: 0 });
    expect((await enrolled()).filter((r) => r.next_at !== null)).toEqual([]);
  }, 180_000);

  it('asks about a record that never completes less and less often, and at last ends its watch as it stands', async () => {
    const now = h.t.clock.now();
    const day = new Date(now + 24 * HOUR).toISOString().slice(0, 10);
    const flight = groundTruth(world, day).find(
      (f) => f.operation === 'passenger' && f.status === 'on_time' && f.scheduledDeparture.slice(0, 10) === day,
    )!;
    noArrival.add(flight.flightNumber);
    const account = await h.t.account();
    const api = apiFor(h.t, account.key);
    const receiver = await h.receiver();
    const endpoint = (await api('POST', '/api/v1/webhooks', { name: 'gap', url: `${receiver.url}/hook`, airports: [] }))
      .body.data as { id: string };
    const watch = (
      await api('POST', '/api/v1/watches', {
        flightNumber: flight.flightNumber,
        flightDate: day,
        endpoints: [endpoint.id],
      })
    ).body.data as { id: string };
    const firstDue = Date.parse(`${day}T00:00:00Z`) + SETTLE_AFTER_MS;
    const requestsBefore = perFlight.get(flight.flightNumber) ?? 0;
    // Its first question finds the provider refusing (429, Retry-After 1 s): it is waited out.
    live.refuse(1, 1);
    const refusedBefore = live.requests.refused;
    // Hourly until following has left it to the settle job, then for the week after.
    while (h.t.clock.now() < firstDue + HOUR) await h.advance(60 * 60);
    const following = await h.t.app.db.kysely
      .selectFrom('followed_flights')
      .select(['requests', 'next_at'])
      .where('flight_number', '=', flight.flightNumber)
      .where('flight_date', '=', day)
      .executeTakeFirstOrThrow();
    expect(following.next_at).toBeNull();
    expect(live.requests.refused - refusedBefore).toBe(1);
    while (h.t.clock.now() < firstDue + 6 * 24 * HOUR) await h.advance(60 * 60);

    const read = (await api('GET', `/api/v1/watches/${watch.id}`)).body.data;
    expect(read).toMatchObject({ state: 'ended', endedReason: 'incomplete' });
    // Asked at its date's mark, then after 1, 2, 4, 8, 16, 24 and 24 hours: ended on the eighth incomplete answer.
    const waited = [1, 2, 4, 8, 16, 24, 24].reduce((a, b) => a + b, 0) * HOUR;
    expect(Date.parse(read.endedAt)).toBeGreaterThanOrEqual(firstDue + waited);
    expect(Date.parse(read.endedAt)).toBeLessThan(firstDue + waited + 2 * HOUR);
    const types = receiver.received.map((r) => r.body.type as string);
    expect(types.filter((t) => t === 'flight.settled')).toHaveLength(1);
    expect(types.at(-1)).toBe('flight.settled');
    expect(types).not.toContain('flight.landed');
    const settled = receiver.received.at(-1)!.body.data;
    expect(settled).toMatchObject({ reason: 'incomplete' });
    expect(settled.selected.complete).toBe(false);
    // Following backed off too, and left the flight to the settle job at its date's mark: a bounded number of questions.
    const asked = (perFlight.get(flight.flightNumber) ?? 0) - requestsBefore;
    console.log(
      `[${kind}] flight requests for a record that never completed: ${asked}, following's ${following.requests}, the settle job's the rest`,
    );
    expect(Number(following.requests)).toBeLessThanOrEqual(24);
    expect(asked).toBeLessThanOrEqual(40);
  }, 180_000);
});
