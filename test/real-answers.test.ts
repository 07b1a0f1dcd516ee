// The corpus of real recorded answers (test/fixtures/real/) through the whole service, as a claims
// firm would ask: each provider alone behind its fixture server replaying what was published, and
// the verdict a careful claims handler would give, or an honest "not settled" with the reason. The
// adapters' own replays (src/providers/*.real.test.ts) check every file field by field; this checks
// what reaches the customer: status, delay, `complete`, confidence, the rationale, what is stored.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { AEROAPI_KEY, aeroRealFiles, aeroRealText, isWholeAnswer, startAeroFixture, wrapRecorded, type AeroFixture } from './helpers/aeroapi-fixture.js';
import { describeEachDatabase } from './helpers/databases.js';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';

type Data = {
  selected: Record<string, unknown> | null;
  flightDelay: { delayMinutes: number; disruption: { confidence: string; rationale: string[]; type: string } } | null;
  compensation: unknown;
  meta: { cached: boolean; persisted: boolean };
  sources: { provider: string; outcome: string; times: { field: string; kind: string; at: string }[] }[];
};

interface Case {
  what: string;
  flightNumber: string;
  flightDate: string;
  /** `null`: nothing found. */
  selected: Record<string, unknown> | null;
  confidence?: 'high' | 'medium' | 'low';
  /** Sentences (or parts) the rationale must hold. */
  says?: (string | RegExp)[];
  /** Whether the record is stored (a settled disruption more than 72 h old). */
  persisted?: boolean;
}

async function ask(t: TestApp, key: string, c: Case): Promise<Data> {
  const response = await t.get(`/api/v1/flights/status?${new URLSearchParams({ flightNumber: c.flightNumber, flightDate: c.flightDate })}`, bearer(key));
  expect(response.statusCode).toBe(200);
  return json(response).data as Data;
}

function check(data: Data, c: Case): void {
  if (c.selected === null) {
    expect(data.selected).toBeNull();
    return;
  }
  expect(data.selected).toMatchObject(c.selected);
  if (c.confidence) expect(data.flightDelay!.disruption.confidence).toBe(c.confidence);
  const rationale = data.flightDelay?.disruption.rationale.join(' ') ?? '';
  for (const part of c.says ?? []) {
    if (typeof part === 'string') expect(rationale).toContain(part);
    else expect(rationale).toMatch(part);
  }
  if (c.persisted !== undefined) expect(data.meta.persisted).toBe(c.persisted);
  // A record that is not settled is never assessed for compensation.
  if (data.selected!.complete === false) expect(data.compensation).toBeNull();
}

/** AeroAPI answers recorded in 2022 (history) and on 2024-10-10 (live window): the clock is after both. */
const AEROAPI_NOW = Date.parse('2024-10-15T12:00:00Z');
const AEROAPI_CASES: Case[] = [
  {
    what: 'AA 931 arrived 150 min late by its gate times: settled, stored',
    flightNumber: 'AA931',
    flightDate: '2024-10-10',
    selected: { complete: true, status: 'delayed', delayMinutes: 150, actualArrival: '2024-10-10T12:51:00.000Z' },
    confidence: 'high',
    says: ['(aeroapi, on-block time): 2h 30m late'],
    persisted: true,
  },
  {
    what: 'AR 1545 arrived 8 min early; its runway names are not times',
    flightNumber: 'AR1545',
    flightDate: '2024-10-10',
    selected: { complete: true, status: 'on_time', delayMinutes: -8 },
    confidence: 'high',
    persisted: false,
  },
  {
    what: 'MDA 2372, adhoc: the schedule is a copy of the actual times, so nothing can be measured or settled',
    flightNumber: 'AE2372',
    flightDate: '2022-06-02',
    selected: { complete: false },
    says: [/aeroapi: The schedule is a copy of the actual times/, 'the record is not settled'],
    persisted: false,
  },
  {
    what: 'CZ 472 on 2022-06-03: cancelled, whatever progress 100 % and the delay of minus the epoch say',
    flightNumber: 'CZ472',
    flightDate: '2022-06-03',
    selected: { complete: true, status: 'cancelled', isCancelled: true },
    persisted: true,
  },
  {
    what: 'CZ 472 on 2022-05-28: result unknown (landing at the second of the take-off), filed-plan schedule',
    flightNumber: 'CZ472',
    flightDate: '2022-05-28',
    selected: { complete: false, actualArrival: null },
    says: [/aeroapi: The landing time equals the take-off time/],
    persisted: false,
  },
  {
    what: 'FX 5501: no gate times and no airline arrival schedule: the landing is named, nothing is settled',
    flightNumber: 'FX5501',
    flightDate: '2024-10-10',
    selected: { complete: false },
    says: [/by the runway time \(aeroapi\); the on-block time is missing/, /filed flight plan/],
    persisted: false,
  },
  {
    what: 'FO 5021 took off 2 h 20 min before its schedule: a track matched to the wrong flight',
    flightNumber: 'FO5021',
    flightDate: '2024-10-10',
    selected: { complete: false },
    says: [/aeroapi: It left 140 minutes before its scheduled departure/],
    persisted: false,
  },
  {
    what: 'UNI Air B7 8612 asked: the operating EVA Air BR 8612 on 2022-05-30, 25 min late',
    flightNumber: 'B78612',
    flightDate: '2022-05-30',
    selected: { complete: true, status: 'delayed', delayMinutes: 25, flightIata: 'B78612' },
    confidence: 'high',
    persisted: true,
  },
  {
    what: 'LV-JUW, a private position-only track, is no flight',
    flightNumber: 'LV-JUW',
    flightDate: '2024-10-10',
    selected: null,
  },
];

