// The rules of the circumstances, as tables: how a late departure splits into what the aircraft
// brought with it and what the flight added, where a chain of late legs started, how a run of
// cancellations is read, what airport-wide waves are, and which cause each kind of evidence names
// (with real METARs from the parser's corpus and the IEM archive).
import { describe, expect, it } from 'vitest';
import { DAY, HOUR, MINUTE } from '../clock.js';
import type { BoardHistory, BoardSighting, HourTally } from './shapes.js';
import { flagsOf, readReport, severityOf } from '../weather/index.js';
import { ownCause, type EndEvidence, type LegEvidence, type Observed } from './attribute.js';
import { carrierStrike, signals } from './figures.js';
import { Baselines, meanOverWatched } from './baselines.js';
import { cancellationRun, chainOrigin, groundedAfter, split, type Leg } from './rotation.js';

const T = Date.parse('2026-02-20T00:00:00Z');
const at = (hhmm: string) => T + Number(hhmm.slice(0, 2)) * HOUR + Number(hhmm.slice(3)) * MINUTE;

function leg(
  number: string,
  from: string,
  to: string,
  dep: string,
  arr: string,
  actual: { dep?: string; arr?: string; cancelled?: boolean; diverted?: boolean } = {},
): Leg {
  return {
    ref: { flightNumber: number, flightDate: '2026-02-20', origin: from, destination: to },
    designators: [number],
    origin: from,
    destination: to,
    scheduledDeparture: at(dep),
    scheduledArrival: at(arr),
    actualDeparture: actual.cancelled ? null : at(actual.dep ?? dep),
    actualArrival: actual.cancelled || actual.diverted ? null : at(actual.arr ?? arr),
    cancelled: actual.cancelled ?? false,
    diverted: actual.diverted ?? false,
  };
}

describe('the aircraft’s day', () => {
  // W6 3101 OTP–LTN out late on its own; 3102 back waits for it; 3103 has its own delay too.
  const day = [
    leg('W63101', 'OTP', 'LTN', '06:00', '09:00', { dep: '09:30', arr: '12:30' }),
    leg('W63102', 'LTN', 'OTP', '09:45', '12:45', { dep: '13:05', arr: '16:05' }),
    leg('W63103', 'OTP', 'BCN', '13:30', '16:00', { dep: '16:50', arr: '19:20' }),
  ];

  it('splits a departure delay into the inbound’s part (its arrival plus the turnaround past the schedule) and its own', () => {
    // Ground 45 min, of which 35 are taken as needed: ready 13:05, on time 09:45 → all 200 minutes inherited.
    expect(split(day, 1)).toEqual({ inherited: 200, own: 0 });
    // Ground 45 min (16:05 → 16:40 ready), left 16:50: 190 inherited, 10 its own.
    expect(split(day, 2)).toEqual({ inherited: 190, own: 10 });
    expect(split(day, 0)).toEqual({ inherited: 0, own: 210 });
  });

  it('finds where a chain of late legs started, and stops at a leg that added more than it inherited', () => {
    expect(chainOrigin(day, 2)).toBe(0);
    const fresh = [...day.slice(0, 2), leg('W63103', 'OTP', 'BCN', '13:30', '16:00', { dep: '20:00', arr: '22:30' })];
    expect(chainOrigin(fresh, 2)).toBe(2);
  });

  it('does not count a night on the ground as a turnaround', () => {
    const overnight = [
      leg('W63108', 'BCN', 'OTP', '00:00', '02:30', { dep: '01:40', arr: '04:10' }),
      leg('W63101', 'OTP', 'LTN', '06:00', '09:00', { dep: '09:30', arr: '12:30' }),
    ];
    overnight[0]!.scheduledDeparture -= 3 * HOUR;
    expect(split(overnight, 1)).toEqual({ inherited: 0, own: 210 });
  });

  it('reads a run of cancellations: where it started, what came before, and whether the aircraft stayed on the ground', () => {
    const grounded = [
      leg('FR1', 'STN', 'DUB', '06:00', '07:10', { arr: '07:10' }),
      leg('FR2', 'DUB', 'STN', '07:40', '08:50', { diverted: true }),
      leg('FR3', 'STN', 'BCN', '10:00', '12:10', { cancelled: true }),
      leg('FR4', 'BCN', 'STN', '12:45', '14:55', { cancelled: true }),
    ];
    expect(cancellationRun(grounded, 3)).toEqual({ start: 2, before: grounded[1] });
    expect(groundedAfter(grounded, 2)).toBeNull(); // the day's last pair: nothing later says either
    const fault = [
      leg('FR1', 'STN', 'DUB', '06:00', '07:10', { cancelled: true }),
      leg('FR2', 'DUB', 'STN', '07:40', '08:50', { cancelled: true }),
      leg('FR3', 'STN', 'BCN', '10:00', '12:10', { cancelled: true }),
    ];
    expect(groundedAfter(fault, 0)).toBe(true);
    // No later leg that day: it says neither.
    expect(groundedAfter(fault.slice(0, 2), 0)).toBeNull();
  });
});

