// A batch of a claims firm's dense portfolio, asked weeks later of a service that watched nothing
// (issue 43, section 5): every flight of a few airports over a few days, a third of them disrupted.
// The plan reads each origin's day whole (both boards, kept: src/boards/days.ts); the flights are
// answered from those rows, and their circumstances read the same days and follow each aircraft
// through them: no request for a flight or an aircraft's day beyond what the airport-days give.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { groundTruth, type TruthFlight } from '../src/sim/index.js';
import { describeEachDatabase } from './helpers/databases.js';
import { providerCalls } from './helpers/metrics.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';
import { expectSameAsSingle, waitForBatch } from './helpers/batches.js';

const DAYS = ['2026-02-16', '2026-02-17', '2026-02-18'];
const AIRPORTS = ['LTN', 'STN', 'OTP'];

describeEachDatabase('a dense portfolio asked after the fact', (kind) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp(kind, {});
    key = (await t.account({ plan: { included: 100_000, overage: false } })).key;
  });
  afterAll(() => t.close());

  const calls = () => providerCalls(t);

  it("reads each origin's day once, answers every flight from it, and follows the aircraft through the days read", async () => {
    const flights = DAYS.flatMap((d) => groundTruth(t.app.sim!, d)).filter(
      (f) =>
        f.operation === 'passenger' &&
        AIRPORTS.includes(f.origin) &&
        f.scheduledDeparture.slice(0, 10) === f.flightDate,
    );
    const legs = new Map<string, number>();
    for (const f of flights)
      legs.set(`${f.flightNumber}|${f.flightDate}`, (legs.get(`${f.flightNumber}|${f.flightDate}`) ?? 0) + 1);
    const once = flights.filter((f) => legs.get(`${f.flightNumber}|${f.flightDate}`) === 1);
    const disrupted = (f: TruthFlight) =>
      f.status === 'cancelled' || f.status === 'diverted' || (f.arrivalDelayMinutes ?? 0) >= 180;
    // Each origin's day: its disrupted flights and twice as many others (at least six), so a third are disrupted.
    const portfolio: TruthFlight[] = [];
    for (const airport of AIRPORTS) {
      for (const date of DAYS) {
        const there = once.filter((f) => f.origin === airport && f.flightDate === date);
        const hits = there.filter(disrupted);
        portfolio.push(...hits, ...there.filter((f) => !disrupted(f)).slice(0, Math.max(6, 2 * hits.length)));
      }
    }
    const hit = portfolio.filter(disrupted);
    const rows = portfolio.map((f, i) => ({
      flightNumber: f.flightNumber,
      flightDate: f.flightDate,
      origin: f.origin,
      reference: `r${i + 1}`,
    }));
    const before = await calls();
    const response = await t.app.http.inject({
      method: 'POST',
      url: '/api/v1/batches',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: JSON.stringify(rows),
    });
    expect(response.statusCode).toBe(202);
    const done = await waitForBatch(t, key, json(response).data.id, undefined, 120_000);
    expect(done.counts.byState.done).toBe(rows.length);
    const after = await calls();
    const spent = (kind: string) => (after[kind] ?? 0) - (before[kind] ?? 0);
    // Every origin's day planned whole (9 days, 4 requests each), each with at least six rows.
    expect(json(response).data.providerCalls.planned).toBe(AIRPORTS.length * DAYS.length * 4);
    // What was made: the airport-days read (each once, kept: the origins' and the disrupted flights'
    // other ends in the catalogue), a request for each diverted flight (where it landed is on no board
    // read), and the aircraft's days the boards could not give.
    const kept = await t.app.db.kysely.selectFrom('airport_days').select(['airport', 'date']).execute();
    for (const airport of AIRPORTS) for (const date of DAYS) expect(kept).toContainEqual({ airport, date });
    expect(done.providerCalls.made).toBe(4 * kept.length + spent('flight') + spent('rotation'));
    expect(spent('flight')).toBe(portfolio.filter((f) => f.status === 'diverted').length);
    // The aircraft's day was asked only where a leg touched an airport with no boards.
    let followed = 0;
    for (const f of hit) {
      const c = json(
        await t.get(
          `/api/v1/flights/status?flightNumber=${f.flightNumber}&flightDate=${f.flightDate}&origin=${f.origin}`,
          bearer(key),
        ),
      ).data.circumstances;
      if (c.seen.aircraft === 'boards') continue;
      // A diversion is judged on its own legs: its aircraft's day is not asked for.
      expect(c.seen.aircraft, f.flightNumber).toBe(f.status === 'diverted' ? 'not_needed' : 'followed');
      if (f.status === 'diverted') continue;
      followed++;
      expect(c.reasons.join(' '), f.flightNumber).toContain('holds none of that day');
    }
    expect(spent('rotation')).toBe(followed);
    expect(followed).toBeLessThan(hit.length / 10);
    // Rows answered from the kept days answer what a single lookup answers.
    const results = json(await t.get(`/api/v1/batches/${done.id}/results?limit=1000`, bearer(key))).data.results;
    for (const [i, row] of results.entries()) {
      if (i % 10 !== 0) continue;
      const single = json(
        await t.get(
          `/api/v1/flights/status?${new URLSearchParams({ flightNumber: rows[i]!.flightNumber, flightDate: rows[i]!.flightDate, origin: rows[i]!.origin, refresh: 'true' })}`,
          bearer(key),
        ),
      ).data;
      expectSameAsSingle(row, single, `${row.reference} ${rows[i]!.flightNumber}`);
    }
  }, 180_000);
});
