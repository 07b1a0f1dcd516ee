// What was not seen (docs/weather.md, "What was not seen"): a part of the evidence that could not be gathered (boards
// not watched, no weather, no aircraft) is said, and never read as "nothing happened"; every weather
// report consulted is shown, flagged or not, in time order. Through the service, with a board history
// and a weather provider in memory.
import { describe, expect, it } from 'vitest';
import { HOUR, ManualClock, MINUTE } from '../clock.js';
import { loadReferenceAirports } from '../airports/index.js';
import type { ProviderFlight } from '../providers/index.js';
import { readReport, type WeatherProvider, type WeatherReport } from '../weather/index.js';
import { CircumstancesService } from './service.js';
import type { BoardHistory } from './shapes.js';

const T = Date.parse('2026-02-20T00:00:00Z');
const at = (hhmm: string) => T + Number(hhmm.slice(0, 2)) * HOUR + Number(hhmm.slice(3)) * MINUTE;

/** W6 3101 OTP–LTN, due 06:00–09:00, left 09:30 and landed 12:30: 3.5 hours late. */
function flight(registration: string | null = 'YR-ABC'): ProviderFlight {
  return {
    provider: 'test',
    flightIata: 'W63101',
    flightIcao: 'WZZ3101',
    callsign: null,
    airline: { name: 'Wizz Air', iata: 'W6', icao: 'WZZ' },
    operating: null,
    codeshares: [],
    operation: 'passenger',
    departure: {
      airport: { iata: 'OTP', icao: 'LROP' },
      scheduled: at('06:00'),
      estimated: null,
      actual: at('09:30'),
      runway: null,
    },
    arrival: {
      airport: { iata: 'LTN', icao: 'EGGW' },
      scheduled: at('09:00'),
      estimated: null,
      actual: at('12:30'),
      runway: null,
    },
    divertedTo: null,
    phase: 'landed',
    cancelled: false,
    diverted: false,
    statusRaw: 'Landed',
    aircraft: registration ? { registration, icao24: null, typeIcao: null, typeIata: null, label: null } : null,
    observedAt: at('13:00'),
    settled: true,
  };
}

/** Calm reports every half hour at both airports, from 04:50 to 13:20. */
const METARS: Record<string, (hhmm: string) => string> = {
  LROP: (t) => `LROP 20${t.replace(':', '')}Z 09005KT 9999 FEW030 02/M03 Q1021`,
  EGGW: (t) => `EGGW 20${t.replace(':', '')}Z 24008KT 9999 SCT025 08/04 Q1012`,
};
const STORM_LTN = 'EGGW 200920Z 27025G40KT 0800 +TSRA BKN008CB 09/08 Q0998';

function weather(available: Record<string, boolean>, extra: WeatherReport[] = []): WeatherProvider {
  const all: WeatherReport[] = [...extra];
  for (const station of Object.keys(METARS)) {
    for (let t = at('04:50'); t <= at('13:20'); t += 30 * MINUTE) {
      const hhmm = new Date(t).toISOString().slice(11, 16);
      all.push(readReport(METARS[station]!(hhmm), t));
    }
  }
  return {
    name: 'test',
    async reports({ station, from, to }) {
      if (!available[station]) return { outcome: 'miss' };
      return {
        outcome: 'hit',
        value: all.filter((r) => r.station === station && r.at >= from && r.at <= to).sort((a, b) => a.at - b.at),
      };
    },
  };
}

/** A board history in which the airports in `watched` were watched all the time and showed nothing out of the usual. */
function boards(watched: string[]): BoardHistory {
  return {
    sightings: async () => [],
    carrierCancellations: async () => [],
    hourly: async () => [],
    watchedAt: async (airport) => watched.includes(airport),
  };
}

function service(history: BoardHistory | null, provider: WeatherProvider) {
  return new CircumstancesService({
    providers: [],
    weather: provider,
    boards: history,
    airports: loadReferenceAirports(),
    timeoutMs: 1000,
    clock: new ManualClock(at('00:00') + 30 * 24 * HOUR),
  });
}

const both = { LROP: true, EGGW: true };
const assess = (s: CircumstancesService, f = flight()) => s.assess(f, 'delayed', new AbortController().signal);