describeEachDatabase('real AeroAPI answers through the service', (kind) => {
  let fixture: AeroFixture;
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    fixture = await startAeroFixture([], AEROAPI_NOW);
    for (const file of aeroRealFiles()) {
      const text = aeroRealText(file);
      if (isWholeAnswer(text)) continue;
      const object = JSON.parse(text) as Record<string, string>;
      for (const field of ['ident', 'ident_iata', 'ident_icao']) {
        if (typeof object[field] === 'string') fixture.recordedFlights.set(object[field].replace(/[^A-Za-z0-9]/g, '').toUpperCase(), wrapRecorded('flights', [text]));
      }
    }
    const cz472 = aeroRealText('cz472-flights-zh-tw-cancelled-unknown-adhoc-multi-day.json');
    const eva8612 = aeroRealText('eva8612-flights-zh-tw-codeshare-adhoc-legs-cancelled.json');
    for (const ident of ['CZ472', 'CSN472']) fixture.recordedFlights.set(ident, cz472);
    for (const ident of ['B78612', 'UIA8612', 'BR8612', 'EVA8612']) fixture.recordedFlights.set(ident, eva8612);
    t = await startTestApp(kind, {
      clock: new ManualClock(AEROAPI_NOW),
      providerNames: ['aeroapi'],
      upstream: { aeroapi: { key: AEROAPI_KEY, url: fixture.url, requestsPerMinute: 1000 } },
      webhooks: { intervalMs: 365 * 24 * 3600_000 },
    });
    key = (await t.account()).key;
  });
  afterAll(async () => {
    await t?.close();
    await fixture?.close();
  });

  it.each(AEROAPI_CASES.map((c) => [c.what, c] as const))('%s', async (_what, c) => {
    check(await ask(t, key, c), c);
  });

  it('records the kind of every time it used, and replays a settled record without asking again', async () => {
    const first = await ask(t, key, AEROAPI_CASES[0]!);
    const aeroapi = first.sources.find((s) => s.provider === 'aeroapi')!;
    expect(aeroapi.times).toEqual(
      expect.arrayContaining([
        { field: 'scheduledArrival', kind: 'scheduled', at: '2024-10-10T10:21:00.000Z' },
        { field: 'actualArrival', kind: 'block', at: '2024-10-10T12:51:00.000Z' },
        expect.objectContaining({ field: 'landing', kind: 'runway' }),
      ]),
    );
    const calls = fixture.requests.length;
    const again = await ask(t, key, AEROAPI_CASES[0]!);
    expect(again.meta.cached).toBe(true);
    expect(fixture.requests.length).toBe(calls);
  });
});
