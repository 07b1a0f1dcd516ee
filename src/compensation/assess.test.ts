// Hand-checked routes and situations: scope of each regulation, distance bands, the intra-EU cap,
// the Art. 7(2) reduction, cancellations, diversions, and the catalogue's non-EU airports.
import { describe, expect, it } from 'vitest';
import { loadReferenceAirports } from '../airports/index.js';
import { assess, type Outcome } from './assess.js';

const airports = loadReferenceAirports();

type Row = [
  name: string,
  origin: string,
  destination: string,
  airline: string,
  outcome: Outcome,
  delay: number | null,
  eu: number | null | 'n/a',
  uk: number | null | 'n/a',
  band: 'short' | 'medium' | 'long',
  divertedTo?: string,
];

// eu / uk: the amount owed, null when covered but nothing is owed, 'n/a' when the regulation does not apply.
const ROWS: Row[] = [
  ['EU departure on an EU carrier, into the UK: both regimes', 'OTP', 'LTN', 'W6', 'delayed', 200, 400, 350, 'medium'],
  ['UK departure on a UK carrier into the EU: UK261 only', 'LTN', 'OTP', 'W9', 'delayed', 200, 'n/a', 350, 'medium'],
  ['UK departure on an EU carrier into the EU: both', 'LTN', 'OTP', 'W6', 'delayed', 200, 400, 350, 'medium'],
  ['domestic, 2 h 59 late: covered, nothing owed', 'OTP', 'CLJ', 'RO', 'delayed', 179, null, 'n/a', 'short'],
  ['domestic, 3 h late: owed', 'OTP', 'CLJ', 'RO', 'delayed', 180, 250, 'n/a', 'short'],
  ['intra-EU over 3,500 km is capped at €400', 'LIS', 'LCA', 'TP', 'delayed', 200, 400, 'n/a', 'medium'],
  ['EU to a third country over 3,500 km, 3–4 h late: halved', 'AGP', 'HRK', 'FR', 'delayed', 200, 300, 'n/a', 'long'],
  ['EU to a third country over 3,500 km, 4 h late: full', 'AGP', 'HRK', 'FR', 'delayed', 250, 600, 'n/a', 'long'],
  ['Basel-Mulhouse is in France: departures covered', 'BSL', 'RMO', 'W6', 'delayed', 200, 400, 'n/a', 'medium'],
  ['Basel-Mulhouse under its French code', 'MLH', 'RMO', 'W6', 'cancelled', null, 400, 'n/a', 'medium'],
  [
    'Chișinău into the EU on a Moldovan carrier: not covered',
    'RMO',
    'BSL',
    '5F',
    'delayed',
    200,
    'n/a',
    'n/a',
    'medium',
  ],
  ['Chișinău into the EU on an EU carrier: covered', 'RMO', 'BSL', 'W6', 'delayed', 200, 400, 'n/a', 'medium'],
  ['Tirana into the EU on Wizz Air (HU)', 'TIA', 'BGY', 'W6', 'cancelled', null, 250, 'n/a', 'short'],
  ['Tirana into the EU on Wizz Air Malta (MT)', 'TIA', 'BGY', 'W4', 'cancelled', null, 250, 'n/a', 'short'],
  ['Skopje into the EU on Austrian', 'SKP', 'VIE', 'OS', 'cancelled', null, 250, 'n/a', 'short'],
  ['Skopje to Istanbul: neither end in the EU', 'SKP', 'IST', 'TK', 'cancelled', null, 'n/a', 'n/a', 'short'],
  ['Oslo is in the EEA: covered', 'OSL', 'CPH', 'SK', 'cancelled', null, 250, 'n/a', 'short'],
  [
    'Zurich to Manchester on Swiss: EU261 (a Swiss departure), not UK261 (Switzerland licensed it, no Member State)',
    'ZRH',
    'MAN',
    'LX',
    'delayed',
    200,
    250,
    'n/a',
    'short',
  ],
  [
    'New York to London on Swiss: neither (Swiss is a Community carrier for EU261 only)',
    'JFK',
    'LHR',
    'LX',
    'cancelled',
    null,
    'n/a',
    'n/a',
    'long',
  ],
  ['Oslo to London on Norwegian (NO): EU261 only', 'OSL', 'LGW', 'DY', 'cancelled', null, 250, 'n/a', 'short'],
  ['Copenhagen to London on SAS (SE): both', 'CPH', 'LHR', 'SK', 'cancelled', null, 250, 220, 'short'],
  [
    'London to Zurich on a UK carrier: UK261 (a UK departure), not EU261',
    'LHR',
    'ZRH',
    'BA',
    'cancelled',
    null,
    'n/a',
    220,
    'short',
  ],
  ['UK departure on a UK carrier to Spain: UK261 only', 'MAN', 'AGP', 'LS', 'cancelled', null, 'n/a', 350, 'medium'],
  ['Spain to the UK on a UK carrier: both', 'AGP', 'MAN', 'LS', 'delayed', 200, 400, 350, 'medium'],
  ['London to Dublin on Ryanair (IE): both', 'STN', 'DUB', 'FR', 'delayed', 200, 250, 220, 'short'],
  ['London to New York: UK261 long band', 'LGW', 'JFK', 'BA', 'cancelled', null, 'n/a', 520, 'long'],
  ['New York into the EU on Air France: halved at 3 h 20', 'JFK', 'CDG', 'AF', 'delayed', 200, 300, 'n/a', 'long'],
  ['New York into the EU on Delta: not covered', 'JFK', 'CDG', 'DL', 'delayed', 300, 'n/a', 'n/a', 'long'],
  ['Paris to New York on Delta: covered (EU departure)', 'CDG', 'JFK', 'DL', 'delayed', 300, 600, 'n/a', 'long'],
  ['Dubai into the EU on Emirates: not covered', 'DXB', 'MXP', 'EK', 'cancelled', null, 'n/a', 'n/a', 'long'],
  ['Milan to Dubai on Emirates: covered', 'MXP', 'DXB', 'EK', 'cancelled', null, 600, 'n/a', 'long'],
  [
    'diverted to an airport of the same city: a delay, not owed outright',
    'OTP',
    'FCO',
    'RO',
    'diverted',
    null,
    null,
    'n/a',
    'short',
    'CIA',
  ],
  ['diverted elsewhere: treated as a cancellation', 'VIE', 'FCO', 'OS', 'diverted', null, 250, 'n/a', 'short', 'NAP'],
  [
    'diverted to the same city, final arrival 2 h 59 late: nothing',
    'OTP',
    'FCO',
    'RO',
    'diverted',
    179,
    null,
    'n/a',
    'short',
    'CIA',
  ],
  [
    'diverted to the same city, final arrival 3 h 00 late: owed',
    'OTP',
    'FCO',
    'RO',
    'diverted',
    180,
    250,
    'n/a',
    'short',
    'CIA',
  ],
  [
    'diverted Stansted for Luton, 3 h 30 late: both regimes owe',
    'OTP',
    'LTN',
    'W6',
    'diverted',
    210,
    400,
    350,
    'medium',
    'STN',
  ],
  [
    'diverted to the same city, long band 3 h 20 late: halved',
    'JFK',
    'LHR',
    'BA',
    'diverted',
    200,
    'n/a',
    260,
    'long',
    'LGW',
  ],
  [
    'diverted to the same city, long band 4 h late: full',
    'JFK',
    'LHR',
    'BA',
    'diverted',
    240,
    'n/a',
    520,
    'long',
    'LGW',
  ],
  [
    'Basel under its French code is the booked airport: a delay',
    'LIS',
    'BSL',
    'TP',
    'diverted',
    179,
    null,
    'n/a',
    'medium',
    'MLH',
  ],
  [
    'diverted elsewhere, only 2 h 59 late: still a cancellation',
    'VIE',
    'FCO',
    'OS',
    'diverted',
    179,
    250,
    'n/a',
    'short',
    'NAP',
  ],
  [
    'Manchester and Liverpool are two cities: a cancellation',
    'AGP',
    'MAN',
    'LS',
    'diverted',
    60,
    400,
    350,
    'medium',
    'LPL',
  ],
  [
    'Barcelona and Girona are not one region: a cancellation',
    'LTN',
    'BCN',
    'W6',
    'diverted',
    60,
    250,
    220,
    'short',
    'GRO',
  ],
  ['Copiapó to Santiago: outside both regimes', 'CPO', 'SCL', 'LA', 'delayed', 300, 'n/a', 'n/a', 'short'],
  ['Larnaca to Tel Aviv: EU departure', 'LCA', 'TLV', 'LY', 'cancelled', null, 250, 'n/a', 'short'],
  ['Tel Aviv to Larnaca on El Al: not covered', 'TLV', 'LCA', 'LY', 'cancelled', null, 'n/a', 'n/a', 'short'],
  ['Tel Aviv to Larnaca on Cyprus Airways: covered', 'TLV', 'LCA', 'CY', 'cancelled', null, 250, 'n/a', 'short'],
  ['UK departure on an unknown carrier: UK261 still applies', 'LTN', 'OTP', 'ZZ', 'delayed', 200, 'n/a', 350, 'medium'],
  ['Paris to London on easyJet (UK licence): both', 'CDG', 'LGW', 'U2', 'delayed', 200, 250, 220, 'short'],
  ['London to Paris on easyJet Europe (AT licence): both', 'LGW', 'CDG', 'EC', 'delayed', 200, 250, 220, 'short'],
  [
    'Geneva-style: Swiss airline into Basel, a delay under 3 h',
    'LIS',
    'BSL',
    'DS',
    'delayed',
    120,
    null,
    'n/a',
    'medium',
  ],
  [
    'Kharkiv (closed since 2022) to Vienna on Austrian, cancelled',
    'HRK',
    'VIE',
    'OS',
    'cancelled',
    null,
    250,
    'n/a',
    'short',
  ],
];

