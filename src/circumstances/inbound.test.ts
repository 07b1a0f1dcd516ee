// The aircraft's flight in, read from the origin's kept arrivals: in time for a delayed flight, the
// delay started on it and its earlier flights are not asked; late, missing or cancelled, they are.
import { describe, expect, it } from 'vitest';
import { HOUR, MINUTE } from '../clock.js';
import { inboundInTime } from './inbound.js';
import type { Leg } from './rotation.js';
import type { PastMovement } from './shapes.js';

const T = Date.parse('2026-02-20T00:00:00Z');
const at = (hhmm: string) => T + Number(hhmm.slice(0, 2)) * HOUR + Number(hhmm.slice(3)) * MINUTE;

/** W6 3102 LTN–OTP, due out at 10:00, left at 13:30. */
const leg: Leg = {
  ref: { flightNumber: 'W63102', flightDate: '2026-02-20', origin: 'LTN', destination: 'OTP' },
  designators: ['W63102'], origin: 'LTN', destination: 'OTP', scheduledDeparture: at('10:00'), scheduledArrival: at('13:00'),
  actualDeparture: at('13:30'), actualArrival: at('16:20'), cancelled: false, diverted: false,
};
const arrival = (scheduled: string, landed: string | null, over: Partial<PastMovement> = {}): PastMovement => ({
  board: 'arrivals', flight: 'W63101', carrier: 'W6', scheduledAt: at(scheduled), at: landed === null ? null : at(landed), cancelled: false, diverted: false, registration: 'HA-LXA', other: 'OTP', ...over,
});

describe('the aircraft\'s flight in, from the origin\'s arrivals', () => {
  it.each([
    ['landed on time: the delay started here', [arrival('09:00', '08:55')], 'W63101'],
    ['the registration written another way', [arrival('09:00', '08:55', { registration: 'halxa' })], 'W63101'],
    ['the latest of the aircraft\'s arrivals counts', [arrival('06:00', '09:40'), arrival('09:00', '08:55', { flight: 'W63105' })], 'W63105'],
    ['landed three hours late: its day is asked', [arrival('09:00', '12:50')], null],
    ['another aircraft', [arrival('09:00', '08:55', { registration: 'HA-LXB' })], null],
    ['cancelled', [arrival('09:00', null, { cancelled: true })], null],
    ['the night before (a night on the ground)', [arrival('05:30', '05:20')], null],
    ['not on the boards', [], null],
  ])('%s', (_, arrivals, found) => {
    expect(inboundInTime(leg, 'HA-LXA', arrivals)?.flight ?? null).toBe(found);
  });
});
