// Why it was late, end to end on the simulated world, as a new user sees it: disrupted flights looked
// up through the API carry `data.circumstances` naming the cause the world really applied (its ground
// truth's delayCause), with the reports and the leg that prove it; the boards of a watched airport give
// the airport-wide figures (a strike at Luton on 20 February in the `test` world); replays keep what
// was stored; with the weather off the verdict says it does not know.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HOUR } from '../src/clock.js';
import { groundTruth, type SimWorld, type TruthFlight } from '../src/sim/index.js';
import { describeEachDatabase } from './helpers/databases.js';
import { providerCalls } from './helpers/metrics.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';

const DATE = '2026-02-20';

/** A passenger flight of the day whose number flies once, 3 hours or more late, cancelled or diverted, for this cause. */
function pick(world: SimWorld, kind: string, test: (f: TruthFlight) => boolean = () => true, date = DATE): TruthFlight {
  const day = groundTruth(world, date);
  const legs = new Map<string, number>();
  for (const f of day) legs.set(f.flightNumber, (legs.get(f.flightNumber) ?? 0) + 1);
  const found = day.find(
    (f) =>
      f.operation === 'passenger' &&
      legs.get(f.flightNumber) === 1 &&
      f.delayCause.kind === kind &&
      (f.status !== 'delayed' || f.arrivalDelayMinutes! >= 180) &&
      test(f),
  );
  if (!found) throw new Error(`no ${kind} flight on ${date}`);
  return found;
}

const technical = (world: SimWorld) => pick(world, 'technical', (f) => f.status === 'delayed');
const crew = (world: SimWorld) =>
  pick(world, 'crew', (f) => f.origin === 'LTN' && f.status === 'cancelled', '2026-02-16');

