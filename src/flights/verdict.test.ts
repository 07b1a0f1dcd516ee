// The classification rules of docs/flight-lookup.md, as tables: status order, delay arithmetic,
// completeness per outcome, status kinds, confidence and the merge of several providers.
import { describe, expect, it } from 'vitest';
import type { ProviderFlight } from '../providers/index.js';
import { formatDelay } from './rationale.js';
import type { MergedFlight } from './shapes.js';
import { classify, isComplete } from './verdict.js';
import { mergeAnswers } from './merge.js';

const T = Date.UTC(2026, 1, 20, 10, 0);
const MIN = 60_000;

function flight(patch: {
  dep?: [number | null, number | null, number | null];
  arr?: [number | null, number | null, number | null];
  cancelled?: boolean;
  diverted?: boolean;
  settled?: boolean;
  provider?: string;
  statusRaw?: string | null;
  aircraft?: ProviderFlight['aircraft'];
  origin?: string;
  destination?: string;
}): ProviderFlight {
  const [ds, de, da] = patch.dep ?? [T, null, T];
  const [as, ae, aa] = patch.arr ?? [T + 120 * MIN, null, T + 120 * MIN];
  return {
    provider: patch.provider ?? 'sim',
    flightIata: 'W63101',
    flightIcao: 'WZZ3101',
    callsign: 'WZZ3101',
    airline: { name: 'Wizz Air', iata: 'W6', icao: 'WZZ' },
    operating: null,
    codeshares: [],
    operation: 'passenger',
    departure: {
      airport: { iata: patch.origin ?? 'OTP', icao: 'LROP' },
      scheduled: ds,
      estimated: de,
      actual: da,
      runway: null,
    },
    arrival: {
      airport: { iata: patch.destination ?? 'LTN', icao: 'EGGW' },
      scheduled: as,
      estimated: ae,
      actual: aa,
      runway: null,
    },
    divertedTo: patch.diverted ? { iata: 'STN', icao: 'EGSS' } : null,
    phase: 'landed',
    cancelled: patch.cancelled ?? false,
    diverted: patch.diverted ?? false,
    statusRaw: patch.statusRaw === undefined ? 'Landed' : patch.statusRaw,
    aircraft:
      patch.aircraft === undefined
        ? { registration: 'HA-LXA', icao24: '471F00', typeIcao: 'A21N', typeIata: '32Q', label: 'Airbus A321neo' }
        : patch.aircraft,
    observedAt: T + DAY3,
    settled: patch.settled ?? true,
  };
}
const DAY3 = 3 * 24 * 60 * MIN;

const single = (f: ProviderFlight): MergedFlight => mergeAnswers([{ provider: f.provider, legs: [f] }])!;

describe('the status order and the delay arithmetic', () => {
  it.each([
    // name, flight, status, delayMinutes, departureDelayMinutes, isDelayed
    [
      'cancelled wins over everything',
      flight({ cancelled: true, dep: [T, null, null], arr: [T + 120 * MIN, null, null] }),
      'cancelled',
      null,
      null,
      false,
    ],
    [
      'diverted wins over a late departure',
      flight({ diverted: true, dep: [T, null, T + 200 * MIN], arr: [T + 120 * MIN, null, null] }),
      'diverted',
      null,
      200,
      false,
    ],
    [
      '15 minutes late at arrival is delayed',
      flight({ arr: [T + 120 * MIN, null, T + 135 * MIN] }),
      'delayed',
      15,
      0,
      true,
    ],
    [
      '14 minutes late is on time but isDelayed',
      flight({ arr: [T + 120 * MIN, null, T + 134 * MIN] }),
      'on_time',
      14,
      0,
      true,
    ],
    [
      'early is on time and not delayed',
      flight({ arr: [T + 120 * MIN, null, T + 110 * MIN] }),
      'on_time',
      -10,
      0,
      false,
    ],
    ['exactly on time is not delayed', flight({}), 'on_time', 0, 0, false],
    [
      'the estimate stands in for a missing actual arrival',
      flight({ arr: [T + 120 * MIN, T + 160 * MIN, null], settled: false }),
      'delayed',
      40,
      0,
      true,
    ],
    [
      'the actual arrival beats the estimate',
      flight({ arr: [T + 120 * MIN, T + 160 * MIN, T + 125 * MIN] }),
      'on_time',
      5,
      0,
      true,
    ],
    [
      'no arrival time: the departure delay decides',
      flight({ dep: [T, null, T + 30 * MIN], arr: [T + 120 * MIN, null, null], settled: false }),
      'delayed',
      null,
      30,
      false,
    ],
    [
      'nothing but the schedule is on time',
      flight({ dep: [T, null, null], arr: [T + 120 * MIN, null, null], settled: false }),
      'on_time',
      null,
      null,
      false,
    ],
  ] as const)('%s', (_name, f, status, delay, departureDelay, isDelayed) => {
    const { selected } = classify(single(f));
    expect(selected).toMatchObject({ status, delayMinutes: delay, departureDelayMinutes: departureDelay, isDelayed });
    expect(selected.isCancelled).toBe(status === 'cancelled');
    expect(selected.isDiverted).toBe(status === 'diverted');
  });
});

