// The provider-neutral checks of a flight's times (consistency.ts), one row per contradiction, with
// the consistent pictures that must pass beside them.
import { describe, expect, it } from 'vitest';
import type { FlightEnd, ProviderFlight } from '../providers/index.js';
import { checked, contradictions } from './consistency.js';

const T = Date.UTC(2026, 1, 20, 10, 0);
const MIN = 60_000;
const at = (minutes: number) => T + minutes * MIN;

type End = Partial<Pick<FlightEnd, 'scheduled' | 'actual' | 'runwayAt' | 'actualKind'>>;
function picture(dep: End, arr: End, patch: Partial<ProviderFlight> = {}): ProviderFlight {
  const end = (e: End, iata: string): FlightEnd => ({ airport: { iata, icao: null }, estimated: null, runway: null, scheduled: null, actual: null, ...e });
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
    ['runway times only', picture({ actual: at(18), actualKind: 'runway' }, { actual: at(78), actualKind: 'runway' }), null],
    ['off-block a few minutes early (KL 1164: 04:57 for 05:00)', picture({ actual: at(-3), runwayAt: at(24) }, { actual: at(45) }), null],
    ['a minute of rounding between take-off and off-block', picture({ actual: at(20), runwayAt: at(19) }, { actual: at(80) }), null],
    ['a two-day delay', picture({ actual: at(2880) }, { actual: at(2950) }), null],
    ['result unknown: landing at the second of the take-off', picture({ actual: at(5), actualKind: 'runway' }, { actual: at(5), actualKind: 'runway' }), /not after the actual departure/],
    ['arrival before departure', picture({ actual: at(30) }, { actual: at(20) }), /10:20 UTC\) is not after the actual departure \(10:30 UTC\)/],
    ['a landing before the take-off (block times fine)', picture({ actual: at(0), runwayAt: at(50) }, { actual: at(60), runwayAt: at(40) }), /landing \(10:40 UTC\) is not after the take-off/],
    ['take-off 16 minutes before off-block', picture({ actual: at(30), runwayAt: at(14) }, { actual: at(80) }), /take-off \(10:14 UTC\) is before the off-block time \(10:30 UTC\)/],
    ['landing after on-block', picture({ actual: at(0) }, { actual: at(60), runwayAt: at(65) }), /landing \(11:05 UTC\) is after the on-block time/],
    ['taxi-out of four hours', picture({ actual: at(0), runwayAt: at(240) }, { actual: at(300) }), /more than 3 hours after the off-block/],
    ['taxi-in of three hours', picture({ actual: at(0) }, { actual: at(240), runwayAt: at(60) }), /more than 2 hours after the landing/],
    ['a flight of 30 hours', picture({ actual: at(0) }, { actual: at(1800) }), /more than 24 hours after/],
    ['a take-off 140 minutes before the schedule (AeroAPI FO 5021)', picture({ actual: at(-140), actualKind: 'runway' }, { actual: at(-60), actualKind: 'runway' }), /140 minutes before its scheduled departure/],
  ])('%s', (_name, flight, problem) => {
    const found = contradictions(flight);
    if (problem === null) expect(found).toEqual([]);
    else expect(found.join(' ')).toMatch(problem);
  });

  it('checks nothing on a cancelled flight: its times are the schedule and the provider\'s leftovers', () => {
    expect(contradictions(picture({ actual: at(30) }, { actual: at(20) }, { cancelled: true }))).toEqual([]);
  });

  it('keeps a flight with any doubt, its own or found here, from settling', () => {
    const clean = picture({ actual: at(20) }, { actual: at(80) });
    expect(checked(clean)).toBe(clean);
    const own = checked({ ...clean, doubts: ['The schedule is a copy of the actual times.'] });
    expect(own).toMatchObject({ settled: false, doubts: ['The schedule is a copy of the actual times.'] });
    const found = checked(picture({ actual: at(30) }, { actual: at(20) }));
    expect(found.settled).toBe(false);
    expect(found.doubts).toHaveLength(1);
  });
});
