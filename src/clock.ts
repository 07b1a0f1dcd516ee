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
/** `09:12 UTC`: the minute of an instant, as rationales and doubts write it. */
export const utcTime = (ms: number): string => `${iso(ms).slice(11, 16)} UTC`;

/**
 * An instant written in ISO 8601 with its zone (`2026-03-01T06:00:00Z`, `…+02:00`), or a bare date
 * meaning its UTC midnight; null for anything else. A date-time without a zone is refused: read in the
 * server's zone it would mean different instants on different machines.
 */
export function parseInstant(text: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(text)) return null;
  const at = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text);
  if (!Number.isFinite(at)) return null;
  // Date.parse rolls 2026-02-30 over to March; refuse dates that do not exist.
  return new Date(Date.parse(`${text.slice(0, 10)}T00:00:00Z`)).toISOString().slice(0, 10) === text.slice(0, 10) ? at : null;
}
