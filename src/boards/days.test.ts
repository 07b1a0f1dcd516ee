// A past day's boards read after the fact (docs/boards.md, "A past day's boards"), on each database: read once and kept,
// so a second service on the same database (another process) asks no provider; asked only once the day
// is over, only of a provider that reads past boards, and a day the provider does not hold is said.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock, HOUR } from '../clock.js';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../../test/helpers/databases.js';
import { openDatabase, type Database } from '../db/index.js';
import { loadReferenceAirports } from '../airports/index.js';
import { createSimProvider } from '../sim/index.js';
import type { FlightProvider } from '../providers/index.js';
import { AirportDays, ObservedFlightStore } from './index.js';
import { gaps } from './days.js';

const DATE = '2026-02-20';
/** Luton is on UTC in February: its local day is the UTC day. */
const DAY_START = Date.parse(`${DATE}T00:00:00Z`);

describeEachDatabase("a past day's boards", (kind) => {
  let database: TestDatabase;
  let db: Database;
  let clock: ManualClock;
  let sim: FlightProvider;
  let asked: string[];
  const airports = loadReferenceAirports();
  /** The simulated world's boards, each ask of a past day written down. */
  const counted = (provider: FlightProvider): FlightProvider => ({
    ...provider,
    readBoardDay: (day, options) => {
      asked.push(`${day.airport} ${day.board} ${day.date}`);
      return provider.readBoardDay!(day, options);
    },
  });
  const days = (providers: FlightProvider[]) =>
    new AirportDays({ providers, observed: new ObservedFlightStore(db), airports, clock, timeoutMs: 5_000 });
  const call = () => ({ signal: new AbortController().signal, meter: { requests: 0 } });

  beforeEach(async () => {
    database = await createTestDatabase(kind);
    db = await openDatabase(database.target, { migrate: true });
    clock = new ManualClock(DAY_START + 3 * 24 * HOUR);
    sim = createSimProvider({ seed: 'test', latency: {}, failures: {} }, clock);
    asked = [];
  });
  afterEach(async () => {
    await db?.close();
    await database?.drop();
  });

  it('reads both boards of the day once, at four priced requests, keeps them, and shares them with another service on the database', async () => {
    const first = days([counted(sim)]);
    const meter = call();
    const [a, b] = await Promise.all([first.read('LTN', DATE, meter), first.read('LTN', DATE, call())]);
    expect([a, b]).toEqual(['read', 'read']);
    expect(asked).toEqual([`LTN departures ${DATE}`, `LTN arrivals ${DATE}`]);
    // Priced as AeroDataBox prices it: two windows of 12 local hours, each board.
    expect(meter.meter.requests).toBe(4);
    const movements = await first.movements('LTN', DAY_START, DAY_START + 24 * HOUR);
    expect(movements.filter((m) => m.board === 'departures').length).toBeGreaterThan(50);
    expect(movements.filter((m) => m.board === 'arrivals').length).toBeGreaterThan(50);
    // The world's strike at Luton that day: many carriers' flights cancelled.
    expect(new Set(movements.filter((m) => m.cancelled).map((m) => m.carrier)).size).toBeGreaterThanOrEqual(3);
    expect(movements.every((m) => m.scheduledAt >= DAY_START && m.scheduledAt < DAY_START + 24 * HOUR)).toBe(true);

    const second = days([counted(sim)]);
    expect(await second.read('LTN', DATE, call())).toBe('read');
    expect(asked).toHaveLength(2);
    expect(await second.movements('LTN', DAY_START, DAY_START + 24 * HOUR)).toEqual(movements);
    const record = await db.kysely.selectFrom('airport_days').selectAll().execute();
    expect(record).toMatchObject([{ airport: 'LTN', date: DATE, provider: 'sim', rows: movements.length }]);

    // Held: every row of the hours kept, in the day read whole or in hours the poll kept whole.
    const third = days([counted(sim)]);
    expect(await third.held('LTN', DAY_START + 2 * HOUR, DAY_START + 6 * HOUR)).toBe(true);
    expect(await third.held('LTN', DAY_START - 2 * HOUR, DAY_START + 2 * HOUR)).toBe(false);
    await new ObservedFlightStore(db).keepHours('LTN', DAY_START - 3 * HOUR, DAY_START);
    expect(await days([counted(sim)]).held('LTN', DAY_START - 2 * HOUR, DAY_START + 2 * HOUR)).toBe(true);
    expect(await days([counted(sim)]).held('LTN', DAY_START - 4 * HOUR, DAY_START + 2 * HOUR)).toBe(false);
  });

  it('gives a window the rows of a local day read after the window was first asked', async () => {
    // Warsaw is an hour ahead in February: its 20th ends at 23:00 UTC, and 23:00–24:00 UTC is its 21st.
    const service = days([counted(sim)]);
    expect(await service.read('WAW', DATE, call())).toBe('read');
    const [from, to] = [DAY_START + 21 * HOUR, DAY_START + 24 * HOUR];
    const before = await service.movements('WAW', from, to);
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((m) => m.scheduledAt < DAY_START + 23 * HOUR)).toBe(true);
    expect(await service.read('WAW', '2026-02-21', call())).toBe('read');
    const after = await service.movements('WAW', from, to);
    expect(after.some((m) => m.scheduledAt >= DAY_START + 23 * HOUR)).toBe(true);
    expect(after.length).toBe((await days([sim]).movements('WAW', from, to)).length);
  });

  it('waits for the day to be over, asks only a provider that reads past boards, and says when the provider holds none', async () => {
    // Two days later: over at midnight UTC, which is now; its last flights not yet final.
    expect(await days([counted(sim)]).read('LTN', '2026-02-22', call())).toBe('not_over');
    const { readBoardDay: _, ...today } = sim;
    expect(await days([today as FlightProvider]).read('LTN', DATE, call())).toBe('not_offered');
    // An airport outside the simulated world's catalogue: no boards of it, asked once for a while.
    const service = days([counted(sim)]);
    expect(await service.read('BRS', DATE, call())).toBe('not_available');
    expect(await service.read('BRS', DATE, call())).toBe('not_available');
    expect(asked).toEqual([`BRS departures ${DATE}`]);
    expect(await db.kysely.selectFrom('airport_days').selectAll().execute()).toEqual([]);
  });
});

describe('the hours no kept span covers', () => {
  const span = (from: number, to: number) => ({ from, to });
  it('gives the parts of the window outside every span, overlapping or not', () => {
    expect(gaps([], 0, 10)).toEqual([span(0, 10)]);
    expect(gaps([span(0, 10)], 0, 10)).toEqual([]);
    expect(gaps([span(-5, 3), span(2, 4), span(6, 8), span(7, 12)], 0, 10)).toEqual([span(4, 6)]);
    expect(gaps([span(2, 4)], 0, 10)).toEqual([span(0, 2), span(4, 10)]);
    expect(gaps([span(2, 4), span(4, 9)], 0, 10)).toEqual([span(0, 2), span(9, 10)]);
  });
});