describeEachDatabase('circumstances on the simulated world', (kind) => {
  let t: TestApp;
  let key: string;
  let world: SimWorld;
  const lookup = async (f: TruthFlight, more = '') =>
    json(
      await t.get(
        `/api/v1/flights/status?flightNumber=${f.flightNumber}&flightDate=${f.flightDate}${more}`,
        bearer(key),
      ),
    ).data;

  beforeAll(async () => {
    // The poll's interval is the passes' below, every 3 hours: the hours between are kept whole.
    t = await startTestApp(kind, { webhooks: { intervalMs: 365 * 24 * HOUR }, pollIntervalMs: 3 * HOUR });
    key = (await t.account()).key;
    world = t.app.sim!;
    // Luton's boards watched, as a webhook subscriber's endpoint makes them, from eight days before:
    // the week before is the boards' "usual"; and both ends of the technical fault and of the crew
    // cancellation asked below: the airline's own is found only where both ends' boards were seen quiet.
    const airports = new Set(['LTN']);
    for (const f of [technical(world), crew(world)]) airports.add(f.origin).add(f.destination);
    const created = await t.app.http.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(key),
      payload: { name: 'claims', url: 'http://127.0.0.1:9/hooks', airports: [...airports] },
    });
    expect(created.statusCode).toBe(201);
    for (let at = Date.parse('2026-02-12T00:00:00Z'); at < Date.parse('2026-02-21T06:00:00Z'); at += 3 * HOUR)
      await t.app.poller.pass(at);
  }, 120_000);
  afterAll(() => t.close());

  it('names the weather, with the reports at the time that show it', async () => {
    const truth = pick(world, 'weather', (f) => f.status === 'delayed');
    const data = await lookup(truth);
    expect(data.circumstances).toMatchObject({ cause: 'weather', originLeg: null });
    expect(['likely_extraordinary', 'possibly_extraordinary']).toContain(data.circumstances.assessment);
    // Every report consulted at the times, flagged or not, in time order: the storm among them.
    const reports = data.circumstances.weather as { airport: string; at: string; report: string; flags: string[] }[];
    expect(reports.some((r) => r.flags.length > 0)).toBe(true);
    for (const r of reports) {
      expect([truth.origin, truth.destination]).toContain(r.airport);
      expect(r.report).toMatch(/^[A-Z]{4} \d{6}Z /);
    }
    expect(reports.map((r) => r.at)).toEqual(reports.map((r) => r.at).sort());
    expect(data.circumstances.reasons.join(' ')).toMatch(/METAR .*Art\. 5\(3\)/);
    expect(data.compensation.amountAtRisk).toBe(true);
  });

  it('traces a knock-on to the leg of the same aircraft where it started', async () => {
    const truth = pick(world, 'knock_on', (f) => f.status === 'delayed');
    const data = await lookup(truth);
    expect(data.circumstances).toMatchObject({ cause: 'knock_on', originLeg: truth.delayCause.originLeg });
    expect(data.circumstances.reasons.join(' ')).toContain('C-74/19');
  });

  it('leaves a technical fault to the airline: not extraordinary (C-549/07), the amount not at risk', async () => {
    const truth = technical(world);
    const data = await lookup(truth);
    expect(data.circumstances).toMatchObject({ cause: 'technical', assessment: 'not_indicated' });
    // What rebuts a weather defence: the reports at the time, read, showing nothing that stops flights; both ends' boards watched.
    expect(data.circumstances.weather.length).toBeGreaterThan(0);
    expect(data.circumstances.seen.weather.map((w: { status: string }) => w.status)).toEqual(['read', 'read']);
    expect(
      data.circumstances.seen.boards.map((b: { airport: string; status: string }) => [b.airport, b.status]),
    ).toEqual([
      [truth.origin, 'watched'],
      [truth.destination, 'watched'],
    ]);
    expect(data.compensation.amountAtRisk).toBe(false);
    expect(data.compensation.deadlines.length).toBeGreaterThan(0);
  });

  it("counts a watched window's delays against its flights the poll kept times the published share, its cancellations against the days before", async () => {
    const truth = technical(world);
    const data = await lookup(truth);
    const origin = (
      data.circumstances.airport as {
        airport: string;
        from: string;
        to: string;
        usual: { delayed: number };
        baseline: string;
      }[]
    ).find((a) => a.airport === truth.origin)!;
    expect(origin.baseline).toBe('published_delays');
    // The window's flights at the airport, both boards, as the world has them.
    const [from, to] = [Date.parse(origin.from), Date.parse(origin.to)];
    const due = groundTruth(world, truth.flightDate).filter(
      (f) =>
        (f.origin === truth.origin &&
          Date.parse(f.scheduledDeparture) >= from &&
          Date.parse(f.scheduledDeparture) < to) ||
        (f.destination === truth.origin &&
          Date.parse(f.scheduledArrival) >= from &&
          Date.parse(f.scheduledArrival) < to),
    );
    expect(origin.usual.delayed).toBeCloseTo(due.length * 0.3, 0);
  });

  it('reads a strike at the watched airport from its boards: a day of cancellations far beyond the week before', async () => {
    const truth = pick(
      world,
      'third_party_strike',
      (f) => f.status === 'cancelled' && (f.origin === 'LTN' || f.destination === 'LTN'),
    );
    const data = await lookup(truth);
    expect(data.circumstances).toMatchObject({ cause: 'third_party_strike', assessment: 'possibly_extraordinary' });
    const luton = (
      data.circumstances.airport as { airport: string; cancelled: number; usual: { cancelled: number } }[]
    ).find((a) => a.airport === 'LTN')!;
    expect(luton.cancelled).toBeGreaterThan(3 * luton.usual.cancelled + 2);
  });

  it('gives a crew cancellation the boards showed the day before, at the watched airport, and when they first showed it', async () => {
    const truth = crew(world);
    const data = await lookup(truth);
    expect(data.circumstances).toMatchObject({ cause: 'crew', assessment: 'not_indicated' });
    // The latest it can have been announced: before its departure, within the 12 hours a board shows ahead.
    const seen = Date.parse(data.circumstances.cancellationSeenAt);
    const departure = Date.parse(data.selected.scheduledDeparture);
    expect(seen).toBeLessThan(departure);
    expect(seen).toBeGreaterThanOrEqual(departure - 12 * HOUR);
    expect(data.compensation.rationale.join(' ')).toContain(
      `The boards this service watched first showed the cancellation at ${data.circumstances.cancellationSeenAt.slice(0, 16).replace('T', ' ')} UTC: it was announced no later than that`,
    );
    // Other outcomes carry no such field.
    const late = await lookup(
      pick(world, 'weather', (f) => f.status === 'delayed' && (f.arrivalDelayMinutes ?? 0) >= 180),
    );
    expect(late.circumstances).not.toHaveProperty('cancellationSeenAt');
  });

  it('keeps the circumstances a disruption was stored with when it is replayed, and gives none to a flight on time', async () => {
    const truth = pick(world, 'weather', (f) => f.status === 'cancelled');
    const live = await lookup(truth);
    expect(live.meta).toMatchObject({ cached: false, persisted: true });
    const replay = await lookup(truth);
    expect(replay.meta.cached).toBe(true);
    expect(replay.circumstances).toEqual(live.circumstances);
    const onTime = groundTruth(world, DATE).find((f) => f.status === 'on_time' && f.operation === 'passenger')!;
    expect(
      (await lookup(onTime, `&origin=${onTime.origin}&destination=${onTime.destination}`)).circumstances,
    ).toBeNull();
  });
});