describe('completeness: which timings settle each outcome', () => {
  it.each([
    [
      'cancelled with a scheduled departure',
      flight({ cancelled: true, dep: [T, null, null], arr: [null, null, null] }),
      true,
    ],
    ['cancelled without one', flight({ cancelled: true, dep: [null, null, null], arr: [null, null, null] }), false],
    ['diverted, departed, settled', flight({ diverted: true, arr: [T + 120 * MIN, null, null] }), true],
    [
      'diverted but still in the air',
      flight({ diverted: true, arr: [T + 120 * MIN, null, null], settled: false }),
      false,
    ],
    ['flown with both actual times', flight({}), true],
    ['flown without the actual arrival', flight({ arr: [T + 120 * MIN, T + 130 * MIN, null] }), false],
    ['flown without the actual departure', flight({ dep: [T, null, null] }), false],
    ['no scheduled arrival', flight({ arr: [null, null, T + 120 * MIN] }), false],
  ] as const)('%s → %s', (_name, f, complete) => {
    expect(isComplete(f)).toBe(complete);
    expect(classify(single(f)).selected.complete).toBe(complete);
  });
});

describe('the verdict', () => {
  it.each([
    [-7, '-7m'],
    [0, '0m'],
    [45, '45m'],
    [60, '1h 0m'],
    [192, '3h 12m'],
  ])('formats %i minutes as %s', (minutes, text) => expect(formatDelay(minutes)).toBe(text));

  it.each([
    [-3, 'early', 'none'],
    [10, 'on_time', 'none'],
    [15, 'minor_delay', 'delay'],
    [59, 'minor_delay', 'delay'],
    [60, 'significant_delay', 'delay'],
    [179, 'significant_delay', 'delay'],
    [180, 'long_delay', 'delay'],
  ] as const)('an arrival %i minutes late is %s', (minutes, kind, type) => {
    const { flightDelay } = classify(single(flight({ arr: [T + 120 * MIN, null, T + (120 + minutes) * MIN] })));
    expect(flightDelay).toMatchObject({
      delayMinutes: minutes,
      statusKind: kind,
      disruption: { type, neverArrived: false, confidence: 'high' },
    });
  });

  it('says a cancellation never arrived, with high confidence once settled, and explains it', () => {
    const { selected, flightDelay } = classify(
      single(
        flight({ cancelled: true, dep: [T, null, null], arr: [T + 120 * MIN, null, null], statusRaw: 'Cancelled' }),
      ),
    );
    expect(selected.status).toBe('cancelled');
    expect(flightDelay).toMatchObject({
      delayMinutes: 0,
      delayFormatted: '0m',
      statusKind: 'cancelled',
      disruption: {
        type: 'cancellation',
        isCancelled: true,
        neverArrived: true,
        arrivalDelayMinutes: 0,
        confidence: 'high',
        sources: ['sim'],
      },
    });
    expect(flightDelay!.disruption.rationale.join(' ')).toMatch(/reported cancelled by sim \("Cancelled"\)/);
  });

  it('explains a diversion with its airport', () => {
    const { flightDelay } = classify(single(flight({ diverted: true, arr: [T + 120 * MIN, null, null] })));
    expect(flightDelay).toMatchObject({
      statusKind: 'diverted',
      disruption: { type: 'diversion', isDiverted: true, neverArrived: true },
    });
    expect(flightDelay!.disruption.rationale.join(' ')).toMatch(/diverted to STN/);
  });

  it('rates estimates medium, a departure alone low, and has no verdict without timings', () => {
    expect(
      classify(single(flight({ arr: [T + 120 * MIN, T + 140 * MIN, null], settled: false }))).flightDelay!.disruption
        .confidence,
    ).toBe('medium');
    const departed = classify(
      single(flight({ dep: [T, null, T + 20 * MIN], arr: [T + 120 * MIN, null, null], settled: false })),
    );
    expect(departed.flightDelay).toMatchObject({
      delayMinutes: 20,
      disruption: { confidence: 'low', arrivalDelayMinutes: 0, departureDelayMinutes: 20 },
    });
    expect(departed.flightDelay!.disruption.rationale.join(' ')).toMatch(/no arrival time is known yet/);
    expect(
      classify(single(flight({ dep: [T, null, null], arr: [T + 120 * MIN, null, null], settled: false }))).flightDelay,
    ).toBeNull();
  });
});

