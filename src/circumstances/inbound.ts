// The aircraft's flight in, from the origin's arrivals the boards kept (issue 43, section 1): the
// boards the poll watched, or the airport's day read after the fact, already hold the aircraft's
// arrival before a delayed flight (its registration on the arrivals board). Where that arrival was in
// time for this flight, the delay started here, and the aircraft's earlier flights (a priced request
// for its day) cannot change the finding: they are not asked. Where it came late, or is not on the
// boards, the aircraft's day is asked as before.
import { HOUR, iso } from '../clock.js';
import { chainOrigin, type Leg } from './rotation.js';
import type { PastMovement } from './shapes.js';

/** How far back the aircraft's flight in is looked for: a longer stop is a night on the ground (rotation.ts). */
export const INBOUND_WITHIN = 4 * HOUR;

const plate = (registration: string) => registration.replace(/[^A-Z0-9]/gi, '').toUpperCase();

/**
 * The aircraft's last arrival at the flight's origin within INBOUND_WITHIN before its scheduled
 * departure, from `arrivals` (the origin's kept rows), when it landed in time for this flight (the
 * turnaround rule of rotation.ts `split`): the delay started on this flight. Null otherwise (not on
 * the boards, no registration, cancelled, or late enough to explain the delay).
 */
export function inboundInTime(leg: Leg, registration: string, arrivals: PastMovement[]): PastMovement | null {
  const wanted = plate(registration);
  const inbound = arrivals
    .filter((m) => m.board === 'arrivals' && m.registration !== null && plate(m.registration) === wanted)
    .filter((m) => m.scheduledAt < leg.scheduledDeparture && m.scheduledAt >= leg.scheduledDeparture - INBOUND_WITHIN)
    .sort((a, b) => b.scheduledAt - a.scheduledAt)[0];
  if (!inbound || inbound.cancelled || inbound.diverted || inbound.at === null || leg.actualDeparture === null) return null;
  const flown: Leg = {
    ref: { flightNumber: inbound.flight, flightDate: iso(inbound.scheduledAt).slice(0, 10), origin: inbound.other ?? '', destination: leg.origin ?? '' },
    designators: [inbound.flight],
    origin: inbound.other,
    destination: leg.origin,
    scheduledDeparture: inbound.scheduledAt - HOUR,
    scheduledArrival: inbound.scheduledAt,
    actualDeparture: null,
    actualArrival: inbound.at,
    cancelled: false,
    diverted: false,
  };
  return chainOrigin([flown, leg], 1) === 1 ? inbound : null;
}
