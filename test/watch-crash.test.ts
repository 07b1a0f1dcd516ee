// A watched flight's events across killed service processes (docs/watches.md, "Events" and
// "Settled"), on both databases: the service is killed with SIGKILL at random moments while the
// manual clock runs its board passes, deliveries and settle runs, then started again, over the
// flight's whole life. Every event the boards stored of the flight reaches the watch once: linked to
// it once, one delivery per endpoint, each answered 2xx; none lost, none doubled; the once-only
// events (tracked, delayed, qualifying, settled) are stored once; and the watch ends with one
// flight.settled.
import { expect, it } from 'vitest';
import { HOUR } from '../src/clock.js';
import { openDatabase } from '../src/db/index.js';
import { T0 } from './helpers/app.js';
import { createTestDatabase, describeEachDatabase } from './helpers/databases.js';
import { callService, runCli, startService, type ServiceProcess } from './helpers/process.js';
import { startReceiver } from './helpers/receiver.js';
import { delayedOtpDeparture, squeezed } from './helpers/sim-flights.js';

const ADMIN = 'watch-crash-admin-token-0123456789';
const SEED = 'test';
/** Stored once per flight and board (docs/boards.md, "Events"), or once per watch. */
const ONCE = ['flight.tracked', 'flight.delayed', 'flight.qualifying', 'flight.predicted_qualifying', 'flight.settled'];