/** Boards watched at the time that showed nothing out of the usual. */
const quiet = (airport: string, time: string) =>
  signals(
    airport,
    at(time),
    [],
    0,
    { delayed: 0, cancelled: 0, shortNotice: 0, day: 0 },
    { board: 'departures', scheduledAt: at(time), carrier: 'W6', designators: ['W61'] },
  );

/** Reports as evidence at one end, `time` being when the decision looks; its boards watched and quiet unless given. */
function end(
  airport: string,
  time: string,
  metars: [string, string][],
  boards: EndEvidence['boards'] = quiet(airport, time),
): EndEvidence {
  const weather: Observed[] = metars.map(([hhmm, raw]) => {
    const report = readReport(raw, at(hhmm));
    const flags = flagsOf(report);
    return { report, flags, severity: severityOf(report, flags) };
  });
  return {
    airport,
    at: at(time),
    asked: { from: at(time) - HOUR, to: at(time) + 30 * MINUTE },
    weather,
    boardsSeen: 'watched',
    boards,
  };
}

const CALM_OTP = 'LROP 200550Z 09005KT 9999 FEW030 02/M03 Q1021';
const CALM_LTN = 'EGGW 200850Z 24008KT 9999 SCT025 08/04 Q1012';
const FLIGHT = leg('W63101', 'OTP', 'LTN', '06:00', '09:00', { dep: '09:30', arr: '12:30' });
const evidence = (departure: EndEvidence, arrival: EndEvidence, more: Partial<LegEvidence> = {}): LegEvidence => ({
  leg: FLIGHT,
  departure,
  arrival,
  carrierStrike: false,
  grounded: false,
  ...more,
});
const calm = () => [end('OTP', '06:00', [['05:50', CALM_OTP]]), end('LTN', '09:00', [['08:50', CALM_LTN]])] as const;

