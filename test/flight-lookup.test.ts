// GET /api/v1/flights/status end to end: a real service on each database, the simulated world as
// the provider, the manual clock. Flights are picked from the world's ground truth, so every
// expectation is checked against what really happened.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DAY, HOUR, MINUTE } from '../src/clock.js';
import type { FlightProvider, ProviderFlight } from '../src/providers/index.js';
import { createSimWorld, groundTruth, SimProvider, type SimWorld, type TruthFlight } from '../src/sim/index.js';
import { assess, sharedRegion } from '../src/compensation/index.js';
import { loadReferenceAirports } from '../src/airports/index.js';
import { PROOF_HEIGHT, PROOF_WIDTH } from '../src/flights/index.js';
import { describeEachDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, T0, type TestApp } from './helpers/app.js';

const DATE = '2026-02-20';
const url = (query: Record<string, string>) => `/api/v1/flights/status?${new URLSearchParams(query)}`;

/** A flight of the day with that status whose number flies only one leg that day (so no filter is needed). */
function pick(
  world: SimWorld,
  status: TruthFlight['status'],
  date = DATE,
  extra: (f: TruthFlight) => boolean = () => true,
): TruthFlight {
  const day = groundTruth(world, date);
  const legs = new Map<string, number>();
  for (const f of day) legs.set(f.flightNumber, (legs.get(f.flightNumber) ?? 0) + 1);
  const found = day.find(
    (f) => f.status === status && f.operation === 'passenger' && legs.get(f.flightNumber) === 1 && extra(f),
  );
  if (!found) throw new Error(`no ${status} flight on ${date}`);
  return found;
}

