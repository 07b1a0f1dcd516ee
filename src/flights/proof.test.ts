// The proof's compensation line, on real assessments: a same-city diversion whose final arrival the
// record does not know must not read "nothing owed".
import { describe, expect, it } from 'vitest';
import { loadReferenceAirports } from '../airports/index.js';
import { assess, type AssessmentInput } from '../compensation/index.js';
import { circumstancesLine, compensationLine } from './proof.js';

const airports = loadReferenceAirports();
const line = (input: Omit<AssessmentInput, 'origin' | 'destination' | 'airline'>, isDiverted: boolean) =>
  compensationLine({
    compensation: assess(airports, { origin: 'OTP', destination: 'FCO', airline: 'RO', ...input }),
    selected: { isDiverted, destinationIata: 'FCO' } as never,
  });

describe('the compensation line of a proof', () => {
  it('says a same-city diversion is owed from 3 hours at the destination, not that nothing is owed', () => {
    expect(line({ outcome: 'diverted', divertedTo: 'CIA', arrivalDelayMinutes: null, finalArrival: false }, true)).toBe(
      'EU261 / UK261: owed if passengers reached FCO 3 hours or more late',
    );
    expect(line({ outcome: 'diverted', divertedTo: 'NAP' }, true)).toMatch(/^EU261: €250 per passenger/);
    expect(line({ outcome: 'delayed', arrivalDelayMinutes: 60 }, false)).toBe('No compensation owed under EU261 / UK261 for this outcome');
  });
});

describe('the circumstances line of a proof', () => {
  it('names the cause, the leg a knock-on started on, and the assessment; nothing without circumstances', () => {
    const base = { weather: [], airport: [], seen: { weather: [], boards: [], aircraft: 'followed' }, reasons: [] };
    expect(circumstancesLine({ circumstances: { ...base, assessment: 'likely_extraordinary', cause: 'weather', originLeg: null } })).toBe(
      'Circumstances: weather · likely extraordinary (Art. 5(3))',
    );
    const leg = { flightNumber: 'KL1008', flightDate: '2019-06-05', origin: 'LHR', destination: 'AMS' };
    expect(circumstancesLine({ circumstances: { ...base, assessment: 'likely_extraordinary', cause: 'knock_on', originLeg: leg } })).toBe(
      'Circumstances: knock-on from KL1008 LHR–AMS 2019-06-05 · likely extraordinary (Art. 5(3))',
    );
    expect(circumstancesLine({ circumstances: { ...base, assessment: 'not_indicated', cause: 'airline_strike', originLeg: null } })).toBe(
      'Circumstances: airline strike · not indicated (Art. 5(3))',
    );
    expect(circumstancesLine({ circumstances: null })).toBeNull();
  });
});
