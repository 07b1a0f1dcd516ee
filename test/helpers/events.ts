// Board changes for webhook tests, stored through the board store: the poller's own path (the events
// in the board's transaction, then their fan-out into deliveries).
import { createBoardStore, type BoardStore } from '../../src/boards/index.js';
import { FanOut } from '../../src/webhooks/index.js';
import type { BoardEventsTable } from '../../src/db/index.js';
import { newId } from '../../src/ids.js';
import type { TestApp } from './app.js';

/**
 * Stores `n` board changes at `airport` as of the test clock; resolves once their deliveries are
 * written. `store`: a board store of the test's own (default: one with the fan-out's defaults).
 */
export async function observe(
  t: TestApp,
  airport: string,
  n: number,
  type = 'flight.delay_changed',
  store: BoardStore = createBoardStore(t.app.db, new FanOut(t.app.db)),
): Promise<BoardEventsTable[]> {
  const at = t.clock.now();
  const events: BoardEventsTable[] = Array.from({ length: n }, (_, i) => ({
    id: newId('evt'),
    type,
    airport,
    board: 'departures',
    flight_id: `fl_test${i}`,
    created_at: at,
    data: JSON.stringify({
      flight: { id: `fl_test${i}`, flightNumber: `W6${1000 + i}`, lastSeenAt: new Date(at).toISOString() },
      previous: { status: null, estimatedAt: null, delayMinutes: null, disruption: null },
    }),
  }));
  await store.save(airport, 'departures', [], events);
  await store.fannedOut();
  return events;
}
