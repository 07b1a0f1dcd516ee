import { afterEach, describe, expect, it, vi } from 'vitest';
import { HOUR, iso, ManualClock, MINUTE, systemClock } from '../clock.js';
import { createLogger } from '../logger.js';
import { Scheduler } from './scheduler.js';

const T0 = Date.UTC(2026, 2, 1, 12, 0, 0);
const logger = createLogger('silent');

describe('Scheduler on the manual clock', () => {
  it('runs every job that falls due in time order, each seeing the clock at its due time', async () => {
    const clock = new ManualClock(T0 + 5 * MINUTE);
    const scheduler = new Scheduler(clock, logger, clock);
    const seen: string[] = [];
    scheduler.register({
      name: 'poll',
      intervalMs: 30 * MINUTE,
      run: async (at) => void seen.push(`poll ${iso(at)} ${iso(clock.now())}`),
    });
    scheduler.register({
      name: 'deliver',
      intervalMs: 20 * MINUTE,
      run: async (at) => void seen.push(`deliver ${iso(at)}`),
    });
    scheduler.start();
    expect(seen).toEqual([]); // nothing runs until the clock moves

    const runs = await scheduler.advanceTo(T0 + HOUR + 5 * MINUTE);
    expect(runs.map((r) => `${r.job} ${r.at}`)).toEqual([
      'deliver 2026-03-01T12:20:00.000Z',
      'poll 2026-03-01T12:30:00.000Z',
      'deliver 2026-03-01T12:40:00.000Z',
      'poll 2026-03-01T13:00:00.000Z', // a tie: registration order
      'deliver 2026-03-01T13:00:00.000Z',
    ]);
    expect(seen[1]).toBe('poll 2026-03-01T12:30:00.000Z 2026-03-01T12:30:00.000Z');
    expect(clock.now()).toBe(T0 + HOUR + 5 * MINUTE);
    expect(scheduler.state()).toEqual([
      {
        name: 'poll',
        intervalSeconds: 1800,
        nextRunAt: '2026-03-01T13:30:00.000Z',
        lastRunAt: '2026-03-01T13:00:00.000Z',
        running: false,
      },
      {
        name: 'deliver',
        intervalSeconds: 1200,
        nextRunAt: '2026-03-01T13:20:00.000Z',
        lastRunAt: '2026-03-01T13:00:00.000Z',
        running: false,
      },
    ]);
    await scheduler.stop();
  });

  it('reports a failing run and goes on; never moves the clock back', async () => {
    const clock = new ManualClock(T0);
    const scheduler = new Scheduler(clock, logger, clock);
    let ran = 0;
    scheduler.register({
      name: 'broken',
      intervalMs: HOUR,
      run: async () => Promise.reject(new Error('provider down')),
    });
    scheduler.register({ name: 'fine', intervalMs: HOUR, run: async () => void ran++ });
    const runs = await scheduler.advanceTo(T0 + 2 * HOUR);
    expect(runs.filter((r) => !r.ok)).toEqual([
      { job: 'broken', at: '2026-03-01T13:00:00.000Z', ok: false, error: 'provider down' },
      { job: 'broken', at: '2026-03-01T14:00:00.000Z', ok: false, error: 'provider down' },
    ]);
    expect(ran).toBe(2);
    await expect(scheduler.advanceTo(T0)).rejects.toThrow(/never goes back/);
    expect(clock.now()).toBe(T0 + 2 * HOUR);
  });

  it('takes concurrent advances in turn', async () => {
    const clock = new ManualClock(T0);
    const scheduler = new Scheduler(clock, logger, clock);
    const order: number[] = [];
    scheduler.register({ name: 'tick', intervalMs: 10 * MINUTE, run: async (at) => void order.push(at) });
    await Promise.all([scheduler.advanceTo(T0 + 30 * MINUTE), scheduler.advanceTo(T0 + HOUR)]);
    expect(order).toEqual([1, 2, 3, 4, 5, 6].map((n) => T0 + n * 10 * MINUTE));
  });
});

describe('Scheduler on the system clock', () => {
  // The system clock's timers, faked: the same setTimeout/Date.now path as in production, moved by
  // the test instead of waited for, so "no run after stop" holds for a whole second of time on any machine.
  afterEach(() => vi.useRealTimers());

  it('runs jobs on timers at interval boundaries and stops cleanly', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T0 + 7 });
    const scheduler = new Scheduler(systemClock, logger, null);
    const times: number[] = [];
    scheduler.register({ name: 'fast', intervalMs: 25, run: async (at) => void times.push(at) });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(17); // T0 + 24: not due yet
    expect(times).toEqual([]);
    await vi.advanceTimersByTimeAsync(1 + 25);
    expect(times).toEqual([T0 + 25, T0 + 50]);
    await scheduler.stop();
    expect(vi.getTimerCount()).toBe(0); // nothing left armed
    await vi.advanceTimersByTimeAsync(1000);
    expect(times).toEqual([T0 + 25, T0 + 50]); // no run after stop
    await expect(scheduler.advanceTo(Date.now() + 1000)).rejects.toThrow(/system clock/);
  });
});
