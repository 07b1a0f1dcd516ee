// The simulated world's weather and causes: its reports read back through the real parser to the
// same flags, its seasons look like Europe's, and every disruption's ground-truth cause is one the
// world really applied (weather where the reports show it, a knock-on from an earlier leg of the same
// aircraft), in all the kinds the vocabulary names.
import { describe, expect, it } from 'vitest';
import { DAY, HOUR } from '../clock.js';
import { flagsOf, readReport, runwaysOf, severityOf } from '../weather/index.js';
import { CAUSE_KINDS, causeOf, createSimWorld, groundTruth } from './index.js';
import { CACHED_SEVERITY_DAYS, CACHED_WEATHER_DAYS } from './weather.js';
import { addDays } from './time.js';

const world = createSimWorld('flightstatus');
const airport = (iata: string) => loadAirport(iata);
function loadAirport(iata: string) {
  const leg = world.legsOn('2026-01-12', iata)[0]!;
  return leg.plan.from.iata === iata ? leg.plan.from : leg.plan.to;
}

describe('the simulated weather', () => {
  it('renders METARs that the parser reads back to the same flags and severity', () => {
    let flagged = 0;
    for (const iata of ['MXP', 'CDG', 'OSL', 'WAW', 'MAN', 'MAD', 'ATH', 'KRK']) {
      const where = airport(iata);
      const headings = runwaysOf(where.icao).flatMap((r) => r.headings);
      for (
        let at = Date.parse('2026-01-01T00:00:00Z');
        at < Date.parse('2026-12-31T00:00:00Z');
        at += 7 * HOUR + 30 * 60_000
      ) {
        const seen = world.weather.at(where, at);
        const read = readReport(seen.report.raw, seen.at);
        const flags = flagsOf(read, headings);
        expect(flags, seen.report.raw).toEqual(seen.flags);
        expect(severityOf(read, flags), seen.report.raw).toBe(seen.severity);
        if (flags.length > 0) flagged++;
      }
    }
    expect(flagged).toBeGreaterThan(100);
  });

  it('issues a report at hh:20 and hh:50, the same on every ask', () => {
    const where = airport('CDG');
    const from = Date.parse('2026-11-14T10:00:00Z');
    const reports = world.weather.between(where, from, from + 2 * HOUR);
    expect(reports.map((r) => new Date(r.at).toISOString().slice(11, 16))).toEqual([
      '10:20',
      '10:50',
      '11:20',
      '11:50',
    ]);
    expect(reports[0]!.report.raw).toMatch(/^LFPG 141020Z /);
    expect(
      createSimWorld('flightstatus')
        .weather.between(where, from, from + 2 * HOUR)
        .map((r) => r.report.raw),
    ).toEqual(reports.map((r) => r.report.raw));
  });

  it('keeps a bounded number of airport-days, and one simulated again is the same', () => {
    const fresh = createSimWorld('flightstatus');
    const where = airport('CDG');
    const first = Date.parse('2020-01-01T10:00:00Z');
    const raws = (w: typeof fresh) => w.weather.between(where, first, first + 2 * HOUR).map((r) => r.report.raw);
    const severities = (w: typeof fresh) =>
      Array.from({ length: 48 }, (_, i) => w.weather.severity(where, first + i * 30 * 60_000));
    const before = { raws: raws(fresh), severities: severities(fresh) };
    expect(before.severities).toEqual(
      Array.from({ length: 48 }, (_, i) => fresh.weather.at(where, first + i * 30 * 60_000).severity),
    );
    for (let day = 1; day <= CACHED_SEVERITY_DAYS + 100; day++) fresh.weather.severity(where, first + day * DAY);
    for (let day = 1; day <= CACHED_WEATHER_DAYS + 100; day++) fresh.weather.at(where, first + day * DAY);
    expect(fresh.weather.cachedDays).toEqual({ observations: CACHED_WEATHER_DAYS, severities: CACHED_SEVERITY_DAYS });
    // The first day was the least recently read of both: simulated again, it is the same.
    expect({ raws: raws(fresh), severities: severities(fresh) }).toEqual(before);
  });

  it('has fog in autumn mornings in the Po valley, snow in northern winters, thunderstorms in southern summers', () => {
    const hours = (iata: string, months: number[], test: (raw: string) => boolean) => {
      const where = airport(iata);
      let n = 0;
      for (let at = Date.parse('2024-01-01T00:00:00Z'); at < Date.parse('2028-01-01T00:00:00Z'); at += HOUR) {
        if (!months.includes(new Date(at).getUTCMonth() + 1)) continue;
        if (test(world.weather.at(where, at).report.raw)) n++;
      }
      return n;
    };
    const fog = (raw: string) => / FG /.test(raw);
    expect(hours('MXP', [11, 12, 1], fog)).toBeGreaterThan(hours('MXP', [6, 7, 8], fog) + 100);
    const snow = (raw: string) => /SN /.test(raw);
    expect(hours('OSL', [12, 1, 2], snow)).toBeGreaterThan(200);
    expect(hours('MLA', [12, 1, 2], snow)).toBe(0);
    const storm = (raw: string) => / [+]?TS/.test(raw);
    expect(hours('BCN', [6, 7, 8], storm)).toBeGreaterThan(hours('BCN', [12, 1, 2], storm) + 20);
  });
});