// A passenger departure from OTP that the world delays, due 3 to 4 hours after the test clock's start.
const flight = delayedOtpDeparture(SEED, 3, 4);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeEachDatabase('a watch across killed workers', (kind) => {
  it('loses and doubles no event of a watched flight when the worker is killed mid-pass, mid-delivery or mid-settle', async () => {
    expect(flight).toBeDefined();
    const database = await createTestDatabase(kind, { migrated: true });
    const receiver = await startReceiver(() => 204);
    const services: ServiceProcess[] = [];
    try {
      const env = {
        DATABASE_URL: database.url,
        FLIGHTSTATUS_CLOCK: 'manual',
        FLIGHTSTATUS_CLOCK_START: new Date(T0 + 2 * HOUR).toISOString(),
        FLIGHTSTATUS_SIM_SEED: SEED,
        FLIGHTSTATUS_ADMIN_TOKEN: ADMIN,
        FLIGHTSTATUS_WEBHOOK_ALLOW_HTTP: '1',
        FLIGHTSTATUS_WEBHOOK_ALLOW_PRIVATE: '1',
        LOG_LEVEL: 'warn',
      };
      await runCli(['accounts', 'create', '--slug', 'insurer', '--included', '1000'], env);
      const key = JSON.parse((await runCli(['keys', 'create', '--account', 'insurer', '--name', 'k'], env)).stdout).data
        .key as string;
      let service = await startService(env);
      services.push(service);
      const endpoint = await callService(service, 'POST', '/api/v1/webhooks', key, {
        name: 'policies',
        url: `${receiver.url}/hook`,
        airports: [],
      });
      expect(endpoint.status).toBe(201);
      // A second endpoint selecting the airport and another keeps each pass and delivery cycle busy enough to be cut.
      expect(
        (
          await callService(service, 'POST', '/api/v1/webhooks', key, {
            name: 'busy',
            url: `${receiver.url}/busy`,
            airports: ['OTP', 'RMO'],
          })
        ).status,
      ).toBe(201);
      const watch = await callService(service, 'POST', '/api/v1/watches', key, {
        flightNumber: flight.flightNumber,
        flightDate: flight.flightDate,
        origin: 'OTP',
        reference: 'POLICY-1',
        endpoints: [endpoint.body.data.id],
      });
      expect(watch.status).toBe(201);
      const watchId = watch.body.data.id as string;

      // Half an hour at a time, as the service's own passes go, then six hours at a time, until the
      // watch has ended and its event is delivered. In six of the first eight steps (from two hours
      // before the flight leaves) the process is killed at a random moment of the step (its pass, its
      // deliveries, a settle run) and another started on the same database, its clock where the step
      // was going (time went on while it was down).
      const kills = new Set([0, 1, 3, 4, 5, 7]);
      const readWatch = async () => (await callService(service, 'GET', `/api/v1/watches/${watchId}`, key)).body.data;
      const end = Date.parse(flight.scheduledDeparture) + 48 * HOUR;
      let target = T0 + 2 * HOUR;
      for (let step = 0; ; step++) {
        // After the kills, by six hours: the flight has left the boards; what is left is its settle run and deliveries.
        target += step < 8 ? HOUR / 2 : 6 * HOUR;
        expect(target).toBeLessThan(end);
        const to = new Date(target).toISOString();
        const moved = callService(service, 'POST', '/api/admin/v1/clock', ADMIN, { to });
        if (kills.has(step)) {
          void moved.catch(() => {});
          await sleep(Math.floor(Math.random() * 400));
          expect(await service.stop('SIGKILL')).toBeNull();
          service = await startService({ ...env, FLIGHTSTATUS_CLOCK_START: to });
          services.push(service);
          continue;
        }
        expect((await moved).status).toBe(200);
        const state = await readWatch();
        if (
          state.state !== 'active' &&
          state.events.every((e: any) => e.deliveries.every((d: any) => d.state === 'delivered'))
        )
          break;
      }
      const state = await readWatch();
      expect(state).toMatchObject({ state: 'ended', endedReason: 'settled' });
      await service.stop();

      let linked = new Set<string>();
      const db = await openDatabase(database.target);
      try {
        const links = await db.kysely
          .selectFrom('board_event_watches')
          .selectAll()
          .where('watch_id', '=', watchId)
          .execute();
        linked = new Set(links.map((l) => l.event_id));
        // Linked once each.
        expect(linked.size).toBe(links.length);
        // Every event the boards stored of this flight, of a type watches receive, is linked: none lost on the way.
        const stored = (await db.kysely.selectFrom('board_events').selectAll().execute())
          .map((row) => ({ ...row, parsed: JSON.parse(row.data) }))
          .filter(
            (row) =>
              squeezed(row.parsed.flight.flightNumber) === squeezed(flight.flightNumber) &&
              [flight.scheduledDeparture, flight.scheduledArrival].includes(row.parsed.flight.scheduledAt),
          );
        const watchedTypes = new Set(links.map((l) => l.event_type));
        for (const row of stored) if (watchedTypes.has(row.type)) expect(linked.has(row.id)).toBe(true);
        // The once-only events were stored once per board (and flight.settled once).
        for (const type of ONCE) {
          const byBoard = new Map<string, number>();
          for (const l of links.filter((x) => x.event_type === type)) {
            const board = stored.find((row) => row.id === l.event_id)?.airport ?? 'settled';
            byBoard.set(board, (byBoard.get(board) ?? 0) + 1);
          }
          for (const n of byBoard.values()) expect(n).toBe(1);
        }
        expect(links.filter((l) => l.event_type === 'flight.settled')).toHaveLength(1);
        expect(links.length).toBeGreaterThan(2);
        // One delivery per linked event to the watch's endpoint, each delivered.
        const deliveries = await db.kysely
          .selectFrom('deliveries')
          .selectAll()
          .where('endpoint_id', '=', endpoint.body.data.id)
          .execute();
        expect(deliveries.map((d) => d.event_id).sort()).toEqual([...linked].sort());
        expect(deliveries.every((d) => d.state === 'delivered')).toBe(true);
      } finally {
        await db.close();
      }
      // The receiver got every event; a delivery cut by a kill may arrive again under its own id, never as a second one.
      const got = receiver.received.filter((r) => r.path === '/hook');
      expect(new Set(got.map((r) => r.body.event))).toEqual(linked);
      expect(new Set(got.map((r) => r.body.event)).size).toBe(new Set(got.map((r) => r.body.id)).size);
      expect(got.every((r) => r.body.watches?.[0]?.id === watchId)).toBe(true);
    } finally {
      for (const s of services) await s.stop('SIGKILL');
      await receiver.close();
      await database.drop();
    }
  }, 240_000);
});
