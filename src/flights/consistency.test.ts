// The provider-neutral checks of a flight's times (consistency.ts), one row per contradiction, with
// the consistent pictures that must pass beside them.
import { describe, expect, it } from 'vitest';
import type { FlightEnd, ProviderFlight } from '../providers/index.js';
import { EU261_DELAY_MINUTES } from '../compensation/index.js';
import { Doubts, OUTCOME_THRESHOLDS_MINUTES, weigh, weightOf } from '../providers/doubts.js';
import { checked, contradictions } from './consistency.js';
import { DELAY_THRESHOLD_MINUTES } from './shapes.js';

const T = Date.UTC(2026, 1, 20, 10, 0);
const MIN = 60_000;
const at = (minutes: number) => T + minutes * MIN;

type End = Partial<Pick<FlightEnd, 'scheduled' | 'actual' | 'runwayAt' | 'actualKind'>>;
function picture(dep: End, arr: End, patch: Partial<ProviderFlight> = {}): ProviderFlight {
  const end = (e: End, iata: string): FlightEnd => ({
    airport: { iata, icao: null },
    estimated: null,
    runway: null,
    scheduled: null,
    actual: null,
    ...e,
  });
  return {
    provider: 'p',
    flightIata: 'EI277',
    flightIcao: null,
    callsign: null,
    airline: { name: null, iata: 'EI', icao: null },
    operating: null,
    codeshares: [],
    operation: 'passenger',
    departure: end({ scheduled: at(0), ...dep }, 'BHX'),
    arrival: end({ scheduled: at(60), ...arr }, 'DUB'),
    divertedTo: null,
    phase: 'landed',
    cancelled: false,
    diverted: false,
    statusRaw: null,
    aircraft: null,
    observedAt: at(600),
    settled: true,
    ...patch,
  };
}

describe('the times of a flight', () => {
  it.each([
    ['block times in order', picture({ actual: at(20), runwayAt: at(38) }, { actual: at(85), runwayAt: at(78) }), null],
    [
      'runway times only',
      picture({ actual: at(18), actualKind: 'runway' }, { actual: at(78), actualKind: 'runway' }),
      null,
    ],
    [
      'off-block a few minutes early (KL 1164: 04:57 for 05:00)',
      picture({ actual: at(-3), runwayAt: at(24) }, { actual: at(45) }),
      null,
    ],
    [
      'a minute of rounding between take-off and off-block',
      picture({ actual: at(20), runwayAt: at(19) }, { actual: at(80) }),
      null,
    ],
    ['a two-day delay', picture({ actual: at(2880) }, { actual: at(2950) }), null],
    [
      'result unknown: landing at the second of the take-off',
      picture({ actual: at(5), actualKind: 'runway' }, { actual: at(5), actualKind: 'runway' }),
      /not after the actual departure/,
    ],
    [
      'arrival before departure',
      picture({ actual: at(30) }, { actual: at(20) }),
      /10:20 UTC\) is not after the actual departure \(10:30 UTC\)/,
    ],
    [
      'a landing before the take-off (block times fine)',
      picture({ actual: at(0), runwayAt: at(50) }, { actual: at(60), runwayAt: at(40) }),
      /landing \(10:40 UTC\) is not after the take-off/,
    ],
    [
      'take-off 16 minutes before off-block',
      picture({ actual: at(30), runwayAt: at(14) }, { actual: at(80) }),
      /take-off \(10:14 UTC\) is before the off-block time \(10:30 UTC\)/,
    ],
    [
      'landing after on-block',
      picture({ actual: at(0) }, { actual: at(60), runwayAt: at(65) }),
      /landing \(11:05 UTC\) is after the on-block time/,
    ],
    [
      'taxi-out of four hours',
      picture({ actual: at(0), runwayAt: at(240) }, { actual: at(300) }),
      /more than 3 hours after the off-block/,
    ],
    [
      'taxi-in of three hours',
      picture({ actual: at(0) }, { actual: at(240), runwayAt: at(60) }),
      /more than 2 hours after the landing/,
    ],
    ['a flight of 30 hours', picture({ actual: at(0) }, { actual: at(1800) }), /more than 24 hours after/],
    [
      'a take-off 140 minutes before the schedule (AeroAPI FO 5021)',
      picture({ actual: at(-140), actualKind: 'runway' }, { actual: at(-60), actualKind: 'runway' }),
      /140 minutes before its scheduled departure/,
    ],
  ])('%s', (_name, flight, problem) => {
    const found = contradictions(flight);
    if (problem === null) expect(found.messages).toEqual([]);
    else expect(found.messages.join(' ')).toMatch(problem);
  });

  it("checks nothing on a cancelled flight: its times are the schedule and the provider's leftovers", () => {
    expect(contradictions(picture({ actual: at(30) }, { actual: at(20) }, { cancelled: true })).messages).toEqual([]);
  });

  it('keeps a flight from settling with a doubt that bears on its outcome, its own or found here', () => {
    const clean = picture({ actual: at(20) }, { actual: at(80) });
    expect(checked(clean)).toBe(clean);
    const own = checked({ ...clean, doubts: ['The schedule is a copy of the actual times.'] });
    expect(own).toMatchObject({ settled: false, doubts: ['The schedule is a copy of the actual times.'] });
    const found = checked(picture({ actual: at(30) }, { actual: at(20) }));
    expect(found.settled).toBe(false);
    expect(found.doubts).toHaveLength(1);
  });
});