describe('the cause of a leg’s own disruption', () => {
  it('calls thunderstorms over the airport at the time likely extraordinary, quoting the report', () => {
    // From the parser's corpus (AGGH): TS with cumulonimbus.
    const storm = 'AGGH 200850Z 31003KT 9999 TS FEW015 FEW016CB 28/24 Q1010';
    const finding = ownCause(evidence(calm()[0], end('LTN', '09:00', [['08:50', storm]])), 'delayed');
    expect(finding).toMatchObject({ cause: 'weather', assessment: 'likely_extraordinary' });
    expect(finding.reasons[0]).toContain(`Thunderstorm at LTN 08:50 UTC (METAR ${storm})`);
    expect(finding.reasons[0]).toContain('C-549/07');
  });

  it('calls a wave of delays under weather within limits air traffic control, quoting the weather; the weather alone no cause, and weather hours away none at all', () => {
    // From the parser's corpus (KTTN): a thunderstorm in the vicinity only.
    const vicinity = 'KTTN 051853Z 04011KT 9SM VCTS SN FZFG BKN003 OVC010 M02/M02 A3006';
    const figures = {
      airport: 'OTP',
      from: '2026-02-20T05:00:00.000Z',
      to: '2026-02-20T08:00:00.000Z',
      cancelled: 0,
      delayed: 20,
      usual: { cancelled: 0.4, delayed: 6 },
      baseline: 'days_before' as const,
    };
    const slowed = {
      figures,
      announcements: true,
      carrierDay: false,
      delayWave: true,
      cancelWave: false,
      divertWave: 0,
      strikeDay: false,
      cancelledSeenAt: null,
      plannedByOthers: 0,
    };
    // The wave is the airport's capacity cut by flow restrictions; the weather may be why they were imposed.
    const restricted = ownCause(evidence(end('OTP', '06:00', [['06:20', vicinity]], slowed), calm()[1]), 'delayed');
    expect(restricted).toMatchObject({ cause: 'atc', assessment: 'possibly_extraordinary' });
    expect(restricted.reasons.join(' ')).toContain('may be why the restrictions were imposed');
    const alone = ownCause(evidence(end('OTP', '06:00', [['06:20', vicinity]]), calm()[1]), 'delayed');
    expect(alone).toMatchObject({ cause: 'technical', assessment: 'not_indicated' });
    expect(alone.reasons[0]).toContain('within the limits');
    const late = 'LROP 201120Z 31020G30KT 0500 +TSRA BKN008CB 05/04 Q1008';
    expect(
      ownCause(
        evidence(
          end('OTP', '06:00', [
            ['05:50', CALM_OTP],
            ['11:20', late],
          ]),
          calm()[1],
        ),
        'delayed',
      ),
    ).toMatchObject({ cause: 'technical', assessment: 'not_indicated' });
  });

  it('reads boards: a wave of cancellations is the airport, of delays air traffic control, a whole day of them a strike', () => {
    const figures = {
      airport: 'OTP',
      from: '2026-02-20T05:00:00.000Z',
      to: '2026-02-20T08:00:00.000Z',
      cancelled: 9,
      delayed: 20,
      usual: { cancelled: 0.4, delayed: 6 },
      baseline: 'days_before' as const,
    };
    const boards = (over: Partial<NonNullable<EndEvidence['boards']>>) => ({
      figures,
      announcements: true,
      carrierDay: false,
      delayWave: false,
      cancelWave: false,
      divertWave: 0,
      strikeDay: false,
      cancelledSeenAt: null,
      plannedByOthers: 0,
      ...over,
    });
    const [otp, ltn] = calm();
    expect(
      ownCause(evidence({ ...otp, boards: boards({ cancelWave: true, delayWave: true }) }, ltn), 'cancelled'),
    ).toMatchObject({ cause: 'airport', assessment: 'possibly_extraordinary' });
    expect(ownCause(evidence({ ...otp, boards: boards({ delayWave: true }) }, ltn), 'delayed')).toMatchObject({
      cause: 'atc',
      assessment: 'possibly_extraordinary',
    });
    expect(
      ownCause(evidence(otp, { ...ltn, boards: boards({ strikeDay: true, cancelWave: true }) }), 'cancelled'),
    ).toMatchObject({ cause: 'third_party_strike' });
    expect(ownCause(evidence(otp, ltn, { carrierStrike: true }), 'cancelled')).toMatchObject({
      cause: 'airline_strike',
      assessment: 'not_indicated',
    });
    // A strike day read after the fact with a storm at the flight's time: a strike's flights are
    // cancelled days ahead, before the storm came (Luton, 14 April, seed 9001: 17 strike cancellations
    // had been put on the storm).
    const storm = 'EGGW 141720Z 18008G33KT 3400 TSRA FEW027CB BKN057 21/18 Q1022';
    const stormy = {
      ...end('LTN', '09:00', [['08:50', storm]]),
      boards: boards({ strikeDay: true, announcements: false }),
    };
    expect(ownCause(evidence(otp, stormy), 'cancelled')).toMatchObject({
      cause: 'third_party_strike',
      assessment: 'possibly_extraordinary',
    });
    // Without the strike day, the storm decides.
    expect(ownCause(evidence(otp, { ...stormy, boards: boards({ announcements: false }) }), 'cancelled')).toMatchObject(
      { cause: 'weather', assessment: 'likely_extraordinary' },
    );
  });

  it('leaves the airline’s own: a cancellation on the boards since the day before is a crew, one that grounded the aircraft a fault', () => {
    const [otp, ltn] = calm();
    const seen = (hoursAhead: number) => ({
      ...otp,
      boards: {
        figures: {
          airport: 'OTP',
          from: '',
          to: '',
          cancelled: 1,
          delayed: 2,
          usual: { cancelled: 1, delayed: 2 },
          baseline: 'days_before' as const,
        },
        announcements: true,
        carrierDay: false,
        delayWave: false,
        cancelWave: false,
        divertWave: 0,
        strikeDay: false,
        cancelledSeenAt: FLIGHT.scheduledDeparture - hoursAhead * HOUR,
        plannedByOthers: 0,
      },
    });
    expect(ownCause(evidence(seen(11), ltn), 'cancelled')).toMatchObject({
      cause: 'crew',
      assessment: 'not_indicated',
    });
    expect(ownCause(evidence(seen(11), ltn), 'cancelled').reasons[0]).toContain('11 hours ahead');
    expect(ownCause(evidence(seen(1), ltn), 'cancelled')).toMatchObject({ cause: 'technical' });
    expect(ownCause(evidence(seen(11), ltn, { grounded: true }), 'cancelled')).toMatchObject({ cause: 'technical' });
    expect(ownCause(evidence(otp, ltn), 'delayed').reasons[0]).toContain('C-549/07 Wallentin-Hermann');
  });

  it('where when it was cancelled was not seen (boards read after the day): the aircraft flying again that day says crew, staying on the ground a fault; with nothing later, the airline’s own without naming which', () => {
    const [otp, ltn] = calm();
    const flew = ownCause(evidence(otp, ltn, { grounded: false }), 'cancelled');
    expect(flew).toMatchObject({ cause: 'crew', assessment: 'not_indicated' });
    expect(flew.reasons[0]).toContain('the aircraft flew again that day: no fault kept it on the ground');
    const stayed = ownCause(evidence(otp, ltn, { grounded: true }), 'cancelled');
    expect(stayed).toMatchObject({ cause: 'technical', assessment: 'not_indicated' });
    expect(stayed.reasons[0]).toContain('the aircraft flew no more that day');
    const neither = ownCause(evidence(otp, ltn, { grounded: null }), 'cancelled');
    // Nothing later of the aircraft: the cause is not guessed, and the assessment stands (either is the airline's own).
    expect(neither).toMatchObject({ cause: 'unknown', assessment: 'not_indicated' });
    expect(neither.reasons[0]).toContain(
      'a technical fault (C-549/07 Wallentin-Hermann) or a crew it could not roster',
    );
    expect(neither.reasons[0]).toContain('nothing later of the aircraft that day shows whether it flew again');
    // Seen on the boards at short notice: a fault found at the aircraft, whatever the aircraft did later.
    const seen = { ...otp, boards: { ...otp.boards!, cancelledSeenAt: FLIGHT.scheduledDeparture - HOUR } };
    expect(ownCause(evidence(seen, ltn, { grounded: false }), 'cancelled')).toMatchObject({ cause: 'technical' });
  });

  it('does not explain a cancellation decided hours ahead by the weather or the waves of the day, unless other airlines cancelled ahead too', () => {
    const [otp, ltn] = calm();
    const storm = 'LROP 200550Z 31020G30KT 0500 +TSRA BKN008CB 05/04 Q1008';
    const figures = {
      airport: 'OTP',
      from: '2026-02-20T05:00:00.000Z',
      to: '2026-02-20T08:00:00.000Z',
      cancelled: 6,
      delayed: 30,
      usual: { cancelled: 1, delayed: 6 },
      baseline: 'days_before' as const,
    };
    const stormy = (hoursAhead: number, plannedByOthers = 0) => ({
      ...end('OTP', '06:00', [['05:50', storm]]),
      boards: {
        figures,
        announcements: true,
        carrierDay: false,
        delayWave: true,
        cancelWave: true,
        divertWave: 0,
        strikeDay: false,
        cancelledSeenAt: FLIGHT.scheduledDeparture - hoursAhead * HOUR,
        plannedByOthers,
      },
    });
    // Cancelled on the day: the storm.
    expect(ownCause(evidence(stormy(2), ltn), 'cancelled')).toMatchObject({
      cause: 'weather',
      assessment: 'likely_extraordinary',
    });
    // Cancelled the evening before, alone: its roster, not the storm nor the day's waves.
    expect(ownCause(evidence(stormy(11), ltn), 'cancelled')).toMatchObject({
      cause: 'crew',
      assessment: 'not_indicated',
    });
    // Cancelled the evening before with other airlines' flights: the forecast.
    const forecast = ownCause(evidence(stormy(11, 4), ltn), 'cancelled');
    expect(forecast).toMatchObject({ cause: 'weather', assessment: 'likely_extraordinary' });
    expect(forecast.reasons[0]).toContain('4 flights of other airlines');
    // A delay is never "planned": the waves still count.
    expect(ownCause(evidence({ ...otp, boards: stormy(11).boards }, ltn), 'delayed')).toMatchObject({
      cause: 'airport',
    });
  });

  it('says unknown, never fine, where no reports could be had', () => {
    const [otp, ltn] = calm();
    const finding = ownCause(evidence(otp, { ...ltn, weather: null }), 'delayed');
    expect(finding).toMatchObject({ cause: 'unknown', assessment: 'unknown' });
    expect(finding.reasons[0]).toContain('LTN');
  });
});

