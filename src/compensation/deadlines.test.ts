// Claim deadlines: national limitation periods (C-139/11 Moré) for the countries a flight is
// connected to, from the reviewed table; Germany counts from the end of the year.
import { describe, expect, it } from 'vitest';
import { loadReferenceAirports } from '../airports/index.js';
import { assess } from './assess.js';
import { claimDeadlines } from './deadlines.js';
import table from './limitation.json' with { type: 'json' };

describe('claim deadlines', () => {
  it("counts Germany from the end of the flight's year, the others from the flight", () => {
    const deadlines = claimDeadlines('2026-03-15', { departure: 'DE', arrival: 'FR', carrier: 'IE' });
    expect(deadlines.map((d) => [d.country, d.period, d.runsFrom, d.runsOutOn, d.connections])).toEqual([
      ['DE', '3 years', 'end_of_year', '2029-12-31', ['departure']],
      ['FR', '5 years', 'flight', '2031-03-15', ['arrival']],
      ['IE', '6 years', 'flight', '2032-03-15', ['carrier']],
    ]);
    expect(deadlines.every((d) => d.sources.length > 0)).toBe(true);
  });

  it('puts a country once with every connection, soonest first, and keeps a month-end inside its month', () => {
    const deadlines = claimDeadlines('2024-02-29', { departure: 'PL', arrival: 'IT', carrier: 'PL' });
    expect(deadlines.map((d) => [d.country, d.runsOutOn, d.connections])).toEqual([
      ['PL', '2025-02-28', ['departure', 'carrier']],
      ['IT', '2026-02-28', ['arrival']],
    ]);
  });

  it('marks the countries where published sources disagree, and leaves out those it has no period for', () => {
    const [sweden] = claimDeadlines('2026-01-10', { departure: 'SE', arrival: 'US' });
    expect(sweden).toMatchObject({ country: 'SE', uncertain: true });
    expect(sweden!.note).toBeTruthy();
    expect(claimDeadlines('2026-01-10', { departure: 'US', arrival: 'CA' })).toEqual([]);
  });

  it('is a reviewed, sourced table: a date, every EU and EEA state, Switzerland and the UK, one period each', () => {
    const countries = (table as { countries: Record<string, { years?: number; months?: number; sources: string[] }> })
      .countries;
    expect((table as { reviewed: string }).reviewed).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const code of 'AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE IS NO CH LI GB'.split(
      ' ',
    )) {
      const c = countries[code];
      expect(c, code).toBeDefined();
      expect((c!.years === undefined) !== (c!.months === undefined), code).toBe(true);
      expect(
        c!.sources.every((s) => /^https?:\/\//.test(s)),
        code,
      ).toBe(true);
    }
  });

  it('comes with an assessment that has a flight date and a regulation that applies', () => {
    const airports = loadReferenceAirports();
    const owed = assess(airports, {
      origin: 'FRA',
      destination: 'LIS',
      airline: 'LH',
      outcome: 'cancelled',
      flightDate: '2026-02-20',
    })!;
    expect(owed.deadlines!.map((d) => [d.country, d.runsOutOn])).toEqual([
      ['PT', '2029-02-20'],
      ['DE', '2029-12-31'],
    ]);
    expect(
      assess(airports, { origin: 'FRA', destination: 'LIS', airline: 'LH', outcome: 'cancelled' })!.deadlines,
    ).toBeUndefined();
    expect(
      assess(airports, {
        origin: 'JFK',
        destination: 'LAX',
        airline: 'AA',
        outcome: 'cancelled',
        flightDate: '2026-02-20',
      })!.deadlines,
    ).toBeUndefined();
  });
});