describe('doubts weighed against the outcome (providers/doubts.ts)', () => {
  it('uses the thresholds the verdict and the compensation turn on', () => {
    expect(OUTCOME_THRESHOLDS_MINUTES).toEqual([DELAY_THRESHOLD_MINUTES, EU261_DELAY_MINUTES, 240]);
  });

  it('settles a flight on block on schedule whose take-off is before its revised departure, itself the schedule (a departure doubt)', () => {
    const f = checked(picture({ actual: at(0), runwayAt: at(-6) }, { actual: at(60), runwayAt: at(52) }));
    expect(f.doubts).toEqual([
      expect.stringMatching(/take-off \(09:54 UTC\) is before the off-block time \(10:00 UTC\)/),
    ]);
    expect(f.settled).toBe(true);
  });

  it('keeps a landing after the on-block time open only when a taxi-in after the landing could cross a threshold', () => {
    // On block 7 min late, the landing 3 min after it: the arrival is 7 to 30 minutes late on the readings.
    const late = checked(picture({ actual: at(5) }, { actual: at(67), runwayAt: at(70) }));
    expect(weigh(late, late.doubtWeight!)).toMatchObject({
      holds: false,
      because: 'threshold',
      threshold: 15,
      delays: { from: 7, to: 30 },
    });
    expect(late.settled).toBe(false);
    // Two hours late either way: 2h 0m to 2h 25m, between 15 minutes and 3 hours.
    const long = checked(picture({ actual: at(120) }, { actual: at(180), runwayAt: at(185) }));
    expect(weigh(long, long.doubtWeight!)).toMatchObject({
      holds: true,
      because: 'arrival_range',
      delays: { from: 120, to: 145 },
    });
    expect(long.settled).toBe(true);
  });

  it.each([
    ['an on-time flight whose delay field says 9 (13 by its times)', 13, 9, true],
    ['an on-time flight whose delay field says 20 (13 by its times)', 13, 20, false],
    ['3 h 10 min late, the field says 3 h 50 min', 190, 230, true],
    ['3 h 50 min late, the field says 4 h 5 min (the halving of Art. 7(2)(c))', 230, 245, false],
  ])('weighs a delay field that disagrees with the times: %s', (_what, byTimes, field, holds) => {
    const doubts = new Doubts();
    doubts.add('The arrival delay field disagrees.', {
      from: Math.min(at(60 + byTimes), at(60 + field)),
      to: Math.max(at(60 + byTimes), at(60 + field)),
    });
    const f = picture({ actual: at(byTimes) }, { actual: at(60 + byTimes) }, doubts.fields());
    expect(weigh(f, weightOf(f)).holds).toBe(holds);
  });

  it('never settles a doubt on the outcome, and a cancellation whatever its times', () => {
    const doubts = new Doubts();
    doubts.add('The landing time equals the take-off time.', 'outcome');
    expect(weigh(picture({}, { actual: at(60) }, doubts.fields()), weightOf(doubts.fields())).holds).toBe(false);
    // Doubts said without a weight (a provider that does not weigh them) bear on the outcome.
    expect(weightOf({ doubts: ['Something.'] })).toEqual({ timesOnly: false, arrival: null });
    const times = new Doubts();
    times.add('The departure schedule is the filed flight plan.', 'departure');
    expect(weigh(picture({}, {}, { cancelled: true }), weightOf(times.fields()))).toMatchObject({
      holds: true,
      because: 'cancelled',
    });
  });
});