describe('airport-wide figures from the boards', () => {
  const sighting = (
    type: BoardSighting['type'],
    id: string,
    when: number,
    carrier = 'W6',
    seenAt = when - HOUR,
    airport = 'OTP',
    flight: string | null = null,
  ): BoardSighting => ({
    type,
    flightId: id,
    flight,
    airport,
    board: 'departures',
    scheduledAt: when,
    carrier,
    seenAt,
  });
  const base = at('10:00');
  /** A usual week: 2 delayed and no cancellation around 10:00 each day, 1 cancellation a day. */
  const usual = { delayed: 2, cancelled: 0, shortNotice: 0, day: 1 };
  const flight = { board: 'departures' as const, scheduledAt: base, carrier: 'W6', designators: ['W61'] };

  it('compares the window with the mean of the same window on the seven days before', () => {
    const s = signals('OTP', base, [], 9, usual, flight)!;
    expect(s.figures).toMatchObject({
      airport: 'OTP',
      from: '2026-02-20T09:00:00.000Z',
      to: '2026-02-20T12:00:00.000Z',
      cancelled: 0,
      delayed: 9,
      usual: { cancelled: 0, delayed: 2 },
    });
    expect(s.delayWave).toBe(true);
    expect(s.cancelWave).toBe(false);
    // Watched and quiet all week: figures of nothing, not a missing part.
    expect(signals('OTP', base, [], 0, { delayed: 0, cancelled: 0, shortNotice: 0, day: 0 }, flight)).toMatchObject({
      figures: { cancelled: 0, delayed: 0 },
      delayWave: false,
      cancelWave: false,
      strikeDay: false,
    });
  });

  it('counts the window’s cancellations, and finds this flight’s own', () => {
    const today = [
      sighting('flight.cancelled', 'x', base, 'W6', base - 11 * HOUR),
      sighting('flight.cancelled', 'y', base + 5 * HOUR, 'FR', base),
    ];
    const s = signals('OTP', base, today, 0, usual, flight)!;
    expect(s.figures).toMatchObject({ cancelled: 1, delayed: 0 });
    expect(s.cancelledSeenAt).toBe(base - 11 * HOUR);
    expect(s.plannedByOthers).toBe(0);
    // Another flight of its airline due on the other board at the same minute is not this one.
    const arriving = { ...sighting('flight.cancelled', 'z', base, 'W6', base - 11 * HOUR), board: 'arrivals' };
    expect(signals('OTP', base, [arriving], 0, usual, flight)!.cancelledSeenAt).toBeNull();
  });

  it("counts only other carriers' cancellations made on the day towards an airport's wave", () => {
    const planned = Array.from({ length: 6 }, (_, i) =>
      sighting('flight.cancelled', `p${i}`, base + i * 20 * MINUTE, 'FR', base - 12 * HOUR),
    );
    // A morning of rostered cancellations is no failure of the airport.
    expect(signals('OTP', base, planned, 0, usual, flight)!.cancelWave).toBe(false);
    // They are counted apart: a forecast storm cancels many flights ahead.
    expect(signals('OTP', base, planned, 0, usual, flight)!.plannedByOthers).toBe(6);
    const sudden = planned.map((s) => ({ ...s, seenAt: s.scheduledAt - HOUR }));
    expect(signals('OTP', base, sudden, 0, usual, flight)!.cancelWave).toBe(true);
    // The flight's own and its aircraft's other leg there are its own; its airline's others count.
    const ownPair = [
      sighting('flight.cancelled', 'own', base, 'W6', base - HOUR, 'OTP', 'W61'),
      sighting('flight.cancelled', 'back', base + HOUR, 'W6', base - HOUR, 'OTP', 'W62'),
    ];
    expect(signals('OTP', base, ownPair, 0, usual, flight)!.cancelWave).toBe(false);
    expect(
      signals(
        'OTP',
        base,
        sudden.map((s) => ({ ...s, carrier: 'W6' })),
        0,
        usual,
        flight,
      )!.cancelWave,
    ).toBe(true);
  });

  it('calls a day of cancellations by many carriers a strike, and one carrier’s across airports its own strike', () => {
    const carriers = ['W6', 'FR', 'RO', 'LH'];
    // Announced the day before: on the boards as soon as they show the flights, 12 hours ahead.
    const day = Array.from({ length: 24 }, (_, i) => base - 10 * HOUR + i * 50 * MINUTE).map((when, i) =>
      sighting('flight.cancelled', `c${i}`, when, carriers[i % 4], when - 12 * HOUR),
    );
    expect(signals('OTP', base, day, 0, usual, flight)!.strikeDay).toBe(true);
    // The same cancellations made on the day are a failure of the airport, not a strike.
    expect(
      signals(
        'OTP',
        base,
        day.map((s) => ({ ...s, seenAt: s.scheduledAt - HOUR })),
        0,
        usual,
        flight,
      )!.strikeDay,
    ).toBe(false);
    const airports = ['OTP', 'LTN', 'BCN', 'VIE'];
    const mine = Array.from({ length: 8 }, (_, i) =>
      sighting('flight.cancelled', `m${i}`, base + i * HOUR, 'W6', base + i * HOUR - 12 * HOUR, airports[i % 4]),
    );
    expect(carrierStrike(mine, 0.5)).toBe(true);
    expect(carrierStrike(mine, 3)).toBe(false);
    // All at one airport: that airport's strike, not the carrier's.
    expect(
      carrierStrike(
        mine.map((s) => ({ ...s, airport: 'LTN' })),
        0.5,
      ),
    ).toBe(false);
    // Made on the day (a storm at its hub): not announced, so no strike.
    expect(
      carrierStrike(
        mine.map((s) => ({ ...s, seenAt: s.scheduledAt - HOUR })),
        0.5,
      ),
    ).toBe(false);
  });

  it('calls arrivals diverted elsewhere, three or more in the window, the airport closed', () => {
    const diverted = (n: number, board = 'arrivals') =>
      Array.from({ length: n }, (_, i) => ({
        ...sighting('flight.diverted', `d${i}`, base + i * 30 * MINUTE, 'FR'),
        board,
      }));
    expect(signals('OTP', base, diverted(3), 0, usual, flight)!.divertWave).toBe(3);
    expect(signals('OTP', base, diverted(2), 0, usual, flight)!.divertWave).toBe(0);
    // Departures that diverted were closed out elsewhere.
    expect(signals('OTP', base, diverted(3, 'departures'), 0, usual, flight)!.divertWave).toBe(0);
    const [otp, ltn] = calm();
    const closed = {
      ...ltn,
      boards: {
        ...signals(
          'LTN',
          at('09:00'),
          diverted(4).map((s) => ({ ...s, airport: 'LTN', scheduledAt: at('09:00') + (s.scheduledAt - base) })),
          0,
          usual,
          flight,
        )!,
      },
    };
    const finding = ownCause(evidence(otp, closed), 'diverted');
    expect(finding).toMatchObject({ cause: 'airport', assessment: 'possibly_extraordinary' });
    expect(finding.reasons[0]).toContain('4 flights due to land diverted elsewhere');
  });

  it('means the days the boards were watched only: three watched days are a usual of three', () => {
    const days = [
      { count: 6, shortNotice: 1 },
      { count: 3, shortNotice: 0 },
      { count: 0, shortNotice: 0 },
      ...Array.from({ length: 4 }, () => ({ count: 0, shortNotice: 0 })),
    ];
    expect(meanOverWatched(days, [true, true, true, false, false, false, false])).toEqual({
      count: 3,
      shortNotice: 1 / 3,
    });
    expect(
      meanOverWatched(
        days,
        Array.from({ length: 7 }, () => false),
      ),
    ).toEqual({ count: 0, shortNotice: 0 });
  });

  it('counts the seven days before hour by hour, and keeps the hours long past instead of counting them again', async () => {
    const asked: [number, number][] = [];
    const history: BoardHistory = {
      watchedAt: async () => true,
      sightings: async () => [],
      carrierCancellations: async () => [],
      hourly: async (_by, _value, _type, from, to) => {
        asked.push([from, to]);
        const out: HourTally[] = [];
        for (let h = from; h < to; h += HOUR) out.push({ hour: h, count: 2, shortNotice: 1 });
        return out;
      },
    };
    const baselines = new Baselines(history);
    const now = base + 30 * DAY;
    // Three hours on each of seven days: 2 each, 6 a day.
    expect(await baselines.daily('airport', 'OTP', 'flight.delayed', base - HOUR, base + 2 * HOUR, now)).toEqual(
      Array.from({ length: 7 }, () => ({ count: 6, shortNotice: 3 })),
    );
    expect(asked).toEqual([[base - HOUR - 7 * DAY, base + 2 * HOUR - DAY]]);
    // The next day's window shares six of the seven days: only the newest is counted.
    await baselines.daily('airport', 'OTP', 'flight.delayed', base - HOUR + DAY, base + 2 * HOUR + DAY, now);
    expect(asked[1]).toEqual([base - HOUR, base + 2 * HOUR]);
    // Kept hours are not asked again.
    await baselines.daily('airport', 'OTP', 'flight.delayed', base - HOUR, base + 2 * HOUR, now);
    expect(asked).toHaveLength(2);
    // Hours of the last day are not kept: their flights may still change, so each lookup counts them.
    const recent = base + 2 * DAY;
    await baselines.daily('airport', 'OTP', 'flight.delayed', base - HOUR + 2 * DAY, base + 2 * HOUR + 2 * DAY, recent);
    await baselines.daily('airport', 'OTP', 'flight.delayed', base - HOUR + 2 * DAY, base + 2 * HOUR + 2 * DAY, recent);
    expect(asked.slice(2)).toEqual([
      [base - HOUR + DAY, base + 2 * HOUR + DAY],
      [base - HOUR + DAY, base + 2 * HOUR + DAY],
    ]);
  });

  it('keeps what a window long past showed, and reads a recent one each time', async () => {
    const baselines = new Baselines({
      sightings: async () => [],
      carrierCancellations: async () => [],
      hourly: async () => [],
      watchedAt: async () => true,
    });
    let reads = 0;
    const read = async () => {
      reads++;
      return [{ hour: base, count: reads, shortNotice: 0 }];
    };
    const now = base + 3 * DAY;
    expect(await baselines.settled('delayed|OTP', base + 3 * HOUR, now, read)).toEqual([
      { hour: base, count: 1, shortNotice: 0 },
    ]);
    expect(await baselines.settled('delayed|OTP', base + 3 * HOUR, now, read)).toEqual([
      { hour: base, count: 1, shortNotice: 0 },
    ]);
    expect(reads).toBe(1);
    // Its flights less than a day past may still change.
    await baselines.settled('delayed|OTP|recent', now - 2 * HOUR, now, read);
    await baselines.settled('delayed|OTP|recent', now - 2 * HOUR, now, read);
    expect(reads).toBe(3);
  });

  it('reads the sightings of the day around each hour from whole UTC days, each settled one once', async () => {
    const baselines = new Baselines({
      sightings: async () => [],
      carrierCancellations: async () => [],
      hourly: async () => [],
      watchedAt: async () => true,
    });
    const day = Math.floor(base / DAY) * DAY;
    // One cancellation an hour, from two days before to the day after.
    const all = Array.from({ length: 96 }, (_, i) => ({
      type: 'flight.cancelled' as const,
      flightId: `fl_${i}`,
      flight: null,
      airport: 'OTP',
      board: 'departures',
      scheduledAt: day - DAY + i * HOUR,
      carrier: 'RO',
      seenAt: 0,
    }));
    const asked: [number, number][] = [];
    const read = async (from: number, to: number) => {
      asked.push([from, to]);
      return all.filter((s) => s.scheduledAt >= from && s.scheduledAt < to);
    };
    const now = day + 3 * DAY + HOUR;
    for (const hour of [day + 5 * HOUR, day + 6 * HOUR, day + 20 * HOUR]) {
      const got = await baselines.ofDays('OTP', hour - 12 * HOUR, hour + 12 * HOUR, now, read);
      expect(got.map((s) => s.scheduledAt)).toEqual(
        all
          .filter((s) => s.scheduledAt >= hour - 12 * HOUR && s.scheduledAt < hour + 12 * HOUR)
          .map((s) => s.scheduledAt),
      );
    }
    expect(asked).toEqual([
      [day - DAY, day],
      [day, day + DAY],
      [day + DAY, day + 2 * DAY],
    ]);
    // A day not over for a day is read for the window alone, each time.
    await baselines.ofDays('OTP', now - 5 * HOUR, now - 2 * HOUR, now, read);
    await baselines.ofDays('OTP', now - 5 * HOUR, now - 2 * HOUR, now, read);
    expect(asked.slice(3)).toEqual([
      [now - 5 * HOUR, now - 2 * HOUR],
      [now - 5 * HOUR, now - 2 * HOUR],
    ]);
  });
});
