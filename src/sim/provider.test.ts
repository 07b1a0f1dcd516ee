import { beforeAll, describe, expect, it } from 'vitest';
import { DAY, HOUR, ManualClock } from '../clock.js';
import { createSimWorld, SimProvider, SimWorld } from './index.js';
import { settledAt } from './view.js';
import { bounded } from '../providers/index.js';

let world: SimWorld;
beforeAll(() => {
  world = createSimWorld('provider-tests');
});

describe('SimProvider', () => {
  it('answers hit once a flight settled, incomplete before, miss for numbers that do not fly', async () => {
    const leg = world.legsOn('2026-03-10', 'OTP').find((l) => !l.cancelled)!;
    const clock = new ManualClock(leg.scheduledDeparture - 2 * HOUR);
    const provider = new SimProvider(world, clock);
    const lookup = { designator: leg.plan.designator, flightDate: leg.flightDate, origin: leg.plan.from.iata };
    const before = await provider.lookupFlight(lookup);
    expect(before.outcome).toBe('incomplete');
    expect(before.outcome === 'incomplete' && before.value[0]!.departure.actual).toBeNull();
    clock.set(settledAt(leg));
    const after = await provider.lookupFlight(lookup);
    expect(after.outcome).toBe('hit');
    expect(after.outcome === 'hit' && after.value[0]!.departure.actual).toBe(leg.actualDeparture);
    expect(await provider.lookupFlight({ designator: 'ZZ1', flightDate: leg.flightDate })).toEqual({ outcome: 'miss' });
    expect(await provider.lookupFlight({ ...lookup, destination: 'XXX' })).toEqual({ outcome: 'miss' });
    expect(
      (await provider.lookupFlight({ ...lookup, designator: ` ${lookup.designator.toLowerCase()} ` })).outcome,
    ).toBe('hit');
  });

  it('shows, at an airport outside its catalogue (one the operator adds), the flights to and from the catalogue', async () => {
    const clock = new ManualClock(Date.parse('2026-03-10T06:00:00Z'));
    const provider = new SimProvider(world, clock);
    const now = clock.now();
    const catalogue = new Set(world.catalogue);
    for (const board of ['departures', 'arrivals'] as const) {
      const answer = await provider.readBoard({ airport: 'FRA', board, from: now, to: now + 12 * HOUR });
      expect(answer.outcome).toBe('hit');
      const rows = answer.outcome === 'hit' ? answer.value : [];
      expect(rows.length).toBeGreaterThan(10);
      for (const row of rows) {
        const [here, there] = board === 'departures' ? [row.origin, row.destination] : [row.destination, row.origin];
        expect(here.iata).toBe('FRA');
        expect(catalogue.has(there.iata ?? '')).toBe(true);
      }
    }
  });

  it('reads catalogue boards and aircraft; airports its flights never reach and unknown tails are a miss', async () => {
    const clock = new ManualClock(Date.parse('2026-03-10T12:00:00Z'));
    const provider = new SimProvider(world, clock);
    const now = clock.now();
    const board = await provider.readBoard({ airport: 'otp', board: 'arrivals', from: now - HOUR, to: now + 3 * HOUR });
    expect(board.outcome).toBe('hit');
    const rows = board.outcome === 'hit' ? board.value : [];
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.every((r) => r.direction === 'arrival' && r.destination.iata === 'OTP')).toBe(true);
    // Anchorage: no simulated flight goes there.
    expect(await provider.readBoard({ airport: 'ANC', board: 'arrivals', from: now, to: now + HOUR })).toEqual({
      outcome: 'miss',
    });
    expect(() => provider.readBoard({ airport: 'OTP', board: 'arrivals', from: now, to: now + 3 * DAY })).toThrow(
      RangeError,
    );

    const tail = rows.find((r) => r.registration)!.registration!;
    const aircraft = await provider.lookupAircraft(tail);
    expect(aircraft).toMatchObject({ outcome: 'hit', value: { registration: tail } });
    expect(await provider.lookupAircraft('ZZ-NONE')).toEqual({ outcome: 'miss' });
  });

  it('injects latency and failures per call kind, and honours timeouts and cancellation', async () => {
    const clock = new ManualClock(Date.parse('2026-03-10T12:00:00Z'));
    const slow = new SimProvider(world, clock, { latency: { flight: { min: 200, max: 200 } }, failures: {} });
    const lookup = { designator: 'ZZ1', flightDate: '2026-03-10' };
    expect(await bounded(slow, 20).lookupFlight(lookup)).toEqual({
      outcome: 'error',
      error: { kind: 'timeout', message: 'no answer within 20 ms' },
    });
    const controller = new AbortController();
    const pending = slow.lookupFlight(lookup, { signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ outcome: 'error', error: { kind: 'aborted' } });
    // Latency on one kind leaves the others fast.
    expect((await bounded(slow, 20).lookupAircraft('X')).outcome).toBe('miss');

    const flaky = new SimProvider(world, clock, { latency: {}, failures: { board: 1 } });
    expect(
      await flaky.readBoard({ airport: 'OTP', board: 'departures', from: clock.now(), to: clock.now() + HOUR }),
    ).toMatchObject({
      outcome: 'error',
      error: { kind: 'unavailable' },
    });
    const half = new SimProvider(world, clock, { latency: {}, failures: { flight: 0.5 } });
    const outcomes = await Promise.all(Array.from({ length: 40 }, () => half.lookupFlight(lookup)));
    const errors = outcomes.filter((o) => o.outcome === 'error').length;
    expect(errors).toBeGreaterThan(8);
    expect(errors).toBeLessThan(32);
  });
});