describe('the world’s causes', () => {
  const from = '2026-07-06';
  const flights = Array.from({ length: 7 }, (_, d) => groundTruth(world, addDays(from, d))).flat();
  const disrupted = flights.filter(
    (f) => f.status === 'cancelled' || f.status === 'diverted' || (f.arrivalDelayMinutes ?? 0) >= 180,
  );

  it('produces every kind of cause, the on-time flights none', () => {
    const kinds = new Set(disrupted.map((f) => f.delayCause.kind));
    for (const kind of CAUSE_KINDS.filter((k) => k !== 'none')) expect(kinds, kind).toContain(kind);
    for (const f of flights.filter((f) => f.status === 'on_time'))
      expect(f.delayCause).toEqual({ kind: 'none', originLeg: null });
  });

  it('names the weather only where the reports at one end show it, around the flight', () => {
    const legs = Array.from({ length: 7 }, (_, d) => world.legsOn(addDays(from, d))).flat();
    const weathered = legs.filter((leg) => causeOf(leg).kind === 'weather');
    expect(weathered.length).toBeGreaterThan(20);
    for (const leg of weathered) {
      // A cancelled pair's weather is where and when its outbound was to leave or land.
      const plans = leg.plan.rotation.legs;
      const index = plans.indexOf(leg.plan);
      const outbound = leg.cancelled && index % 2 === 1 ? plans[index - 1]! : leg.plan;
      const departs = leg.scheduledDeparture - (leg.plan.departureMinute - outbound.departureMinute) * 60_000;
      const around = (where: typeof leg.plan.from, at: number) =>
        world.weather.between(where, at - HOUR, at + HOUR).some((r) => r.flags.length > 0);
      const lands = leg.divertedTo ? leg.landing! : departs + outbound.blockMinutes * 60_000;
      expect(around(outbound.from, departs) || around(outbound.to, lands), leg.plan.designator).toBe(true);
    }
  });

  it('traces a knock-on to an earlier leg of the same aircraft that day', () => {
    const legs = Array.from({ length: 7 }, (_, d) => world.legsOn(addDays(from, d))).flat();
    const knocked = legs.filter(
      (leg) => causeOf(leg).kind === 'knock_on' && leg.plan.rotation.operation === 'passenger',
    );
    expect(knocked.length).toBeGreaterThan(50);
    for (const leg of knocked) {
      const origin = causeOf(leg).originLeg!;
      const rotation = leg.plan.rotation.legs.map((p) => p.designator);
      expect(rotation.indexOf(origin.flightNumber), leg.plan.designator).toBeLessThan(
        rotation.indexOf(leg.plan.designator),
      );
      expect(Math.abs(Date.parse(origin.flightDate) - Date.parse(leg.flightDate))).toBeLessThanOrEqual(DAY);
    }
  });
});
