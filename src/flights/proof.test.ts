// The proof's compensation line, on real assessments: a same-city diversion whose final arrival the
// record does not know must not read "nothing owed".
import { describe, expect, it } from 'vitest';
import { loadReferenceAirports } from '../airports/index.js';
import { assess, type AssessmentInput } from '../compensation/index.js';
import { circumstancesLine, compensationLine, PROOF_HEIGHT, PROOF_WIDTH, ProofRenderer } from './proof.js';
import type { FlightStatusData } from './schema.js';

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
    expect(line({ outcome: 'delayed', arrivalDelayMinutes: 60 }, false)).toBe(
      'No compensation owed under EU261 / UK261 for this outcome',
    );
  });
});

describe('the circumstances line of a proof', () => {
  it('names the cause, the leg a knock-on started on, and the assessment; nothing without circumstances', () => {
    const base = { weather: [], airport: [], seen: { weather: [], boards: [], aircraft: 'followed' }, reasons: [] };
    expect(
      circumstancesLine({
        circumstances: { ...base, assessment: 'likely_extraordinary', cause: 'weather', originLeg: null },
      }),
    ).toBe('Circumstances: weather · likely extraordinary (Art. 5(3))');
    const leg = { flightNumber: 'KL1008', flightDate: '2019-06-05', origin: 'LHR', destination: 'AMS' };
    expect(
      circumstancesLine({
        circumstances: { ...base, assessment: 'likely_extraordinary', cause: 'knock_on', originLeg: leg },
      }),
    ).toBe('Circumstances: knock-on from KL1008 LHR–AMS 2019-06-05 · likely extraordinary (Art. 5(3))');
    expect(
      circumstancesLine({
        circumstances: { ...base, assessment: 'not_indicated', cause: 'airline_strike', originLeg: null },
      }),
    ).toBe('Circumstances: airline strike · not indicated (Art. 5(3))');
    expect(circumstancesLine({ circumstances: null })).toBeNull();
  });
});

describe('the proof image never cuts its text', () => {
  // Every line drawn, with the width it takes at the font it was drawn in.
  const drawn: { text: string; x: number; y: number; width: number; align: string }[] = [];
  const spying = async () => {
    const canvas = await import('@napi-rs/canvas');
    return {
      ...canvas,
      createCanvas: ((width: number, height: number) => {
        const made = canvas.createCanvas(width, height);
        const ctx = made.getContext('2d');
        const fillText = ctx.fillText.bind(ctx);
        ctx.fillText = (text: string, x: number, y: number) => {
          drawn.push({ text, x, y, width: ctx.measureText(text).width, align: ctx.textAlign });
          fillText(text, x, y);
        };
        return made;
      }) as typeof canvas.createCanvas,
    };
  };
  const renderer = new ProofRenderer(airports, spying);
  // The two longest names of the reference airports, a designator of 12 characters, many providers.
  const [long, longer] = [...airports.all].sort((a, b) => b.name.length - a.name.length);
  const first = `ZZ9999999999 ${long!.iata} → ${longer!.iata} was scheduled to arrive 2026-11-30 10:25 UTC and arrived 2026-11-30 13:43 UTC (sim, on-block time, confirmed by aerodatabox and flightaware within 2 minutes): 3h 18m late, which is a long delay under every rule this service applies.`;
  const second =
    'It left its origin 3h 02m late (scheduled 2026-11-30 07:05 UTC, 2026-11-30 10:07 UTC by the actual off-block time), and the runway times of two providers agree with the block times to the minute.';
  const providers = [
    'aerodatabox',
    'flightaware-aeroapi',
    'aviationstack',
    'opensky-network',
    'sim',
    'another-provider-with-a-long-name',
    'yet-another-provider',
  ];
  const data = {
    flightNumber: 'ZZ9999999999',
    flightDate: '2026-11-30',
    originIata: long!.iata,
    destinationIata: longer!.iata,
    selected: {
      status: 'delayed',
      isCancelled: false,
      isDiverted: false,
      delayMinutes: 198,
      flightIata: 'ZZ9999999999',
      flightIcao: 'ZZZ9999999999',
      originIata: long!.iata,
      destinationIata: longer!.iata,
      airline: {
        name: 'Compañía de Transportes Aéreos Internacionales del Atlántico Sur y Norte',
        iata: 'ZZ',
        icao: 'ZZZ',
      },
      scheduledDeparture: '2026-11-30T07:05:00.000Z',
      scheduledArrival: '2026-11-30T10:25:00.000Z',
      actualDeparture: '2026-11-30T10:07:00.000Z',
      actualArrival: '2026-11-30T13:43:00.000Z',
    },
    flightDelay: {
      delayMinutes: 198,
      delayFormatted: '3h 18m',
      disruption: { confidence: 'medium', rationale: [first, second] },
    },
    compensation: null,
    circumstances: {
      assessment: 'possibly_extraordinary',
      cause: 'knock_on',
      originLeg: {
        flightNumber: 'ZZ9999999998',
        flightDate: '2026-11-30',
        origin: longer!.iata,
        destination: long!.iata,
      },
      weather: [],
      airport: [],
      seen: {},
      reasons: [],
    },
    meta: { cached: true },
    sources: providers.map((provider) => ({ provider, outcome: 'incomplete' })),
  } as unknown as FlightStatusData;

  it('draws every line within the image, each airport name in its half, and every sentence, name and provider whole', async () => {
    drawn.length = 0;
    await renderer.render(data, Date.parse('2026-12-01T09:00:00Z'));
    expect(drawn.length).toBeGreaterThan(10);
    for (const line of drawn) {
      const left =
        line.align === 'left' ? line.x : line.align === 'right' ? line.x - line.width : line.x - line.width / 2;
      expect(left, line.text).toBeGreaterThanOrEqual(48 - 0.5);
      expect(left + line.width, line.text).toBeLessThanOrEqual(PROOF_WIDTH - 48 + 0.5);
      expect(line.y, line.text).toBeLessThanOrEqual(PROOF_HEIGHT);
    }
    // An airport's name stays clear of the arrow between the two.
    for (const line of drawn.filter((l) => l.y > 240 && l.y < 300)) {
      if (line.align === 'left') expect(line.x + line.width, line.text).toBeLessThanOrEqual(PROOF_WIDTH / 2 - 40);
      else expect(line.x - line.width, line.text).toBeGreaterThanOrEqual(PROOF_WIDTH / 2 + 40);
    }
    // The verdict's lines stay above the rule at 700.
    expect(Math.max(...drawn.filter((l) => l.y > 552 && l.y < 720).map((l) => l.y))).toBeLessThan(700);
    const all = drawn.map((l) => l.text).join(' ');
    for (const whole of [first, long!.name, longer!.name, 'ZZ9999999999', ...providers])
      expect(all, whole).toContain(whole);
    expect(all).not.toContain('…');
  });
});
