// What a settled record leads to beyond its verdict: whether it was disrupted enough for its
// circumstances to be given, and its EU261 / UK261 assessment (lookup.ts calls both).
import type { ReferenceAirports } from '../airports/index.js';
import type { Outcome as DisruptionOutcome } from '../circumstances/index.js';
import { assess, EU261_DELAY_MINUTES, operatingCarrier, type Assessment } from '../compensation/index.js';
import type { ProviderFlight } from '../providers/index.js';
import type { SelectedRecord } from './shapes.js';

/** docs/flight-lookup.md, "Circumstances": they are given for a settled flight 3 hours or more late on arrival, cancelled or diverted. */
export function disruptionOf(selected: SelectedRecord): DisruptionOutcome | null {
  if (!selected.complete) return null;
  if (selected.status === 'cancelled' || selected.status === 'diverted') return selected.status;
  return selected.status === 'delayed' && (selected.delayMinutes ?? 0) >= EU261_DELAY_MINUTES ? 'delayed' : null;
}

/**
 * The EU261 / UK261 assessment of a settled record. A diverted record ends where the flight landed:
 * its actual arrival, when a provider gives one, is the on-block at the diversion airport, so the
 * delay it gives is what the record knows before the carrier's transfer (`finalArrival: false`),
 * which the passenger's final arrival at the booked airport can only exceed (docs/flight-lookup.md).
 */
export function assessFlight(
  airports: ReferenceAirports,
  flight: ProviderFlight,
  selected: SelectedRecord,
): Assessment | null {
  if (!selected.originIata || !selected.destinationIata) return null;
  const diverted = selected.status === 'diverted';
  const { actual, scheduled } = flight.arrival;
  return assess(airports, {
    origin: selected.originIata,
    destination: selected.destinationIata,
    airline: operatingCarrier(
      flight.callsign,
      flight.operating?.airline.iata,
      flight.airline.iata,
      flight.airline.icao,
    ),
    outcome: selected.status === 'on_time' ? 'delayed' : selected.status,
    arrivalDelayMinutes: diverted
      ? actual !== null && scheduled !== null
        ? Math.trunc((actual - scheduled) / 60_000)
        : null
      : selected.delayMinutes,
    finalArrival: !diverted,
    divertedTo: flight.divertedTo?.iata ?? null,
    flightDate: selected.scheduledDeparture?.slice(0, 10) ?? undefined,
  });
}
