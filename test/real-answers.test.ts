// The corpus of real recorded answers (test/fixtures/real/) through the whole service, as a claims
// firm would ask: each provider alone behind its fixture server replaying what was published, and
// the verdict a careful claims handler would give, or an honest "not settled" with the reason. The
// adapters' own replays (src/providers/*.real.test.ts) check every file field by field; this checks
// what reaches the customer: status, delay, `complete`, confidence, the rationale, what is stored.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { ManualClock } from '../src/clock.js';
import { ADB_KEY, startAdbFixture } from './helpers/aerodatabox-fixture.js';
import { AVIATIONSTACK_KEY, recordedAnswer, startAvsFixture } from './helpers/aviationstack-fixture.js';
import {
  AEROAPI_KEY,
  aeroRealFiles,
  aeroRealText,
  isWholeAnswer,
  startAeroFixture,
  wrapRecorded,
} from './helpers/aeroapi-fixture.js';
import { describeEachDatabase, type DatabaseKind } from './helpers/databases.js';
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
  const response = await t.get(
    `/api/v1/flights/status?${new URLSearchParams({ flightNumber: c.flightNumber, flightDate: c.flightDate })}`,
    bearer(key),
  );
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

/**
 * The service on one provider, behind its fixture server, on a manual clock after the recorded
 * flights: `serve()` gives the running service and its account key once `beforeAll` has run.
 */
function serviceOn<F extends { url: string; close(): Promise<void> }>(
  kind: DatabaseKind,
  o: { now: number; provider: 'aeroapi' | 'aerodatabox' | 'aviationstack'; key: string; fixture: () => Promise<F> },
): () => { t: TestApp; key: string; fixture: F } {
  let running: { t: TestApp; key: string; fixture: F } | undefined;
  beforeAll(async () => {
    const fixture = await o.fixture();
    const t = await startTestApp(kind, {
      clock: new ManualClock(o.now),
      providerNames: [o.provider],
      upstream: { [o.provider]: { key: o.key, url: fixture.url, requestsPerMinute: 1000 } },
      webhooks: { intervalMs: 365 * 24 * 3600_000 },
    });
    running = { t, key: (await t.account()).key, fixture };
  });
  afterAll(async () => {
    await running?.t.close();
    await running?.fixture.close();
  });
  return () => running!;
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
    says: [
      /aeroapi: It left 130 minutes before its scheduled departure \(09:30 UTC against 11:40 UTC\)/,
      'That is ahead of schedule',
    ],
    persisted: false,
  },
  {
    what: 'G3 8240: no gate arrival, landed 8 min before the gate schedule: on time whatever the taxi-in, so settled despite the doubts',
    flightNumber: 'G38240',
    flightDate: '2024-10-10',
    selected: { complete: true, status: 'on_time', delayMinutes: -8 },
    says: [
      /aeroapi: The gate departure time equals the schedule/,
      /Weighed: on every reading of the doubted times the arrival delay is between -8 and 11 minutes, under 15 minutes whichever is right: they cannot change the verdict or the compensation, so the record is settled\./,
    ],
    persisted: false,
  },
  {
    what: 'CZ 472 on 2022-05-30: a gate arrival copied from the landing, 83 to 103 min late on every reading: settled, stored',
    flightNumber: 'CZ472',
    flightDate: '2022-05-30',
    selected: { complete: true, status: 'delayed', delayMinutes: 83 },
    says: [
      /aeroapi: The gate arrival time is a copy of the landing time/,
      /between 83 and 103 minutes, between 15 minutes and 3 hours whichever is right/,
    ],
    persisted: true,
  },
  {
    what: 'CZ 472 on 2022-05-23: 163 min late by the landing, and a taxi-in could make it 3 hours: not settled',
    flightNumber: 'CZ472',
    flightDate: '2022-05-23',
    selected: { complete: false, status: 'delayed', delayMinutes: 163 },
    says: [/could be anything from 163 to 183 minutes, across the 3-hour limit, so the record is not settled/],
    persisted: false,
  },
  {
    what: 'UNI Air B7 8612 asked: the operating EVA Air BR 8612 on 2022-05-30, 25 min late',
    flightNumber: 'B78612',
    flightDate: '2022-05-30',
    selected: { complete: true, status: 'delayed', delayMinutes: 25, flightIata: 'B78612' },
    confidence: 'high',
    says: ['B78612 is a codeshare: the flight is operated as BR8612 by BR'],
    persisted: true,
  },
];

