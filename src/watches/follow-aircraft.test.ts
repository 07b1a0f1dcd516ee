import { describe, expect, it } from 'vitest';
import { HOUR, MINUTE } from '../clock.js';
import { loadReferenceAirports } from '../airports/index.js';
import type { ProviderFlight } from '../providers/index.js';
import { aircraftToRead, lastBeforeDeparture, predictFromDay, watchedLegIn } from './follow-aircraft.js';
import { initialState } from './follow-plan.js';

const airports = loadReferenceAirports();
const T = Date.parse('2026-03-02T15:00:00Z');

/** One leg of aircraft HA-LXA (an A321neo: 45-minute minimum turnaround assumed or less). */
function leg(
  number: string,
  from: string,
  to: string,
  departs: number,
  blockMinutes: number,
  seen: Partial<{ depEstimate: number; depActual: number; arrEstimate: number; arrActual: number }> = {},
): ProviderFlight {
  const left = seen.depActual !== undefined;
  const landed = seen.arrActual !== undefined;
  return {
    provider: 'sim',
    flightIata: number,
    flightIcao: null,
    callsign: null,
    airline: { name: 'Wizz Air', iata: 'W6', icao: 'WZZ' },
    operating: null,
    codeshares: [],
    operation: 'passenger',
    departure: {
      airport: { iata: from, icao: null },
      scheduled: departs,
      estimated: seen.depEstimate ?? null,
      actual: seen.depActual ?? null,
      runway: null,
    },
    arrival: {
      airport: { iata: to, icao: null },
      scheduled: departs + blockMinutes * MINUTE,
      estimated: seen.arrEstimate ?? null,
      actual: seen.arrActual ?? null,
      runway: null,
    },
    divertedTo: null,
    phase: landed ? 'landed' : left ? 'departed' : 'scheduled',
    cancelled: false,
    diverted: false,
    statusRaw: null,
    aircraft: { registration: 'HA-LXA', icao24: null, typeIcao: 'A21N', typeIata: null, label: null },
    observedAt: 0,
    settled: false,
  };
}

const watch = {
  flight_number: 'W6 3101',
  origin: null,
  destination: null,
  flight_date: '2026-03-02',
  date_basis: 'utc' as const,
};

describe("a followed flight's aircraft", () => {
  it('is read only for a passenger departure still to leave at least 30 minutes ahead, not yet predicted or qualifying', () => {
    const departure = leg('W63101', 'OTP', 'LTN', T, 180);
    const state = initialState();
    expect(aircraftToRead(departure, state, T - 2 * HOUR)).toBe('HA-LXA');
    expect(aircraftToRead(departure, state, T - 20 * MINUTE)).toBeNull();
    expect(aircraftToRead(null, state, T - 2 * HOUR)).toBeNull();
    expect(aircraftToRead({ ...departure, aircraft: null }, state, T - 2 * HOUR)).toBeNull();
    expect(aircraftToRead({ ...departure, operation: 'cargo' }, state, T - 2 * HOUR)).toBeNull();
    expect(aircraftToRead({ ...departure, phase: 'departed' }, state, T - 2 * HOUR)).toBeNull();
    expect(aircraftToRead({ ...departure, cancelled: true }, state, T - 2 * HOUR)).toBeNull();
    expect(aircraftToRead(departure, { ...state, only: 'arrival' }, T - 2 * HOUR)).toBeNull();
    const seen = { flightId: 'fl_1', qualifiedAt: null, predictedAt: T - 3 * HOUR } as never;
    expect(aircraftToRead(departure, { ...state, departure: seen }, T - 2 * HOUR)).toBeNull();
    // A later estimate keeps a departure worth reading for.
    expect(aircraftToRead({ ...departure, departure: { ...departure.departure, estimated: T + HOUR } }, state, T)).toBe(
      'HA-LXA',
    );
  });

  it("is read at once where the flight's next question comes after its departure, else at that question", () => {
    expect(lastBeforeDeparture(leg('W63101', 'OTP', 'LTN', T, 180), T - 2 * HOUR, 0)).toBe(true);
    expect(lastBeforeDeparture(leg('W63101', 'OTP', 'LTN', T, 180), T - 10 * HOUR, 0)).toBe(false);
  });

  it("finds the watched flight among the aircraft's legs by its designator, not another flight on its route", () => {
    const day = [
      leg('W63100', 'OTP', 'LTN', T - 8 * HOUR, 180),
      leg('W63102', 'LTN', 'OTP', T - 4 * HOUR, 180),
      leg('W63101', 'OTP', 'LTN', T, 180),
    ];
    expect(watchedLegIn(day, watch, airports)).toBe(day[2]);
    expect(watchedLegIn(day.slice(0, 2), watch, airports)).toBeNull();
    expect(watchedLegIn(day, { ...watch, origin: 'LTN' }, airports)).toBeNull();
  });

  it('predicts the departure when its inbound is late enough, from what the legs show, and not when it is not', () => {
    const departure = leg('W63101', 'OTP', 'LTN', T, 180);
    const at = T - 2 * HOUR;
    // The inbound LTN–OTP has not left; its departure is announced 4 h 30 late.
    const late = [
      leg('W63100', 'OTP', 'LTN', T - 7 * HOUR, 150, {
        depActual: T - 7 * HOUR,
        arrActual: T - 7 * HOUR + 150 * MINUTE,
      }),
      leg('W63102', 'LTN', 'OTP', T - 4 * HOUR, 180, { depEstimate: T + 30 * MINUTE }),
      departure,
    ];
    const prediction = predictFromDay(departure, late, 'W6 3101', airports, at)!;
    expect(prediction).toMatchObject({ registration: 'HA-LXA', confidence: 'medium' });
    expect(prediction.projectedDelayMinutes).toBeGreaterThanOrEqual(195);
    expect(prediction.inbound).toMatchObject({ flightNumber: 'W63102', origin: 'LTN' });
    expect(prediction.basis.at(-1)).toMatchObject({ flightNumber: 'W63102', observed: 'estimate' });
    // Announced 2 hours late: the departure can still leave less than 3 hours late.
    const lateish = [
      late[0]!,
      leg('W63102', 'LTN', 'OTP', T - 4 * HOUR, 180, { depEstimate: T - 2 * HOUR }),
      departure,
    ];
    expect(predictFromDay(departure, lateish, 'W6 3101', airports, at)).toBeNull();
    // Another aircraft's legs say nothing of this one's.
    const other = { ...late[1]!, aircraft: { ...late[1]!.aircraft!, registration: 'HA-LXB' } };
    expect(predictFromDay(departure, [late[0]!, other, departure], 'W6 3101', airports, at)).toBeNull();
  });

  it('predicts nothing where the aircraft would only be home after the night: the carrier cancels instead', () => {
    // Its inbound came from LTN, where this departure takes it back: not before 06:00 there, past the night.
    const evening = Date.parse('2026-03-02T18:00:00Z');
    const departure = leg('W63101', 'OTP', 'LTN', evening, 180);
    const day = [
      leg('W63100', 'OTP', 'LTN', evening - 10 * HOUR, 150, {
        depActual: evening - 10 * HOUR,
        arrActual: evening - 10 * HOUR + 150 * MINUTE,
      }),
      leg('W63102', 'LTN', 'OTP', evening - 4 * HOUR, 180, { depEstimate: evening + 6 * HOUR }),
      departure,
    ];
    expect(predictFromDay(departure, day, 'W6 3101', airports, evening - 3 * HOUR)).toBeNull();
  });
});
