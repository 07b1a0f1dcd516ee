// Flights the simulated world delays, picked from its ground truth for the watch tests.
import { HOUR } from '../../src/clock.js';
import { createSimWorld, groundTruth, type TruthFlight } from '../../src/sim/index.js';
import { T0 } from './app.js';

/**
 * The first passenger departure from OTP on the test clock's day (seed `seed`) that the world delays
 * by 30 minutes or more, due between `from` and `to` hours after the clock's start.
 */
export function delayedOtpDeparture(seed: string, from: number, to: number): TruthFlight {
  const flight = groundTruth(createSimWorld(seed), '2026-03-01', { airport: 'OTP', operation: 'passenger' }).find(
    (f) =>
      f.origin === 'OTP' &&
      f.status === 'delayed' &&
      (f.departureDelayMinutes ?? 0) >= 30 &&
      Date.parse(f.scheduledDeparture) > T0 + from * HOUR &&
      Date.parse(f.scheduledDeparture) < T0 + to * HOUR,
  );
  if (!flight) throw new Error(`the world (seed ${seed}) delays no OTP departure ${from} to ${to} hours after T0`);
  return flight;
}

/** A flight number as compared across sources: spaces gone, upper case (`W6 3101` is `W63101`). */
export const squeezed = (s: string) => s.replace(/\s+/g, '').toUpperCase();
