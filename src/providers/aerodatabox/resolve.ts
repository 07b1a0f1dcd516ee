// A codeshare row's operating flight asked for (aerodatabox.ts's lookup, one request more per
// codeshare leg): the FIDS board around the row's scheduled time at one of its ends, matched by codeshare.ts.
import { utcTime } from '../../clock.js';
import type { ReferenceAirports } from '../../airports/index.js';
import { isObject } from '../measured.js';
import type { AirportRef, Direction, FlightLookup, ProviderFlight } from '../types.js';
import type { CallWindow, Upstream } from '../upstream.js';
import { offsetMinutes } from '../zones.js';
import { type Json, scheduledLocal, isCodeshare, toFlight } from './flight.js';
import { operatorOf, asMarketing, unresolved } from './codeshare.js';
import { localOffset } from './board.js';

/**
 * A codeshare row resolved to its operating flight: the FIDS board (with legs, operators only) of
 * the end whose airport and scheduled time the row gives, an hour either side of that time. One
 * request more per codeshare leg; a failure, no match or two matches keep the row, unsettled, with
 * a doubt.
 */
export async function resolveCodeshare(
  upstream: Upstream,
  airports: ReferenceAirports,
  codeshare: ProviderFlight,
  row: Json,
  lookup: FlightLookup,
  now: number,
  window: CallWindow,
): Promise<ProviderFlight> {
  const ends: [Direction, string | null | undefined][] = [
    ['departure', lookup.origin],
    ['arrival', lookup.destination],
  ];
  for (const [end, asked] of ends) {
    const at = codeshare[end].scheduled;
    const airport = codeshare[end].airport;
    const code = airport.iata ?? airport.icao ?? (asked ? asked.toUpperCase() : null);
    if (at === null || !code) continue;
    const zone = airports.find(code)?.timezone;
    const offset = localOffset(scheduledLocal(row[end])) ?? (zone ? offsetMinutes(zone, at) : null);
    if (offset === null) continue;
    const wall = (ms: number) => new Date(ms + offset * 60_000).toISOString().slice(0, 16);
    const sent = await upstream.get(
      `/flights/airports/${/^[A-Z0-9]{3}$/.test(code) ? 'iata' : 'icao'}/${encodeURIComponent(code)}/${wall(at - 3_600_000)}/${wall(at + 3_600_000)}`,
      {
        direction: end === 'departure' ? 'Departure' : 'Arrival',
        withLeg: true,
        withCancelled: true,
        withCodeshared: false,
        withCargo: true,
        withPrivate: false,
        withLocation: false,
      },
      window,
      [200, 204],
    );
    if (!sent.ok) return unresolved(codeshare, `could not be looked up (${sent.error.message})`);
    const list = isObject(sent.body) ? sent.body[end === 'departure' ? 'departures' : 'arrivals'] : undefined;
    const candidates = (Array.isArray(list) ? list : [])
      .filter((item): item is Json => isObject(item) && !isCodeshare(item))
      .map((item) => toFlight(item, now))
      .filter((f): f is ProviderFlight => f !== null)
      // The board's own airport is often left out of its rows.
      .map((f) => {
        if (f[end].airport.iata || f[end].airport.icao) return f;
        const here: AirportRef = {
          iata: /^[A-Z0-9]{3}$/.test(code) ? code : null,
          icao: /^[A-Z]{4}$/.test(code) ? code : null,
        };
        return end === 'departure'
          ? { ...f, departure: { ...f.departure, airport: here } }
          : { ...f, arrival: { ...f.arrival, airport: here } };
      });
    const operator = operatorOf(codeshare, end, candidates);
    return operator
      ? asMarketing(codeshare, operator)
      : unresolved(
          codeshare,
          `is not on the ${end === 'departure' ? 'departures' : 'arrivals'} board of ${code} at ${utcTime(at)}`,
        );
  }
  return unresolved(codeshare, 'cannot be looked for (no end with both an airport and a scheduled time)');
}