describe('the merge of several providers', () => {
  it('starts from the settled picture and fills its gaps from the incomplete one, keeping each field’s source', () => {
    const incomplete = flight({
      provider: 'early',
      arr: [T + 120 * MIN, T + 150 * MIN, null],
      settled: false,
      statusRaw: 'Expected 12:30',
    });
    const settled = flight({
      provider: 'late',
      arr: [T + 120 * MIN, null, T + 155 * MIN],
      aircraft: null,
      statusRaw: 'Landed 12:35',
    });
    const merged = mergeAnswers([
      { provider: 'early', legs: [incomplete] },
      { provider: 'late', legs: [settled] },
    ])!;
    expect(merged.providers).toEqual(['late', 'early']);
    expect(merged.flight.arrival).toMatchObject({ estimated: T + 150 * MIN, actual: T + 155 * MIN });
    expect(merged.flight.statusRaw).toBe('Landed 12:35');
    expect(merged.flight.aircraft?.registration).toBe('HA-LXA');
    expect(merged.fieldSources).toMatchObject({
      actualArrival: 'late',
      estimatedArrival: 'early',
      aircraft: 'early',
      statusRaw: 'late',
    });
    const { selected, flightDelay } = classify(merged);
    expect(selected).toMatchObject({ source: 'late', delayMinutes: 35, complete: true, status: 'delayed' });
    expect(flightDelay!.disruption).toMatchObject({ sources: ['late', 'early'], confidence: 'high' });
  });

  it('flags providers that disagree on what happened and lowers the confidence', () => {
    const a = flight({ provider: 'a', arr: [T + 120 * MIN, null, T + 200 * MIN] });
    const b = flight({ provider: 'b', arr: [T + 120 * MIN, null, T + 215 * MIN] });
    const merged = mergeAnswers([
      { provider: 'a', legs: [a] },
      { provider: 'b', legs: [b] },
    ])!;
    expect(merged.disagreements).toEqual(['actualArrival']);
    const { selected, flightDelay } = classify(merged);
    expect(selected.delayMinutes).toBe(80);
    expect(flightDelay!.disruption.confidence).toBe('medium');
    expect(flightDelay!.disruption.rationale.join(' ')).toMatch(/disagree .* actualArrival/);
    expect(merged.agreements).toContainEqual({ field: 'scheduledArrival', providers: ['a', 'b'] });
    expect(merged.agreements.map((x) => x.field)).not.toContain('actualArrival');
  });

  it('says so when providers agree on what happened', () => {
    const a = flight({ provider: 'a', arr: [T + 120 * MIN, null, T + 200 * MIN] });
    const b = flight({ provider: 'b', arr: [T + 120 * MIN, null, T + 203 * MIN] });
    const merged = mergeAnswers([
      { provider: 'a', legs: [a] },
      { provider: 'b', legs: [b] },
    ])!;
    expect(merged.disagreements).toEqual([]);
    expect(merged.agreements.map((x) => x.field)).toEqual(
      expect.arrayContaining(['scheduledArrival', 'actualArrival']),
    );
    const { flightDelay } = classify(merged);
    expect(flightDelay!.disruption.confidence).toBe('high');
    expect(flightDelay!.disruption.rationale.join(' ')).toMatch(/a and b agree within 5 minutes on .*actualArrival/);
  });

  it('picks the first leg of a number that flies several, names the others, and matches legs across providers by route', () => {
    const first = flight({ provider: 'a', origin: 'OTP', destination: 'LTN' });
    const second = flight({
      provider: 'a',
      origin: 'LTN',
      destination: 'OTP',
      dep: [T + 180 * MIN, null, T + 180 * MIN],
      arr: [T + 300 * MIN, null, T + 300 * MIN],
    });
    const otherProvider = flight({
      provider: 'b',
      origin: 'LTN',
      destination: 'OTP',
      dep: [T + 180 * MIN, null, null],
      arr: [T + 300 * MIN, null, null],
    });
    const merged = mergeAnswers([
      { provider: 'a', legs: [second, first] },
      { provider: 'b', legs: [otherProvider] },
    ])!;
    expect(merged.flight.departure.airport.iata).toBe('OTP');
    expect(merged.providers).toEqual(['a']); // b's only leg is the other one
    expect(merged.otherLegs).toEqual([{ origin: 'LTN', destination: 'OTP' }]);
    expect(classify(merged).flightDelay!.disruption.rationale.join(' ')).toMatch(/also flew LTN → OTP/);
  });

  it('does not merge another rotation on the same route, and takes the leg from the settled answer', () => {
    const morning = flight({ provider: 'a', settled: false, arr: [T + 120 * MIN, T + 140 * MIN, null] });
    const evening = flight({
      provider: 'b',
      dep: [T + 8 * 60 * MIN, null, T + 8 * 60 * MIN],
      arr: [T + 10 * 60 * MIN, null, T + 10 * 60 * MIN],
    });
    const merged = mergeAnswers([
      { provider: 'a', legs: [morning] },
      { provider: 'b', legs: [evening] },
    ])!;
    // b's settled answer leads; a's picture is of another flight and stays out.
    expect(merged.providers).toEqual(['b']);
    expect(merged.flight.departure.scheduled).toBe(T + 8 * 60 * MIN);
    expect(merged.flight.arrival.estimated).toBeNull();
  });

  it('keeps an older picture’s estimates out of a cancelled record, and diversions are the base provider’s word', () => {
    const older = flight({
      provider: 'a',
      settled: false,
      dep: [T, T + 30 * MIN, null],
      arr: [T + 120 * MIN, T + 150 * MIN, null],
      diverted: false,
    });
    const cancelled = flight({
      provider: 'b',
      cancelled: true,
      dep: [T, null, null],
      arr: [T + 120 * MIN, null, null],
    });
    const merged = mergeAnswers([
      { provider: 'a', legs: [older] },
      { provider: 'b', legs: [cancelled] },
    ])!;
    expect(merged.flight.departure.estimated).toBeNull();
    expect(merged.flight.arrival.estimated).toBeNull();
    expect(classify(merged).selected).toMatchObject({ status: 'cancelled', estimatedArrival: null });
  });
});