describeEachDatabase('the flight lookup', (kind) => {
  let t: TestApp;
  let key: string;
  let world: SimWorld;
  const lookup = (query: Record<string, string>) => t.get(url(query), bearer(key));

  beforeAll(async () => {
    t = await startTestApp(kind);
    key = (await t.account()).key;
    world = t.app.sim!;
  });
  afterAll(() => t.close());

  it('answers a delayed flight with the record, the verdict and its reasons', async () => {
    const truth = pick(world, 'delayed', DATE, (f) => f.arrivalDelayMinutes! >= 30);
    const response = await lookup({ flightNumber: truth.flightNumber.toLowerCase(), flightDate: DATE });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-credits-remaining']).toMatch(/^\d+$/);
    const data = json(response).data;
    expect(data).toMatchObject({
      flightNumber: truth.flightNumber,
      flightDate: DATE,
      originIata: truth.origin,
      destinationIata: truth.destination,
      selected: {
        found: true,
        complete: true,
        status: 'delayed',
        isDelayed: true,
        isCancelled: false,
        isDiverted: false,
        delayMinutes: truth.arrivalDelayMinutes,
        departureDelayMinutes: truth.departureDelayMinutes,
        scheduledDeparture: truth.scheduledDeparture,
        actualDeparture: truth.actualDeparture,
        actualArrival: truth.actualArrival,
        airline: { name: truth.airline.name, iata: truth.airline.iata, icao: truth.airline.icao },
        aircraft: { registration: truth.registration, icao: truth.aircraftType },
        flightIata: truth.flightNumber,
        statusRaw: expect.stringMatching(/^Landed/),
        source: 'sim',
      },
      flightDelay: {
        delayMinutes: truth.arrivalDelayMinutes,
        disruption: { type: 'delay', neverArrived: false, confidence: 'high', sources: ['sim'] },
      },
      meta: { cached: false, persisted: true, recordId: null, source: 'sim' },
      sources: [{ provider: 'sim', outcome: 'hit', error: null }],
    });
    expect(data.flightDelay.delayFormatted).toMatch(/^(\d+h )?\d+m$/);
    expect(data.flightDelay.disruption.rationale.join(' ')).toContain(
      `${truth.flightNumber} ${truth.origin} → ${truth.destination}`,
    );
    expect(data.sources[0].fields).toEqual(expect.arrayContaining(['actualArrival', 'aircraft', 'statusRaw']));
  });

  it('answers cancelled, diverted and on-time flights as they happened', async () => {
    for (const status of ['cancelled', 'diverted', 'on_time'] as const) {
      const truth = pick(world, status);
      const data = json(await lookup({ flightNumber: truth.flightNumber, flightDate: DATE })).data;
      expect(data.selected, status).toMatchObject({
        status,
        complete: true,
        isCancelled: status === 'cancelled',
        isDiverted: status === 'diverted',
      });
      if (status === 'on_time') {
        expect(data.flightDelay.disruption.type).toBe('none');
        expect(data.meta.persisted).toBe(false); // on-time results are never stored
      } else {
        expect(data.flightDelay.disruption).toMatchObject({
          neverArrived: true,
          type: status === 'cancelled' ? 'cancellation' : 'diversion',
        });
        expect(data.meta.persisted).toBe(true);
      }
    }
  });

  it('answers a flight nobody knows with selected null, and stores nothing', async () => {
    const response = await lookup({ flightNumber: 'ZZ9999', flightDate: DATE });
    expect(response.statusCode).toBe(200);
    const data = json(response).data;
    expect(data).toMatchObject({
      flightNumber: 'ZZ9999',
      selected: null,
      flightDelay: null,
      meta: { cached: false, persisted: false, source: null },
    });
    expect(data.sources).toEqual([
      { provider: 'sim', outcome: 'miss', durationMs: expect.any(Number), fields: [], times: [], error: null },
    ]);
    expect(json(await lookup({ flightNumber: 'ZZ9999', flightDate: DATE })).data.meta.cached).toBe(false);
  });

  it('answers a flightNumber of 2 to 12 letters and digits that cannot be a designator as not found, says why, asks no provider and takes its credit', async () => {
    for (const flightNumber of ['ZZ', 'zz9999999999']) {
      const before = Number(
        (await lookup({ flightNumber: 'ZZ9999', flightDate: DATE })).headers['x-credits-remaining'],
      );
      const response = await lookup({ flightNumber, flightDate: DATE });
      expect(response.statusCode).toBe(200);
      expect(Number(response.headers['x-credits-remaining'])).toBe(before - 1);
      const data = json(response).data;
      expect(data).toMatchObject({
        flightNumber: flightNumber.toUpperCase(),
        selected: null,
        flightDelay: null,
        meta: { persisted: false, source: null },
      });
      expect(data.sources).toEqual([
        { provider: 'sim', outcome: 'skipped', durationMs: 0, fields: [], times: [], error: null },
      ]);
      expect(data.rationale.join(' ')).toMatch(
        new RegExp(`^${flightNumber.toUpperCase()} cannot be a flight designator .*no flight-data provider was asked`),
      );
    }
    // A real miss still asks, and says nothing of the kind.
    const miss = json(await lookup({ flightNumber: 'ZZ9999', flightDate: DATE })).data;
    expect([miss.sources[0].outcome, miss.rationale]).toEqual(['miss', undefined]);
    // Any other character, or a space but after the airline code: 400 naming the field.
    for (const flightNumber of ['hello world', 'W6-3101', 'ABCDEFGHIJKLM']) {
      const bad = await lookup({ flightNumber, flightDate: DATE });
      expect(bad.statusCode).toBe(400);
      expect(json(bad).message).toMatch(/flightNumber must be/);
    }
  });

  it('applies the query: aliases, trimming, a timestamp cut to its date, origin and destination picking the leg', async () => {
    // (The simulated world flies each number once a day; choosing among several legs is proven in
    // src/flights/verdict.test.ts.)
    const truth = pick(world, 'on_time');
    const data = json(
      await t.get(
        url({
          flight: ` ${truth.flightNumber} `,
          date: `${DATE}T18:30:00Z`,
          from: truth.origin.toLowerCase(),
          to: truth.destination,
        }),
        bearer(key),
      ),
    ).data;
    expect(data).toMatchObject({
      flightNumber: truth.flightNumber,
      flightDate: DATE,
      originIata: truth.origin,
      destinationIata: truth.destination,
    });
    expect(data.selected.scheduledDeparture).toBe(truth.scheduledDeparture);
    const wrong = json(await lookup({ flightNumber: truth.flightNumber, flightDate: DATE, origin: 'ZZZ' })).data;
    expect(wrong.selected).toBeNull();
  });

  it('never stores what is still in the air, and replays only to lookups whose filter the record matches', async () => {
    const truth = pick(world, 'delayed', '2026-02-15', (f) => f.origin !== f.destination);
    const query = { flightNumber: truth.flightNumber, flightDate: '2026-02-15' };
    expect(json(await lookup(query)).data.meta.persisted).toBe(true);
    expect(json(await lookup({ ...query, origin: truth.origin })).data.meta.cached).toBe(true);
    expect(json(await lookup({ ...query, destination: truth.destination })).data.meta.cached).toBe(true);
    const other = json(await lookup({ ...query, origin: truth.destination })).data;
    expect(other.meta.cached).toBe(false);
    expect(other.selected).toBeNull();

    // A flight in the air at the clock's moment: incomplete, never stored.
    const airborne = groundTruth(world, '2026-03-01').find(
      (f) => f.status === 'delayed' && Date.parse(f.actualDeparture!) < T0 && Date.parse(f.actualArrival!) > T0 + HOUR,
    )!;
    const live = json(
      await lookup({ flightNumber: airborne.flightNumber, flightDate: '2026-03-01', origin: airborne.origin }),
    ).data;
    expect(live.selected).toMatchObject({ complete: false, actualArrival: null });
    expect(live.selected.estimatedArrival).not.toBeNull();
    expect(live.sources[0].outcome).toBe('incomplete');
    expect(live.meta.persisted).toBe(false);
    expect(live.flightDelay.disruption.confidence).toBe('medium');
  });

  it('replays to a lookup without a filter only a record stored by one (the leg such a lookup chooses)', async () => {
    // Stored by a lookup filtered on its origin: that leg need not be the first of the day, which a
    // lookup without a filter would choose, so it is not replayed to one until one stores it.
    const truth = pick(world, 'delayed', '2026-02-14');
    const query = { flightNumber: truth.flightNumber, flightDate: '2026-02-14' };
    expect(json(await lookup({ ...query, origin: truth.origin })).data.meta.persisted).toBe(true);
    expect(json(await lookup({ ...query, destination: truth.destination })).data.meta.cached).toBe(true);
    const unfiltered = json(await lookup(query)).data;
    expect(unfiltered.meta).toMatchObject({ cached: false, persisted: true });
    expect(json(await lookup(query)).data.meta.cached).toBe(true);
  });

  it('refreshes: bypasses the stored record and overwrites it in place', async () => {
    const truth = pick(world, 'cancelled', '2026-02-18');
    const query = { flightNumber: truth.flightNumber, flightDate: '2026-02-18' };
    expect(json(await lookup(query)).data.meta.persisted).toBe(true);
    const stored = async () =>
      t.app.db.kysely
        .selectFrom('flight_records')
        .selectAll()
        .where('flight_number', '=', truth.flightNumber)
        .where('flight_date', '=', '2026-02-18')
        .execute();
    const [before] = await stored();
    t.clock.set(T0 + HOUR);
    for (const refresh of ['1', 'true', 'yes']) {
      const fresh = json(await lookup({ ...query, refresh })).data;
      expect(fresh.meta).toMatchObject({ cached: false, persisted: true });
    }
    const rows = await stored();
    expect(rows).toHaveLength(1);
    expect(Number(rows[0]!.updated_at)).toBe(T0 + HOUR);
    expect(Number(rows[0]!.created_at)).toBe(Number(before!.created_at));
    expect(json(await lookup({ ...query, refresh: 'no' })).data.meta.cached).toBe(true);
  });

  it('attaches a proof image on live answers and replays, and never stores it', async () => {
    const truth = pick(world, 'delayed', '2026-02-16');
    for (const flag of ['screenshot', 'includeScreenshot']) {
      const data = json(await lookup({ flightNumber: truth.flightNumber, flightDate: '2026-02-16', [flag]: '1' })).data;
      expect(data.proof).toMatchObject({
        mediaType: 'image/png',
        encoding: 'base64',
        width: PROOF_WIDTH,
        height: PROOF_HEIGHT,
      });
      const png = Buffer.from(data.proof.data, 'base64');
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expect(png.readUInt32BE(16)).toBe(PROOF_WIDTH); // IHDR width
      expect(png.readUInt32BE(20)).toBe(PROOF_HEIGHT); // IHDR height
      expect(createHash('sha256').update(png).digest('hex')).toBe(data.proof.sha256);
    }
    const replayed = json(
      await lookup({ flightNumber: truth.flightNumber, flightDate: '2026-02-16', screenshot: 'true' }),
    ).data;
    expect(replayed.meta.cached).toBe(true);
    expect(replayed.proof.mediaType).toBe('image/png');
    expect(
      json(await lookup({ flightNumber: truth.flightNumber, flightDate: '2026-02-16' })).data.proof,
    ).toBeUndefined();
    const rows = await t.app.db.kysely.selectFrom('flight_records').select('body').execute();
    for (const row of rows) expect(row.body).not.toContain('proof');
  });

  it('stores a settled disruption only once its departure is more than three UTC days old, to the minute', async () => {
    // A delayed flight that left less than three days before the clock: move the clock to the boundary
    // (the clock only goes forward, so this test comes last).
    const date = '2026-02-26';
    const truth = pick(world, 'delayed', date, (f) => Date.parse(f.actualDeparture!) > t.clock.now() - 3 * DAY + HOUR);
    const departed = Date.parse(truth.actualDeparture!);
    const query = { flightNumber: truth.flightNumber, flightDate: date };
    t.clock.set(departed + 3 * DAY);
    const atBoundary = json(await lookup(query)).data;
    expect(atBoundary.selected).toMatchObject({ status: 'delayed', complete: true });
    expect(atBoundary.meta).toMatchObject({ cached: false, persisted: false });
    expect(json(await lookup(query)).data.meta.cached).toBe(false);

    t.clock.set(departed + 3 * DAY + MINUTE);
    const after = json(await lookup(query)).data;
    expect(after.meta).toMatchObject({ cached: false, persisted: true });
    const replayed = await lookup(query);
    expect(replayed.headers['content-type']).toBe('application/json; charset=utf-8');
    const replay = json(replayed).data;
    expect(replay.meta).toMatchObject({ cached: true, persisted: false, durationMs: 0, source: 'sim' });
    const { meta: _live, ...liveRest } = after;
    const { meta: _replayed, ...replayRest } = replay;
    expect(replayRest).toEqual(liveRest); // the same answer, field for field
    expect(replay.meta.startedAt).toBe(new Date(t.clock.now()).toISOString());
  });
});