describe('what was not seen', () => {
  it('finds the airline’s own operation only where both airports’ boards were watched and both reports read', async () => {
    const answer = await assess(service(boards(['OTP', 'LTN']), weather(both)));
    expect(answer).toMatchObject({ cause: 'technical', assessment: 'not_indicated' });
    expect(answer.seen.boards.map((b) => [b.airport, b.status])).toEqual([
      ['OTP', 'watched'],
      ['LTN', 'watched'],
    ]);
    expect(answer.reasons.join(' ')).toContain('no airport-wide disruption was seen');
  });

  it('does not call a flight not_indicated where an airport’s boards were not watched, and says which', async () => {
    const answer = await assess(service(boards(['OTP']), weather(both)));
    expect(answer.assessment).not.toBe('not_indicated');
    // The cause the evidence seen leaves is named, as that; whether the defence stands is unknown.
    expect(answer).toMatchObject({ cause: 'technical', assessment: 'unknown' });
    expect(answer.reasons.join(' ')).toContain("OTP's boards showed no airport-wide disruption");
    expect(answer.reasons.join(' ')).toContain(
      'The cause named (technical) is what the evidence seen leaves, not what it shows',
    );
    expect(answer.seen.boards).toEqual([
      { airport: 'OTP', from: '2026-02-20T05:00:00.000Z', to: '2026-02-20T08:00:00.000Z', status: 'watched' },
      { airport: 'LTN', from: '2026-02-20T08:00:00.000Z', to: '2026-02-20T11:00:00.000Z', status: 'not_watched' },
    ]);
    const reasons = answer.reasons.join(' ');
    expect(reasons).toContain("LTN's boards were not watched 08:00–11:00 UTC");
    expect(reasons).not.toContain('no airport-wide disruption was seen');
    // A service that keeps no boards at all says so.
    const none = await assess(service(null, weather(both)));
    expect(none).toMatchObject({ cause: 'unknown', assessment: 'unknown' });
    expect(none.seen.boards.map((b) => b.status)).toEqual(['not_kept', 'not_kept']);
    expect(none.reasons.join(' ')).toContain('are not kept by this service');
  });

  it('names no cause where the weather was bad within limits at an end whose boards were not watched, or where no boards were seen', async () => {
    // Light snow at Luton at the time: it slows an airport only as far as its boards would show, and they were not watched.
    const snow = readReport('EGGW 200850Z 24012KT 3000 -SN BKN012 01/M01 Q1010', at('08:50'));
    const answer = await assess(service(boards(['OTP']), weather(both, [snow])));
    expect(answer).toMatchObject({ cause: 'unknown', assessment: 'unknown' });
    expect(answer.reasons.join(' ')).toContain('that could not be checked');
    // The same snow where Luton's boards were watched and showed nothing: the airline's own.
    expect(await assess(service(boards(['OTP', 'LTN']), weather(both, [snow])))).toMatchObject({
      cause: 'technical',
      assessment: 'not_indicated',
    });
    // Clean reports, but no boards seen at either end: the reports alone name nothing.
    expect(await assess(service(boards([]), weather(both)))).toMatchObject({ cause: 'unknown', assessment: 'unknown' });
  });

  it('still finds what the evidence shows where a part was not seen: a storm in the reports', async () => {
    const storm = readReport(STORM_LTN, at('09:20'));
    const answer = await assess(service(boards([]), weather(both, [storm])));
    expect(answer).toMatchObject({ cause: 'weather', assessment: 'likely_extraordinary' });
    // What was found first, then what could not be checked.
    const reasons = answer.reasons.join(' ');
    const unseen = "OTP's boards were not watched 05:00–08:00 UTC, and LTN's boards were not watched 08:00–11:00 UTC";
    expect(reasons).toContain(unseen);
    expect(reasons.indexOf('Thunderstorm')).toBeGreaterThanOrEqual(0);
    expect(reasons.indexOf('Thunderstorm')).toBeLessThan(reasons.indexOf(unseen));
  });

  it('does not call a flight not_indicated where no weather reports could be had, and says it was not read', async () => {
    const answer = await assess(service(boards(['OTP', 'LTN']), weather({ LROP: true, EGGW: false })));
    expect(answer).toMatchObject({ cause: 'unknown', assessment: 'unknown' });
    expect(answer.seen.weather.map((w) => [w.airport, w.status])).toEqual([
      ['OTP', 'read'],
      ['LTN', 'not_available'],
    ]);
    expect(answer.reasons.join(' ')).toContain('No weather reports could be had for LTN');
    expect(answer.reasons.join(' ')).not.toContain('The reports at');
    expect(answer.weather.every((w) => w.airport === 'OTP')).toBe(true);
  });

  it('lists the aircraft as unknown when the record names no registration, or no provider offers its day', async () => {
    const s = service(boards(['OTP', 'LTN']), weather(both));
    expect((await assess(s, flight(null))).seen.aircraft).toBe('no_registration');
    expect((await assess(s)).seen.aircraft).toBe('not_offered');
  });

  it('shows every report consulted at the times, flagged or not, once each, in time order', async () => {
    const storm = readReport(STORM_LTN, at('09:20'));
    const answer = await assess(service(boards(['OTP', 'LTN']), weather(both, [storm])));
    const shown = answer.weather;
    // OTP: 05:00–10:00 around its scheduled 06:00 and actual 09:30 departure; LTN: 08:00–13:00 around 09:00 and 12:30.
    // Every half hour at :20 and :50: 10 calm at OTP; 10 calm and the storm at LTN.
    expect(shown.filter((w) => w.airport === 'OTP')).toHaveLength(10);
    expect(shown.filter((w) => w.airport === 'LTN')).toHaveLength(11);
    expect(shown.filter((w) => w.flags.length === 0)).toHaveLength(20);
    expect(shown.find((w) => w.report === STORM_LTN)?.flags).toContain('thunderstorm');
    const times = shown.map((w) => `${w.at} ${w.airport}`);
    expect(times).toEqual([...times].sort());
    expect(new Set(shown.map((w) => `${w.airport} ${w.report}`)).size).toBe(shown.length);
    expect(answer.seen.weather).toEqual([
      { airport: 'OTP', from: '2026-02-20T05:00:00.000Z', to: '2026-02-20T10:00:00.000Z', status: 'read' },
      { airport: 'LTN', from: '2026-02-20T08:00:00.000Z', to: '2026-02-20T13:00:00.000Z', status: 'read' },
    ]);
  });
});
