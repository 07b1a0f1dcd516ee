// The service's one source of time. Domain code asks the injected clock, never Date.now(),
// so tests, demos and operators can run the whole service on a manual clock.

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to. Time never goes backwards. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: number | string | Date = Date.UTC(2026, 0, 1)) {
    this.current = new Date(start).getTime();
    if (!Number.isFinite(this.current)) throw new Error(`ManualClock: invalid start time ${String(start)}`);
  }

  now(): number {
    return this.current;
  }

  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new Error(`ManualClock: cannot advance by ${ms} ms`);
    this.current += ms;
    return this.current;
  }

  set(to: number | string | Date): number {
    const next = new Date(to).getTime();
    if (!Number.isFinite(next)) throw new Error(`ManualClock: invalid time ${String(to)}`);
    if (next < this.current) throw new Error('ManualClock: time cannot go backwards');
    this.current = next;
    return this.current;
  }
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const iso = (ms: number): string => new Date(ms).toISOString();