describeEachDatabase('the flight lookup when providers fail', (kind) => {
  it('answers 500 (metered, safe to retry) when every provider fails, naming the failure', async () => {
    const t = await startTestApp(kind, { sim: { failures: { flight: 1 } } });
    try {
      const { key, accountId } = await t.account();
      const response = await t.get(url({ flightNumber: 'W63101', flightDate: DATE }), bearer(key));
      expect(response.statusCode).toBe(500);
      expect(json(response)).toMatchObject({ success: false, code: 'internal' });
      expect(json(response).message).toMatch(/sim: failed \(unavailable\).*retried safely/);
      expect(json(response).sources).toEqual([
        expect.objectContaining({
          provider: 'sim',
          outcome: 'error',
          error: expect.objectContaining({ kind: 'unavailable' }),
        }),
      ]);
      expect(response.headers['x-credits-remaining']).toBe('999');
      await t.app.metering.drain();
      expect(await t.app.metering.requestCount(accountId)).toBe(1);
    } finally {
      await t.close();
    }
  });

  it('gives up on a provider after the timeout', async () => {
    const t = await startTestApp(kind, { sim: { latency: { flight: { min: 400, max: 400 } } }, providerTimeoutMs: 50 });
    try {
      const { key } = await t.account();
      const response = await t.get(url({ flightNumber: 'W63101', flightDate: DATE }), bearer(key));
      expect(response.statusCode).toBe(500);
      expect(json(response).message).toMatch(/sim: failed \(timeout\)/);
    } finally {
      await t.close();
    }
  });
});

