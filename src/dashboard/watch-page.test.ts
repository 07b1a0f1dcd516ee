// One watch's page (watch-page.ts) lists the watch's events with their deliveries to its endpoints,
// by the endpoints' names, and says so plainly when there are none yet.
import { describe, expect, it } from 'vitest';
import type { WebhookView } from '../webhooks/index.js';
import type { WatchDetail } from '../watches/index.js';
import { watchPage } from './watch-page.js';

const watch: WatchDetail = {
  id: 'wch_1',
  state: 'active',
  flightNumber: 'W63101',
  flightDate: '2026-03-01',
  dateBasis: 'utc',
  origin: 'OTP',
  destination: null,
  reference: 'POLICY-1',
  endpoints: ['wh_1'],
  createdAt: '2026-03-01T06:00:00.000Z',
  endedAt: null,
  endedReason: null,
  flight: null,
  events: [],
};
const endpoint = { id: 'wh_1', name: 'Claims desk', url: 'https://example.com/hook', enabled: true } as WebhookView;

describe("a watch's page", () => {
  it('says there are no events yet, and lists them once there are, by endpoint name and outcome', () => {
    const empty = String(watchPage({ csrf: 't', watch, endpoints: [endpoint] }));
    expect(empty).toContain('id="no-events"');
    expect(empty).not.toContain('id="watch-events"');

    const delivery = { endpoint: 'wh_1', id: 'dlv_1', lastAttemptAt: null, deliveredAt: null };
    const page = String(
      watchPage({
        csrf: 't',
        endpoints: [endpoint],
        watch: {
          ...watch,
          events: [
            {
              id: 'evt_2',
              type: 'flight.delayed',
              createdAt: '2026-03-01T08:00:00.000Z',
              deliveries: [{ ...delivery, state: 'pending', attempts: 2, lastStatusCode: 503 }],
            },
            {
              id: 'evt_1',
              type: 'flight.tracked',
              createdAt: '2026-03-01T07:00:00.000Z',
              deliveries: [{ ...delivery, state: 'delivered', attempts: 1, lastStatusCode: 204 }],
            },
          ],
        },
      }),
    );
    expect(page).not.toContain('id="no-events"');
    const rows = page.slice(page.indexOf('id="watch-events"')).split('<tr>').slice(2);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain('flight.delayed');
    expect(rows[0]).toContain('Claims desk: pending, 2 attempts (HTTP 503)');
    expect(rows[1]).toContain('flight.tracked');
    expect(rows[1]).toContain('Claims desk: delivered, 1 attempt (HTTP 204)');
  });
});