describeEachDatabase('real AeroAPI answers through the service', (kind) => {
  const serve = serviceOn(kind, {
    now: AEROAPI_NOW,
    provider: 'aeroapi',
    key: AEROAPI_KEY,
    fixture: async () => {
      const fixture = await startAeroFixture([], AEROAPI_NOW);
      for (const file of aeroRealFiles()) {
        const text = aeroRealText(file);
        if (isWholeAnswer(text)) continue;
        const object = JSON.parse(text) as Record<string, string>;
        for (const field of ['ident', 'ident_iata', 'ident_icao']) {
          if (typeof object[field] === 'string')
            fixture.recordedFlights.set(
              object[field].replace(/[^A-Za-z0-9]/g, '').toUpperCase(),
              wrapRecorded('flights', [text]),
            );
        }
      }
      const cz472 = aeroRealText('cz472-flights-zh-tw-cancelled-unknown-adhoc-multi-day.json');
      const eva8612 = aeroRealText('eva8612-flights-zh-tw-codeshare-adhoc-legs-cancelled.json');
      for (const ident of ['CZ472', 'CSN472']) fixture.recordedFlights.set(ident, cz472);
      for (const ident of ['B78612', 'UIA8612', 'BR8612', 'EVA8612']) fixture.recordedFlights.set(ident, eva8612);
      return fixture;
    },
  });

  it.each(AEROAPI_CASES.map((c) => [c.what, c] as const))('%s', async (_what, c) => {
    const { t, key } = serve();
    check(await ask(t, key, c), c);
  });

  it('records the kind of every time it used, and replays a settled record without asking again', async () => {
    const { t, key, fixture } = serve();
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

const real = (provider: string, file: string) =>
  readFileSync(new URL(`./fixtures/real/${provider}/${file}`, import.meta.url), 'utf8');

/** AeroDataBox answers recorded from 2020 to 2026: the clock is after all of them. */
const ADB_NOW = Date.UTC(2026, 1, 1);
const ADB_CASES: Case[] = [
  {
    what: 'FR 7157 arrived 90 min late by its on-block time (84 by the runway): settled, stored',
    flightNumber: 'FR7157',
    flightDate: '2023-08-01',
    selected: { complete: true, status: 'delayed', delayMinutes: 90, departureDelayMinutes: 104 },
    confidence: 'high',
    says: ['(aerodatabox, on-block time): 1h 30m late'],
    persisted: true,
  },
  {
    what: 'BA 2107, a codeshare row still "Delayed": the operating EI 277 arrived, 25 min late',
    flightNumber: 'BA2107',
    flightDate: '2023-08-01',
    selected: { complete: true, status: 'delayed', delayMinutes: 25, flightIata: 'BA2107' },
    says: [/BA2107 is a codeshare: the flight is operated as EI277/],
    persisted: true,
  },
  {
    what: 'FR 289: a revised departure equal to the schedule while the runway shows a take-off two hours late',
    flightNumber: 'FR289',
    flightDate: '2023-08-01',
    selected: { complete: false, status: 'delayed', actualDeparture: '2023-08-01T20:48:00.000Z' },
    says: [
      /It took off at 20:48 UTC by the runway time \(aerodatabox\)/,
      /aerodatabox: .*revised departure/i,
      "bear on the departure's times only",
      'The flight has not finished',
    ],
    persisted: false,
  },
  {
    what: 'SN 3811 "Arrived" before its only arrival time, an estimate, had passed',
    flightNumber: 'SN3811',
    flightDate: '2024-05-27',
    selected: { complete: false, actualArrival: null },
    says: [/aerodatabox: .*Arrived/],
    persisted: false,
  },
  {
    what: 'DL 47 on 2026-01-02, cancelled (its revised time a copy of the schedule)',
    flightNumber: 'DL47',
    flightDate: '2026-01-02',
    selected: { complete: true, status: 'cancelled', estimatedDeparture: null },
    persisted: true,
  },
  {
    what: 'KL 1164 in the legacy flat format: 15 min early by the runway time',
    flightNumber: 'KL1164',
    flightDate: '2023-01-10',
    selected: { complete: true, status: 'on_time', delayMinutes: -15 },
    says: [/It landed at 07:30 UTC by the runway time \(aerodatabox\)/],
  },
  {
    what: 'MF 9386, a codeshare row without departure times: found through KL 1846, 19 min late',
    flightNumber: 'MF9386',
    flightDate: '2020-03-28',
    selected: { complete: true, status: 'delayed', delayMinutes: 19, flightIata: 'MF9386' },
    says: [/MF9386 is a codeshare: the flight is operated as KL1846/],
  },
];

describeEachDatabase('real AeroDataBox answers through the service', (kind) => {
  const serve = serviceOn(kind, {
    now: ADB_NOW,
    provider: 'aerodatabox',
    key: ADB_KEY,
    fixture: async () => {
      const fixture = await startAdbFixture([]);
      const dir = new URL('./fixtures/real/aerodatabox/', import.meta.url);
      for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
        if (file.startsWith('g4-1588-')) continue; // a board row of another endpoint
        const body = JSON.parse(real('aerodatabox', file)) as unknown;
        // Dublin's arrivals board (withLeg) leaves out the board's own airport.
        const omitted = /^(fr7157|ei277|ba2107|fr289|ei407|ei249|b6-6829)-/.test(file)
          ? { omitted: { arrival: 'DUB' } }
          : {};
        for (const row of Array.isArray(body) ? body : [body]) fixture.real.flights.push({ row, ...omitted });
      }
      return fixture;
    },
  });

  it.each(ADB_CASES.map((c) => [c.what, c] as const))('%s', async (_what, c) => {
    const { t, key } = serve();
    check(await ask(t, key, c), c);
  });
});

/** aviationstack answers recorded from 2020 to 2025. */
const AVS_NOW = Date.parse('2025-08-01T00:00:00Z');
const AVS_CASES: (Case & { file: string })[] = [
  {
    what: 'TR 428 landed 17 min early by its runway times: settled, not stored (on time)',
    file: 'tr428-sin-pen-landed-arrived-early.json',
    flightNumber: 'TR428',
    flightDate: '2020-02-04',
    selected: { complete: true, status: 'on_time', delayMinutes: -17 },
    confidence: 'high',
    persisted: false,
  },
  {
    what: 'MH 132: an arrival estimate copied from the schedule while the delay field says 55 minutes',
    file: 'mh132-akl-kul-scheduled-delay-55-estimate-is-schedule.json',
    flightNumber: 'MH132',
    flightDate: '2023-01-10',
    selected: { complete: false, estimatedArrival: null },
    persisted: false,
  },
  {
    what: 'QF 3634, codeshare of CZ 3723, landed 15 min early the UTC day before its local flight date',
    file: 'qf3634-codeshare-of-cz3723-landed-early-utc-date-before-flight-date.json',
    flightNumber: 'QF3634',
    flightDate: '2025-07-15',
    selected: { complete: true, status: 'on_time', delayMinutes: -15, flightIata: 'QF3634' },
    says: [/QF3634 is a codeshare: the flight is operated as CZ3723/],
  },
  {
    what: 'TK 6567 "diverted" while still at cruise six hours after take-off: a diversion, not settled, no compensation',
    file: 'snn-departures-tk6567-diverted-still-airborne.json',
    flightNumber: 'TK6567',
    flightDate: '2021-02-07',
    selected: { complete: false, status: 'diverted', isDiverted: true, departureDelayMinutes: 400 },
    says: [
      /aviationstack: The status says diverted while the live position at 02:14 UTC shows the aircraft still in the air/,
      'the record is not settled',
    ],
    persisted: false,
  },
  {
    what: 'FR 3337 "active" while its live position is on the ground at its destination',
    file: 'fr3337-rix-pfo-active-but-on-ground-at-destination.json',
    flightNumber: 'FR3337',
    flightDate: '2024-12-17',
    selected: { complete: false },
    says: [/aviationstack: .*ground/],
    persisted: false,
  },
];

describeEachDatabase('real aviationstack answers through the service', (kind) => {
  const serve = serviceOn(kind, {
    now: AVS_NOW,
    provider: 'aviationstack',
    key: AVIATIONSTACK_KEY,
    fixture: () => startAvsFixture([]),
  });

  it.each(AVS_CASES.map((c) => [c.what, c] as const))('%s', async (_what, c) => {
    const { t, key, fixture } = serve();
    // The fixture serves one recorded answer at a time, whatever number is asked.
    fixture.recorded.splice(0, fixture.recorded.length, recordedAnswer(real('aviationstack', c.file)));
    check(await ask(t, key, c), c);
  });
});