/** A provider that sees the same world as another but lags behind it and leaves fields out, like a poorer feed. */
class LaggingProvider implements FlightProvider {
  calls = 0;
  constructor(
    readonly name: string,
    private readonly inner: SimProvider,
    private readonly strip: (f: ProviderFlight) => ProviderFlight,
  ) {}
  async lookupFlight(...args: Parameters<FlightProvider['lookupFlight']>) {
    this.calls++;
    const answer = await this.inner.lookupFlight(...args);
    return answer.outcome === 'hit' || answer.outcome === 'incomplete'
      ? { ...answer, value: answer.value.map((f) => this.strip({ ...f, provider: this.name })) }
      : answer;
  }
  readBoard(...args: Parameters<FlightProvider['readBoard']>) {
    return this.inner.readBoard(...args);
  }
  lookupAircraft(...args: Parameters<FlightProvider['lookupAircraft']>) {
    return this.inner.lookupAircraft(...args);
  }
}

describeEachDatabase('the flight lookup over several providers', (kind) => {
  const world = createSimWorld('test');

  it('merges an incomplete answer with a complete one field by field, keeping each field’s source', async () => {
    const truth = pick(world, 'delayed');
    const arrived = Date.parse(truth.actualArrival!);
    let early!: LaggingProvider;
    let complete!: LaggingProvider;
    let spare!: LaggingProvider;
    const t = await startTestApp(kind, {
      providers: (clock) => {
        // "early" sees the world an hour before arrival (in the air) but knows the tail; "late" is
        // settled but has no aircraft.
        const behind = { now: () => Math.min(clock.now(), arrived - HOUR) };
        early = new LaggingProvider('early', new SimProvider(world, behind), (f) => f);
        complete = new LaggingProvider('late', new SimProvider(world, clock), (f) => ({ ...f, aircraft: null }));
        spare = new LaggingProvider('spare', new SimProvider(world, clock), (f) => f);
        return [early, complete, spare];
      },
    });
    try {
      const { key } = await t.account();
      const data = json(await t.get(url({ flightNumber: truth.flightNumber, flightDate: DATE }), bearer(key))).data;
      expect(data.sources.map((s: { provider: string; outcome: string }) => `${s.provider}:${s.outcome}`)).toEqual([
        'early:incomplete',
        'late:hit',
        'spare:skipped',
      ]);
      expect(data.selected).toMatchObject({
        source: 'late',
        complete: true,
        actualArrival: truth.actualArrival,
        aircraft: { registration: truth.registration },
      });
      const fields = Object.fromEntries(
        data.sources.map((s: { provider: string; fields: string[] }) => [s.provider, s.fields]),
      );
      expect(fields.late).toEqual(expect.arrayContaining(['actualArrival', 'statusRaw']));
      expect(fields.early).toContain('aircraft');
      expect(fields.spare).toEqual([]);
      expect(spare.calls).toBe(0); // skipped means not asked
      expect(data.flightDelay.disruption.sources).toEqual(['late', 'early']);
    } finally {
      await t.close();
    }
  });

  it('goes past a failing provider to the next, and reports the failure', async () => {
    const t = await startTestApp(kind, {
      providers: (clock) => [
        new LaggingProvider('down', new SimProvider(world, clock, { latency: {}, failures: { flight: 1 } }), (f) => f),
        new LaggingProvider('up', new SimProvider(world, clock), (f) => f),
      ],
    });
    try {
      const { key } = await t.account();
      const truth = pick(world, 'cancelled');
      const response = await t.get(url({ flightNumber: truth.flightNumber, flightDate: DATE }), bearer(key));
      expect(response.statusCode).toBe(200);
      const data = json(response).data;
      expect(data.sources.map((s: { provider: string; outcome: string }) => `${s.provider}:${s.outcome}`)).toEqual([
        'down:error',
        'up:hit',
      ]);
      expect(data.sources[0].error).toMatchObject({ kind: 'unavailable' });
      expect(data.selected).toMatchObject({ status: 'cancelled', source: 'up' });
    } finally {
      await t.close();
    }
  });

  it('cancels the provider call when the client hangs up', async () => {
    let seen: AbortSignal | undefined;
    let asked!: () => void;
    const called = new Promise<void>((resolve) => (asked = resolve));
    const slow: FlightProvider = {
      name: 'slow',
      lookupFlight: (_lookup, options) => {
        seen = options?.signal;
        asked();
        return new Promise(() => {}); // never answers by itself
      },
      readBoard: () => Promise.resolve({ outcome: 'miss' }),
      lookupAircraft: () => Promise.resolve({ outcome: 'miss' }),
    };
    const t = await startTestApp(kind, { providers: () => [slow] });
    try {
      const { key } = await t.account();
      const address = await t.app.http.listen({ port: 0, host: '127.0.0.1' });
      const client = new AbortController();
      const request = fetch(`${address}${url({ flightNumber: 'W63101', flightDate: DATE })}`, {
        headers: bearer(key),
        signal: client.signal,
      }).catch((error: Error) => error);
      await called;
      client.abort();
      expect(await request).toBeInstanceOf(Error);
      await new Promise<void>((resolve) =>
        seen!.aborted ? resolve() : seen!.addEventListener('abort', () => resolve(), { once: true }),
      );
      expect(seen!.aborted).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('shares one resolve between identical lookups in flight at the same moment; each is metered', async () => {
    let counted!: LaggingProvider;
    const t = await startTestApp(kind, {
      providers: (clock) => [
        (counted = new LaggingProvider(
          'sim',
          new SimProvider(world, clock, { latency: { flight: { min: 150, max: 150 } }, failures: {} }),
          (f) => f,
        )),
      ],
    });
    try {
      const { key, accountId } = await t.account();
      const truth = pick(world, 'on_time');
      const responses = await Promise.all(
        [0, 1, 2].map(() => t.get(url({ flightNumber: truth.flightNumber, flightDate: DATE }), bearer(key))),
      );
      expect(counted.calls).toBe(1);
      for (const response of responses) expect(json(response).data.selected.flightIata).toBe(truth.flightNumber);
      // Each waited for the shared resolve (the provider takes 150 ms); on a loaded machine a request
      // may be admitted later than the first and join it part-way, so only the first waits it all.
      const waited = responses.map((r) => json(r).data.meta.durationMs as number);
      expect(Math.max(...waited)).toBeGreaterThanOrEqual(140);
      expect(waited.every((ms) => ms > 0)).toBe(true);
      await t.app.metering.drain();
      expect(await t.app.metering.requestCount(accountId)).toBe(3);
      // Afterwards a new lookup resolves again.
      await t.get(url({ flightNumber: truth.flightNumber, flightDate: DATE }), bearer(key));
      expect(counted.calls).toBe(2);
    } finally {
      await t.close();
    }
  });
});

describeEachDatabase('the compensation of a diverted flight lookup', (kind) => {
  const world = createSimWorld('test');
  // Diverted passenger flights whose number flies once that day, on two days of the 'test' world
  // that hold each kind (found by scanning October to February; the scan itself is too slow to keep).
  const diverted = ['2025-12-18', DATE].flatMap((date) => {
    const day = groundTruth(world, date);
    // Boards and feeds name the diversion airport for most diversions, not all: only named ones here.
    const named = new Set(
      world
        .legsOn(date)
        .filter((l) => l.diversionNamed)
        .map((l) => l.plan.designator),
    );
    return day.filter(
      (f) =>
        f.status === 'diverted' &&
        f.operation === 'passenger' &&
        named.has(f.flightNumber) &&
        day.filter((g) => g.flightNumber === f.flightNumber).length === 1,
    );
  });
  const lateAt = (f: TruthFlight) =>
    Math.trunc((Date.parse(f.actualArrival!) - Date.parse(f.scheduledArrival)) / MINUTE);
  const sameCity = (f: TruthFlight) => sharedRegion(f.destination, f.divertedTo) !== undefined;
  // Only flights one of the regulations covers, so that an amount can be owed (scope is not the subject here).
  const covered = (f: TruthFlight) => {
    const a = assess(loadReferenceAirports(), {
      origin: f.origin,
      destination: f.destination,
      airline: f.callsign.slice(0, 3),
      outcome: 'cancelled',
    });
    return a !== null && (a.eu261.applies || a.uk261.applies);
  };
  const late = diverted.find((f) => sameCity(f) && lateAt(f) >= 180 && covered(f))!;
  const early = diverted.find((f) => sameCity(f) && lateAt(f) < 180 && covered(f))!;
  const elsewhere = diverted.find((f) => f.divertedTo !== null && !sameCity(f) && covered(f))!;
  it('finds the three kinds of diversion in the simulated world', () => {
    expect([late, early, elsewhere].every(Boolean)).toBe(true);
  });

  it('says, when the record has no arrival time, that the amount of a same-city diversion depends on the final arrival', async () => {
    // The simulated feed, like many, gives no arrival time for a diverted flight.
    const t = await startTestApp(kind);
    try {
      const { key } = await t.account();
      const data = json(
        await t.get(url({ flightNumber: early.flightNumber, flightDate: early.flightDate }), bearer(key)),
      ).data;
      expect(data.selected).toMatchObject({ status: 'diverted', complete: true, actualArrival: null });
      expect(data.compensation.eu261.amountEur ?? data.compensation.uk261.amountGbp).toBeNull();
      expect(data.compensation.rationale.join(' ')).toMatch(
        new RegExp(
          `Diverted to ${early.divertedTo}, which serves the same city or region as ${early.destination}.*no arrival time at ${early.divertedTo} or ${early.destination}.*depends on the delay of the passenger's final arrival`,
        ),
      );
    } finally {
      await t.close();
    }
  });

  it('owes the amount once the landing at a same-city airport is 3 hours late, and treats another region as a cancellation', async () => {
    const t = await startTestApp(kind, {
      providers: (clock) => [
        new LaggingProvider('landed', new SimProvider(world, clock), (f) => {
          const truth = diverted.find(
            (d) =>
              d.flightNumber === f.flightIata &&
              d.scheduledDeparture === new Date(f.departure.scheduled!).toISOString(),
          );
          return f.diverted && truth
            ? { ...f, arrival: { ...f.arrival, actual: Date.parse(truth.actualArrival!) } }
            : f;
        }),
      ],
    });
    try {
      const { key } = await t.account();
      const compensation = async (f: TruthFlight) => {
        const data = json(
          await t.get(url({ flightNumber: f.flightNumber, flightDate: f.flightDate }), bearer(key)),
        ).data;
        expect(data.selected, f.flightNumber).toMatchObject({ status: 'diverted', complete: true });
        return data.compensation;
      };
      const owed = await compensation(late);
      expect(owed.eu261.amountEur ?? owed.uk261.amountGbp).toBeGreaterThan(0);
      expect(owed.rationale.join(' ')).toMatch(
        new RegExp(
          `reached ${late.divertedTo} ${lateAt(late)} minutes after the scheduled arrival at ${late.destination}`,
        ),
      );
      const under = await compensation(early);
      expect(under.eu261.amountEur ?? under.uk261.amountGbp).toBeNull();
      expect(under.rationale.join(' ')).toMatch(
        new RegExp(
          `reached ${early.divertedTo} ${lateAt(early)} minutes after.*depends on the delay of the passenger's final arrival at ${early.destination}`,
        ),
      );
      const cancellation = await compensation(elsewhere);
      expect(cancellation.eu261.amountEur ?? cancellation.uk261.amountGbp).toBeGreaterThan(0);
      expect(cancellation.rationale.join(' ')).toMatch(/treated as a cancellation/);
    } finally {
      await t.close();
    }
  });
});