describeEachDatabase('circumstances with the weather off', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { weather: { source: 'off' } });
  });
  afterAll(() => t.close());

  it('says the weather is unknown, never that it was fine', async () => {
    const { key } = await t.account();
    const truth = pick(t.app.sim!, 'technical', (f) => f.status === 'delayed');
    const data = json(
      await t.get(`/api/v1/flights/status?flightNumber=${truth.flightNumber}&flightDate=${DATE}`, bearer(key)),
    ).data;
    expect(data.circumstances).toMatchObject({ assessment: 'unknown', cause: 'unknown', weather: [] });
    expect(data.circumstances.reasons.join(' ')).toContain('No weather reports could be had');
  });
});

describeEachDatabase('circumstances from a service that did not watch the airports', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { webhooks: { intervalMs: 365 * 24 * HOUR } });
  });
  afterAll(() => t.close());

  const calls = () => providerCalls(t);

  it("reads the airports' boards of the day after the fact and finds the strike a watching service finds; an airport the provider has no boards of is said, never read as nothing happened", async () => {
    const { key } = await t.account();
    // Luton's strike (a third party's) from a service that never watched Luton: before issue 43 each
    // came back technical and not_indicated ("no airport-wide disruption was seen"), then unknown.
    const day = groundTruth(t.app.sim!, DATE);
    const legs = new Map<string, number>();
    for (const f of day) legs.set(f.flightNumber, (legs.get(f.flightNumber) ?? 0) + 1);
    const catalogue = new Set(t.app.sim!.catalogue);
    const struck = day
      .filter(
        (f) =>
          f.delayCause.kind === 'third_party_strike' &&
          f.status === 'cancelled' &&
          f.operation === 'passenger' &&
          legs.get(f.flightNumber) === 1 &&
          (f.origin === 'LTN' || f.destination === 'LTN'),
      )
      .slice(0, 6);
    expect(struck.length).toBeGreaterThan(2);
    const before = await calls();
    for (const truth of struck) {
      const data = json(
        await t.get(`/api/v1/flights/status?flightNumber=${truth.flightNumber}&flightDate=${DATE}`, bearer(key)),
      ).data;
      const c = data.circumstances;
      // Each end: read after the fact where the provider has boards of it (the simulated world: its catalogue airports), else said.
      expect(c.seen.boards.map((b: { airport: string; status: string }) => [b.airport, b.status])).toEqual(
        [truth.origin, truth.destination].map((airport) => [
          airport,
          catalogue.has(airport) ? 'read' : 'not_available',
        ]),
      );
      const luton = c.airport.find((a: { airport: string }) => a.airport === 'LTN');
      expect(luton).toMatchObject({ baseline: 'published_rates' });
      expect(c).toMatchObject({ cause: 'third_party_strike', assessment: 'possibly_extraordinary' });
      const reasons = c.reasons.join(' ');
      expect(reasons).toContain("LTN's boards showed cancellations by many carriers all day");
      expect(reasons).toContain('not when each cancellation was announced');
      expect(reasons).not.toContain('no airport-wide disruption was seen');
      for (const airport of [truth.origin, truth.destination].filter((a) => !catalogue.has(a))) {
        expect(reasons).toContain(`${airport}'s boards were not watched`);
        expect(reasons).toContain('the flight-data provider holds none of that day');
      }
      // The weather was read all the same, clean reports included.
      expect(c.seen.weather.every((w: { status: string }) => w.status === 'read')).toBe(true);
      expect(c.weather.length).toBeGreaterThan(0);
    }
    // Luton's day was read once (both boards: two calls), and each other catalogue end's day once,
    // however many flights asked; an airport outside the catalogue was asked once too (its departures:
    // a miss, so not its arrivals), not once per flight.
    const ends = [...new Set(struck.flatMap((f) => [f.origin, f.destination]))];
    const after = await calls();
    expect((after.board ?? 0) - (before.board ?? 0)).toBe(
      ends.reduce((n, airport) => n + (catalogue.has(airport) ? 2 : 1), 0),
    );
  });

  it('gives a flight of a day read before the same answer from the kept day, with no board call', async () => {
    const { key } = await t.account();
    const truth = pick(t.app.sim!, 'third_party_strike', (f) => f.status === 'cancelled' && f.origin === 'LTN');
    const first = json(
      await t.get(
        `/api/v1/flights/status?flightNumber=${truth.flightNumber}&flightDate=${DATE}&refresh=1`,
        bearer(key),
      ),
    ).data.circumstances;
    const before = await calls();
    const again = json(
      await t.get(
        `/api/v1/flights/status?flightNumber=${truth.flightNumber}&flightDate=${DATE}&refresh=1`,
        bearer(key),
      ),
    ).data.circumstances;
    expect(again).toEqual(first);
    expect((await calls()).board ?? 0).toBe(before.board ?? 0);
  });

  it('tells a crew cancellation from a fault after the fact by whether the aircraft flew again that day, and says so', async () => {
    const { key } = await t.account();
    const find = (date: string, flightNumber: string) =>
      groundTruth(t.app.sim!, date).find((f) => f.flightNumber === flightNumber)!;
    // BY2215 Luton–Malta, cancelled with its return for a crew; the aircraft flew Luton–Lisbon and back later.
    // FR3137 Poznań–Luton, cancelled for a fault that kept the aircraft on the ground the rest of its day.
    const crew = find('2026-02-16', 'BY2215');
    const fault = find('2026-02-18', 'FR3137');
    expect([crew.status, crew.delayCause.kind, fault.status, fault.delayCause.kind]).toEqual([
      'cancelled',
      'crew',
      'cancelled',
      'technical',
    ]);
    const circumstances = async (f: TruthFlight) =>
      json(await t.get(`/api/v1/flights/status?flightNumber=${f.flightNumber}&flightDate=${f.flightDate}`, bearer(key)))
        .data.circumstances;
    const flew = await circumstances(crew);
    expect(flew).toMatchObject({ cause: 'crew', assessment: 'not_indicated', cancellationSeenAt: null });
    const owed = json(
      await t.get(
        `/api/v1/flights/status?flightNumber=${crew.flightNumber}&flightDate=${crew.flightDate}`,
        bearer(key),
      ),
    ).data.compensation;
    expect(owed.rationale.join(' ')).toContain(
      'When the cancellation was announced is not known: no board this service watched showed it before the flight',
    );
    expect(flew.reasons.join(' ')).toContain(
      'When it was cancelled is not on the boards read after the day, but the aircraft flew again that day',
    );
    const stayed = await circumstances(fault);
    expect(stayed).toMatchObject({ cause: 'technical', assessment: 'not_indicated' });
    expect(stayed.reasons.join(' ')).toContain('the aircraft flew no more that day');
  });

  it("finds a hub carrier's own strike after the fact at its hub, its flights to airports no board shows and the later legs of its aircraft alike", async () => {
    const { key } = await t.account();
    // LOT (LO) on strike on 25 January: nearly every flight of it touches Warsaw. Before,
    // a flight to an airport outside the catalogue was `unknown` (the other end's strike "would look
    // the same"), and an aircraft's later legs a knock-on of its first cancellation.
    const day = groundTruth(t.app.sim!, '2026-01-25');
    const legs = new Map<string, number>();
    for (const f of day) legs.set(f.flightNumber, (legs.get(f.flightNumber) ?? 0) + 1);
    const catalogue = new Set(t.app.sim!.catalogue);
    const struck = day.filter(
      (f) =>
        f.delayCause.kind === 'airline_strike' &&
        f.operation === 'passenger' &&
        legs.get(f.flightNumber) === 1 &&
        f.flightNumber.startsWith('LO'),
    );
    // An aircraft's third cancelled flight or later (not the way back of its first: a run of cancellations).
    const later = (f: TruthFlight) =>
      struck.filter((g) => g.registration === f.registration && g.scheduledDeparture < f.scheduledDeparture).length >=
      2;
    const asked = [
      ...struck.filter((f) => !catalogue.has(f.origin) || !catalogue.has(f.destination)).slice(0, 3),
      ...struck.filter((f) => catalogue.has(f.origin) && catalogue.has(f.destination)).slice(0, 3),
      ...struck.filter(later).slice(0, 2),
    ];
    expect(asked.length).toBe(8);
    for (const truth of asked) {
      const c = json(
        await t.get(
          `/api/v1/flights/status?flightNumber=${truth.flightNumber}&flightDate=${truth.flightDate}`,
          bearer(key),
        ),
      ).data.circumstances;
      expect([truth.flightNumber, c.cause, c.assessment, c.originLeg]).toEqual([
        truth.flightNumber,
        'airline_strike',
        'not_indicated',
        null,
      ]);
      expect(c.reasons.join(' ')).toContain(
        "WAW's boards of that day show the carrier's flights cancelled far more than other airlines' there",
      );
    }
  });

  it("puts a cancellation in a run of its aircraft's cancelled flights on where the run began, not on the weather at its own time", async () => {
    const { key } = await t.account();
    // IB3381 and UX2801 from Madrid on 17 February: their aircraft's flights were cancelled from an
    // earlier one on (IB3753 Madrid–Budapest, UX2853 Madrid–Birmingham); Madrid's weather at their own
    // times was beyond limits, and before they were put on it.
    for (const [flightNumber, origin] of [
      ['IB3381', 'IB3753'],
      ['UX2801', 'UX2853'],
    ] as const) {
      const truth = groundTruth(t.app.sim!, '2026-02-17').find((f) => f.flightNumber === flightNumber)!;
      expect([truth.status, truth.delayCause.kind, truth.delayCause.originLeg?.flightNumber]).toEqual([
        'cancelled',
        'knock_on',
        origin,
      ]);
      const c = json(
        await t.get(`/api/v1/flights/status?flightNumber=${flightNumber}&flightDate=2026-02-17`, bearer(key)),
      ).data.circumstances;
      expect([c.cause, c.originLeg?.flightNumber, c.assessment]).toEqual(['knock_on', origin, 'not_indicated']);
      expect(c.reasons.join(' ')).toContain(`The aircraft's flights were cancelled from ${origin}`);
    }
  });

  it("follows the aircraft's flights on the boards it kept, and asks for the aircraft's day only where they leave out a leg the finding needs", async () => {
    const { key } = await t.account();
    const lookup = async (f: TruthFlight, more = '') => {
      const before = await calls();
      const c = json(
        await t.get(
          `/api/v1/flights/status?flightNumber=${f.flightNumber}&flightDate=${f.flightDate}${more}`,
          bearer(key),
        ),
      ).data.circumstances;
      return { c, rotations: ((await calls()).rotation ?? 0) - (before.rotation ?? 0) };
    };
    // Luton's disrupted flights of two ordinary days, asked weeks later: each end's day is read for its
    // figures, and those rows hold the aircraft's other flights (every leg of the simulated world
    // touches a catalogue airport, and these days were read whole).
    const days = ['2026-02-17', '2026-02-18'].flatMap((d) => groundTruth(t.app.sim!, d));
    const legs = new Map<string, number>();
    for (const f of days)
      legs.set(`${f.flightNumber}|${f.flightDate}`, (legs.get(`${f.flightNumber}|${f.flightDate}`) ?? 0) + 1);
    const asked = days.filter(
      (f) =>
        f.operation === 'passenger' &&
        legs.get(`${f.flightNumber}|${f.flightDate}`) === 1 &&
        (f.origin === 'LTN' || f.destination === 'LTN') &&
        (f.status === 'cancelled' || (f.status === 'delayed' && f.arrivalDelayMinutes! >= 180)),
    );
    expect(asked.length).toBeGreaterThan(6);
    const answers = [];
    for (const truth of asked) answers.push({ truth, ...(await lookup(truth)) });
    for (const { truth, c, rotations } of answers) {
      expect([truth.flightNumber, c.seen.aircraft, rotations]).toEqual([truth.flightNumber, 'boards', 0]);
      expect(c.reasons.join(' ')).toContain('were on the boards this service kept, so its day was not asked for');
      // The cause the world applied, where a past board can tell it (crew from technical only by what
      // the aircraft did later that day; with nothing later, the airline's own without saying which: weather.md).
      if (truth.delayCause.kind === 'knock_on')
        expect(c).toMatchObject({
          cause: 'knock_on',
          originLeg: { flightNumber: truth.delayCause.originLeg!.flightNumber },
        });
      if (truth.delayCause.kind === 'technical') {
        const unsaid =
          truth.status === 'cancelled' &&
          c.reasons.join(' ').includes('nothing later of the aircraft that day shows whether it flew again');
        expect(c).toMatchObject({ cause: unsaid ? 'unknown' : 'technical', assessment: 'not_indicated' });
      }
    }
    // Where the rows run out and nothing says more did not fly: a disrupted first flight of the day
    // from an airport outside the catalogue (no boards of it can be read, so an earlier leg there is
    // not ruled out; UA17 Washington–Athens, cancelled). Its day is asked.
    const catalogue = new Set(t.app.sim!.catalogue);
    const other = groundTruth(t.app.sim!, '2026-02-16');
    const earlier = new Set(other.map((f) => `${f.registration}|${f.destination}`));
    const unseen = other.find(
      (f) =>
        f.operation === 'passenger' &&
        !catalogue.has(f.origin) &&
        (f.status === 'cancelled' || (f.status === 'delayed' && f.arrivalDelayMinutes! >= 180)) &&
        !earlier.has(`${f.registration}|${f.origin}`),
    )!;
    expect(unseen).toBeDefined();
    const followed = await lookup(unseen);
    expect([followed.c.seen.aircraft, followed.rotations]).toEqual(['followed', 1]);
    expect(followed.c.reasons.join(' ')).not.toContain('on the boards this service kept');
  });
});