describe('edge timings', () => {
  it('counts whole minutes: 14 min 50 s late is 14 minutes and on time', () => {
    const { selected } = classify(single(flight({ arr: [T + 120 * MIN, null, T + 134 * MIN + 50_000] })));
    expect(selected).toMatchObject({ delayMinutes: 14, status: 'on_time', isDelayed: true });
  });

  it('gives a diversion its verdict even without a departure time', () => {
    const { flightDelay } = classify(
      single(flight({ diverted: true, dep: [T, null, null], arr: [T + 120 * MIN, null, null], settled: false })),
    );
    expect(flightDelay).toMatchObject({
      statusKind: 'diverted',
      delayMinutes: 0,
      disruption: { type: 'diversion', neverArrived: true },
    });
  });
});

describe('what kind of time the verdict rests on, and a provider that contradicts itself', () => {
  it('records each time with its provider and kind, and says when a runway time stands in for a block time', () => {
    const f = flight({ arr: [T + 120 * MIN, T + 150 * MIN, T + 155 * MIN] });
    f.arrival.actualKind = 'runway';
    f.arrival.estimatedKind = 'revised';
    f.departure.runwayAt = T + 12 * MIN;
    const merged = single(f);
    expect(merged.times).toEqual(
      expect.arrayContaining([
        { provider: 'sim', field: 'scheduledArrival', kind: 'scheduled', at: T + 120 * MIN },
        { provider: 'sim', field: 'estimatedArrival', kind: 'revised', at: T + 150 * MIN },
        { provider: 'sim', field: 'actualArrival', kind: 'runway', at: T + 155 * MIN },
        { provider: 'sim', field: 'actualDeparture', kind: 'block', at: T },
        { provider: 'sim', field: 'takeOff', kind: 'runway', at: T + 12 * MIN },
      ]),
    );
    const rationale = classify(merged).flightDelay!.disruption.rationale.join(' ');
    expect(rationale).toMatch(/arrived 2026-02-20 12:35 UTC \(sim, landing time \(runway\)\): 35m late/);
    expect(rationale).toMatch(/It landed at 12:35 UTC by the runway time \(sim\); the on-block time is missing/);
    expect(rationale).not.toMatch(/took off/);
  });

  it('never settles a record whose times come from a picture with a doubt, lowers the confidence one level and says why', () => {
    const doubted = {
      ...flight({ arr: [T + 120 * MIN, null, T + 155 * MIN] }),
      doubts: ['The schedule is a copy of the actual times.'],
    };
    const merged = single(doubted);
    expect(merged.doubts).toEqual([{ provider: 'sim', message: 'The schedule is a copy of the actual times.' }]);
    const { selected, flightDelay } = classify(merged);
    expect(selected).toMatchObject({ complete: false, status: 'delayed', delayMinutes: 35 });
    expect(flightDelay!.disruption.confidence).toBe('medium');
    const rationale = flightDelay!.disruption.rationale.join(' ');
    expect(rationale).toMatch(
      /sim: The schedule is a copy of the actual times\. Because the data contradicts itself, the record is not settled/,
    );
    expect(rationale).not.toMatch(/has not finished/);
    // Estimates only: medium falls to low.
    const estimate = {
      ...flight({ arr: [T + 120 * MIN, T + 150 * MIN, null], settled: false }),
      doubts: ['Status says Arrived before its arrival.'],
    };
    expect(classify(single(estimate)).flightDelay!.disruption.confidence).toBe('low');
  });

  it('ignores the doubts of a provider whose picture gave the record no time', () => {
    const settled = flight({ provider: 'a', arr: [T + 120 * MIN, null, T + 155 * MIN] });
    const other = {
      ...flight({ provider: 'b', arr: [T + 120 * MIN, null, null], settled: false, aircraft: null }),
      doubts: ['Something odd.'],
    };
    // b gives the same schedule (a's comes first) and nothing else: its doubt is not the record's.
    const merged = mergeAnswers([
      { provider: 'a', legs: [settled] },
      { provider: 'b', legs: [other] },
    ])!;
    expect(merged.doubts).toEqual([]);
    expect(classify(merged).selected.complete).toBe(true);
  });
});
