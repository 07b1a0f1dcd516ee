// A board event's `data` (docs/webhooks.md, "What a delivery is") for an observation made outside a
// board pass: the flight as now, the values before the change, and the qualification with its
// compensation. The flights followed through the providers (src/watches/follow.ts) send their
// events with it, so a watch's receiver reads `data.flight` alike whichever path saw the change; the
// board poll (poller.ts) builds the same shape, with its predictions, as it stores each board.
import { iso } from '../clock.js';
import type { ReferenceAirports } from '../airports/index.js';
import type { BoardRow } from '../providers/index.js';
import type { EngineEvent, Watch } from './engine.js';
import { boardCompensation } from './poller.js';

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
