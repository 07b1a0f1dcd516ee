// The reviewed same-region table: every code a known airport, no airport in two groups, the
// catalogue's multi-airport cities covered, and a malformed table refused when it is loaded.
import { describe, expect, it } from 'vitest';
import { loadCatalogue, loadReferenceAirports } from '../airports/index.js';
import regionData from './same-region.json' with { type: 'json' };
import { parseRegionGroups, REGION_GROUPS, regionOf, sharedRegion } from './regions.js';

const reference = loadReferenceAirports();
const catalogue = loadCatalogue();
const known = (code: string) => reference.find(code) !== undefined || catalogue.find(code) !== undefined;

describe('the same-region table', () => {
  it('names only known airports (reference airports or catalogue aliases), each in one group, each group sourced', () => {
    const seen = new Map<string, string>();
    for (const group of REGION_GROUPS) {
      expect(group.source.length, group.id).toBeGreaterThan(10);
      expect(group.airports.length, group.id).toBeGreaterThanOrEqual(2);
      for (const code of group.airports) {
        expect(known(code), `${group.id}: ${code}`).toBe(true);
        expect(seen.get(code), `${code} in ${group.id} and ${seen.get(code)}`).toBeUndefined();
        seen.set(code, group.id);
      }
    }
    // The pairs the notes decided against are known airports too, and not grouped.
    for (const { airports } of regionData.notGrouped) {
      for (const code of airports) expect(known(code), code).toBe(true);
      expect(sharedRegion(airports[0], airports[1]), airports.join('/')).toBeUndefined();
    }
  });

  it('covers the catalogue airports that share a city', () => {
    for (const [a, b] of [
      ['LGW', 'LTN'],
      ['STN', 'LTN'],
      ['CDG', 'ORY'],
      ['FCO', 'CIA'],
      ['MXP', 'BGY'],
      ['WAW', 'WMI'],
      ['BRU', 'CRL'],
      ['BSL', 'MLH'],
      ['ARN', 'BMA'],
      ['VCE', 'TSF'],
      ['OSL', 'TRF'],
      ['IST', 'ISL'],
      ['HND', 'NRT'],
      ['IAD', 'BWI'],
    ]) {
      expect(sharedRegion(a, b)?.airports, `${a}/${b}`).toContain(a);
    }
    expect(sharedRegion('LTN', 'LTN')).toBeUndefined(); // the same airport is no diversion
    expect(regionOf('ltn')?.name).toBe('London');
    expect(regionOf('OTP')?.airports).toEqual(['OTP', 'BBU']);
    expect(regionOf('CLJ')).toBeUndefined();
  });

  it('refuses a malformed table, naming each problem', () => {
    const group = {
      id: 'LON',
      name: 'London',
      airports: ['LHR', 'LGW'],
      basis: 'iata-metropolitan-code',
      source: 'IATA metropolitan area code LON',
    };
    expect(() => parseRegionGroups({ groups: [group] })).not.toThrow();
    expect(() => parseRegionGroups({})).toThrow(/groups.*must be an array/);
    expect(() => parseRegionGroups({ groups: [group, { ...group, id: 'PAR', airports: ['CDG', 'LGW'] }] })).toThrow(
      /LGW is already in group LON/,
    );
    expect(() => parseRegionGroups({ groups: [{ ...group, source: '' }] })).toThrow(/source is required/);
    expect(() => parseRegionGroups({ groups: [{ ...group, airports: ['LHR', 'lgw'] }] })).toThrow(
      /"lgw" is not a 3-letter IATA code/,
    );
    expect(() => parseRegionGroups({ groups: [{ ...group, airports: ['LHR'] }] })).toThrow(/at least two codes/);
    expect(() => parseRegionGroups({ groups: [{ ...group, basis: 'marketing' }] })).toThrow(/basis must be one of/);
  });
});
