// A board event's `data` (docs/webhooks.md, "What a delivery is"): the flight as now, the values
// before the change, the prediction and the qualification with their compensation. The board poll
// (poller.ts) stores each board's events with it, and the flights followed through the providers
// (src/watches/follow.ts) theirs, so a receiver reads `data` alike whichever path saw the change.
import { iso } from '../clock.js';
import type { ReferenceAirports } from '../airports/index.js';
import type { BoardRow } from '../providers/index.js';
import type { EngineEvent, Watch } from './engine.js';
import { assess, operatingCarrier } from '../compensation/index.js';

const time = (ms: number | null) => (ms === null ? null : iso(ms));

export function boardEventData(airports: ReferenceAirports, row: BoardRow, watch: Watch, event: EngineEvent) {
  const data: Record<string, unknown> = {
    flight: {
      id: watch.flightId,
      flightNumber: row.flightNumber,
      callsign: watch.callsign,
      direction: row.direction,
      airline: { name: row.airline.name, iata: row.airline.iata },
      aircraftType: row.aircraftType,
      registration: watch.registration,
      operation: row.operation,
      origin: { iata: row.origin.iata },
      destination: { iata: row.destination.iata },
      divertedTo: row.divertedTo ? { iata: row.divertedTo.iata } : null,
      scheduledAt: iso(row.scheduledAt),
      estimatedAt: time(row.estimatedAt),
      delayMinutes: watch.delayMinutes,
      status: row.status,
      disruption: watch.disruption,
      isCancelled: row.cancelled,
      isDiverted: row.diverted,
      runway: row.runway,
      firstSeenAt: iso(watch.firstSeenAt),
      lastSeenAt: iso(watch.lastSeenAt),
    },
    previous: {
      status: event.previous.status,
      estimatedAt: time(event.previous.estimatedAt),
      delayMinutes: event.previous.delayMinutes,
      disruption: event.previous.disruption,
    },
  };
  if (event.prediction) {
    const p = event.prediction;
    data.prediction = {
      registration: p.registration,
      projectedDepartureAt: iso(p.projectedDepartureAt),
      projectedDelayMinutes: p.projectedDelayMinutes,
      confidence: p.confidence,
      minTurnaroundMinutes: p.minTurnaroundMinutes,
      inbound: {
        flightNumber: p.inbound.flightNumber,
        origin: { iata: p.inbound.origin },
        scheduledArrivalAt: iso(p.inbound.scheduledArrivalAt),
        projectedArrivalAt: iso(p.inbound.projectedArrivalAt),
        status: p.inbound.status,
      },
      detectedAt: iso(p.detectedAt),
      minutesBeforeScheduled: p.minutesBeforeScheduled,
      compensation: boardCompensation(airports, row, 'delayed', p.projectedDelayMinutes),
      basis: p.basis.map((leg) => ({
        flightNumber: leg.flightNumber,
        origin: { iata: leg.origin },
        destination: { iata: leg.destination },
        scheduledDepartureAt: time(leg.scheduledDepartureAt),
        scheduledArrivalAt: iso(leg.scheduledArrivalAt),
        projectedDepartureAt: iso(leg.projectedDepartureAt),
        projectedArrivalAt: iso(leg.projectedArrivalAt),
        observed: leg.observed,
        turnaroundMinutes: leg.turnaroundMinutes,
      })),
    };
  }
  if (event.qualification) {
    const q = event.qualification;
    data.qualification = {
      reason: q.reason,
      delayMinutes: q.delayMinutes,
      detectedAt: iso(q.detectedAt),
      minutesBeforeScheduled: q.minutesBeforeScheduled,
      compensation: boardCompensation(airports, row, q.reason, q.delayMinutes),
    };
  }
  return data;
}

/**
 * `{amountEur, amountGbp, distanceKm, band}`: EU261's amount, and UK261's for flights it covers
 * (amountEur is null on a flight only UK261 covers); null when either route end is unknown.
 * A diverted row is assessed as a diversion whatever the reason it qualified under (an arrival
 * only ever qualifies as `delayed`): to another region as a cancellation, within the destination's
 * city or region as a delay, on the board's delay, which the final arrival can only exceed.
 */
export function boardCompensation(
  airports: ReferenceAirports,
  row: BoardRow,
  reason: 'cancelled' | 'diverted' | 'delayed',
  delay: number | null,
) {
  if (!row.origin.iata || !row.destination.iata) return null;
  const assessment = assess(airports, {
    origin: row.origin.iata,
    destination: row.destination.iata,
    airline: operatingCarrier(row.callsign, row.airline.iata, row.airline.icao),
    outcome: reason !== 'cancelled' && row.diverted ? 'diverted' : reason,
    arrivalDelayMinutes: delay,
    finalArrival: false,
    divertedTo: row.divertedTo?.iata ?? null,
  });
  if (!assessment) return null;
  return {
    amountEur: assessment.eu261.amountEur,
    amountGbp: assessment.uk261.amountGbp,
    distanceKm: assessment.distanceKm,
    band: assessment.eu261.band ?? assessment.uk261.band,
  };
}