describe('EU261 and UK261 assessment', () => {
  it.each(ROWS)('%s', (_name, origin, destination, airline, outcome, delay, eu, uk, band, divertedTo) => {
    const result = assess(airports, {
      origin,
      destination,
      airline,
      outcome,
      arrivalDelayMinutes: delay,
      divertedTo: divertedTo ?? null,
    })!;
    expect(result).not.toBeNull();
    expect(result.eu261.applies, 'eu261.applies').toBe(eu !== 'n/a');
    expect(result.uk261.applies, 'uk261.applies').toBe(uk !== 'n/a');
    expect(result.eu261.amountEur, 'amountEur').toBe(eu === 'n/a' ? null : eu);
    expect(result.uk261.amountGbp, 'amountGbp').toBe(uk === 'n/a' ? null : uk);
    if (eu !== 'n/a') expect(result.eu261.band).toBe(band);
    if (uk !== 'n/a') expect(result.uk261.band).toBe(band);
    expect(result.rationale.length).toBeGreaterThan(1);
  });

  it('says why UK261 covers a flight into the UK on an EU carrier and not on a Swiss or Norwegian one, citing the provision', () => {
    const why = (origin: string, airline: string) =>
      assess(airports, { origin, destination: 'MAN', airline, outcome: 'cancelled' })!.rationale.join(' ');
    expect(why('CPH', 'SK')).toContain(
      'UK261 covers this flight: it arrives in the UK on SAS, a Community carrier licensed in SE, an EU Member State (UK261 Art. 2(c), 3(1)(b)(i)).',
    );
    expect(why('ZRH', 'LX')).toContain(
      'UK261 does not cover this flight into the UK: Swiss is licensed in CH, which applies EU261 by agreement with the EU but is not an EU Member State',
    );
    expect(why('OSL', 'DY')).toContain(
      'UK261 does not cover this flight into the UK: Norwegian Air Shuttle is licensed in NO',
    );
    expect(why('ZRH', 'LX')).not.toMatch(/UK261 covers/);
  });

  it('measures great circles from the reference coordinates', () => {
    const km = (o: string, d: string) =>
      assess(airports, { origin: o, destination: d, airline: 'W6', outcome: 'cancelled' })!.distanceKm;
    // Published by the research notes (haversine, R = 6,371 km): BSL–RMO 1,612; AGP–HRK 3,559; LIS–LCA 3,796.
    expect(Math.abs(km('BSL', 'RMO') - 1612)).toBeLessThanOrEqual(10);
    expect(Math.abs(km('AGP', 'HRK') - 3559)).toBeLessThanOrEqual(10);
    expect(Math.abs(km('LIS', 'LCA') - 3796)).toBeLessThanOrEqual(10);
    expect(km('OTP', 'CLJ')).toBe(km('CLJ', 'OTP'));
  });

  it('says reduced only when halved, and explains what data cannot decide', () => {
    const halved = assess(airports, {
      origin: 'JFK',
      destination: 'CDG',
      airline: 'AF',
      outcome: 'delayed',
      arrivalDelayMinutes: 200,
    })!;
    expect(halved.eu261).toMatchObject({ reduced: true, amountEur: 300, band: 'long' });
    const cancelled = assess(airports, { origin: 'OTP', destination: 'LTN', airline: 'W6', outcome: 'cancelled' })!;
    expect(cancelled.eu261.reduced).toBe(false);
    expect(cancelled.rationale.join(' ')).toMatch(/14 days/);
    expect(cancelled.rationale.join(' ')).toMatch(/extraordinary circumstances/);
    const swiss = assess(airports, {
      origin: 'ZRH',
      destination: 'OTP',
      airline: 'LX',
      outcome: 'delayed',
      arrivalDelayMinutes: 240,
    })!;
    expect(swiss.eu261.amountEur).toBe(250);
    expect(swiss.rationale.join(' ')).toMatch(/Swiss courts/);
  });

  it('measures a same-city diversion on the final arrival, and says so', () => {
    const ask = (delay: number | null, finalArrival?: boolean, divertedTo: string | null = 'CIA') =>
      assess(airports, {
        origin: 'OTP',
        destination: 'FCO',
        airline: 'RO',
        outcome: 'diverted',
        arrivalDelayMinutes: delay,
        divertedTo,
        finalArrival,
      })!;
    expect(ask(180).rationale.join(' ')).toMatch(
      /CIA, which serves the same city or region as FCO \(Rome\).*C-826\/19/,
    );
    expect(ask(180).rationale.join(' ')).toMatch(/extraordinary circumstances/);
    // What a lookup knows (the landing at CIA) is a floor of the final arrival at FCO.
    const floor = ask(100, false);
    expect(floor.eu261.amountEur).toBeNull();
    expect(floor.rationale.join(' ')).toMatch(
      /reached CIA 100 minutes after the scheduled arrival at FCO.*depends on the delay of the passenger's final arrival at FCO/,
    );
    expect(ask(190, false).eu261.amountEur).toBe(250);
    expect(ask(null, false).rationale.join(' ')).toMatch(/no arrival time at CIA or FCO.*depends on/);
    expect(ask(null).rationale.join(' ')).toMatch(/Without the final arrival delay at FCO/);
    // Elsewhere, or nowhere named: a cancellation, whatever the delay.
    const naples = ask(30, true, 'NAP');
    expect(naples.eu261.amountEur).toBe(250);
    expect(naples.rationale.join(' ')).toMatch(
      /NAP, which does not serve FCO's city or region: treated as a cancellation/,
    );
    const unnamed = ask(30, true, null);
    expect(unnamed.eu261.amountEur).toBe(250);
    expect(unnamed.rationale.join(' ')).toMatch(/not named.*give divertedTo/);
  });

  it('has no assessment when a route end is unknown', () => {
    expect(assess(airports, { origin: 'XXX', destination: 'OTP', airline: 'W6', outcome: 'cancelled' })).toBeNull();
  });
});
