// The service's one source of time. Domain code asks the injected clock, never Date.now(),
// so tests, demos and operators can run the whole service on a manual clock.

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** The clock FLIGHTSTATUS_CLOCK names (config/clock.ts): the system's, or a manual one from its start (else now). */
export function clockFor(
  setting: { kind: 'system' } | { kind: 'manual'; start: number | null },
  now: () => number = () => systemClock.now(),
): Clock {
  if (setting.kind === 'system') return systemClock;
  return new ManualClock(setting.start ?? now());
}

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

// Dates and instants from outside (query strings, bodies, CSV rows, forms, the command line, the
// environment) are read here and nowhere else: never `new Date(text)` then `toISOString()`, which
// throws a RangeError on a date that does not exist (a 500 with a stack trace), and never Date.UTC
// or Date.parse alone, which roll 2026-02-30 over to 2 March.

export interface Years {
  min: number;
  max: number;
}
/**
 * Years a date from outside may name: nothing the service keeps or counts is older than the Unix
 * epoch (its instants are milliseconds since it), and four digits end at 9999. Year 0000 and the
 * like are placeholders, not dates.
 */
export const YEARS: Years = { min: 1970, max: 9999 };
/** Years of a flight date: outside them it is a typo, not a flight. */
export const FLIGHT_YEARS: Years = { min: 1970, max: 2099 };

/** Why a text is not a day: not written YYYY-MM-DD, a day the calendar does not have, or a year out of range. */
export type DayProblem = 'shape' | 'calendar' | 'year';
export type DayCheck = { ok: true; day: string; at: number } | { ok: false; problem: DayProblem };

const DAY_SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/;
const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysIn = (year: number, month: number) =>
  month === 2 ? (isLeap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/** A calendar day written `YYYY-MM-DD` (UTC) and its midnight, or why it is not one. Never throws. */
export function readDay(text: string, years: Years = YEARS): DayCheck {
  const parts = DAY_SHAPE.exec(text);
  if (!parts) return { ok: false, problem: 'shape' };
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return { ok: false, problem: 'calendar' };
  if (year < years.min || year > years.max) return { ok: false, problem: 'year' };
  return { ok: true, day: text, at: new Date(0).setUTCFullYear(year, month - 1, day) };
}

/** readDay's refusal in words that name the field and quote the value (cut short). */
export function dayProblem(field: string, value: string, problem: DayProblem, years: Years = YEARS): string {
  const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (problem === 'shape') return `${field} must be a date as YYYY-MM-DD (got ${shown})`;
  if (problem === 'calendar') return `${field} is not a calendar date (got ${shown})`;
  return `${field} must be between ${years.min} and ${years.max} (got ${shown})`;
}

const INSTANT = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(?:Z|[+-](\d{2}):(\d{2})))?$/;

/**
 * An instant written in ISO 8601 with its zone (`2026-03-01T06:00:00Z`, `…+02:00`), or a bare date
 * meaning its UTC midnight; null for anything else, a day or a time that does not exist included
 * (2026-02-30, 25:00, an offset of +25:00). A date-time without a zone is refused: read in the
 * server's zone it would mean different instants on different machines.
 */
export function parseInstant(text: string, years: Years = YEARS): number | null {
  const parts = INSTANT.exec(text);
  if (!parts) return null;
  const day = readDay(parts[1]!, years);
  if (!day.ok) return null;
  if (parts[2] === undefined) return day.at;
  const within = (value: string | undefined, max: number) => value === undefined || Number(value) <= max;
  if (
    !within(parts[2], 23) ||
    !within(parts[3], 59) ||
    !within(parts[4], 59) ||
    !within(parts[5], 23) ||
    !within(parts[6], 59)
  )
    return null;
  const at = Date.parse(text);
  return Number.isFinite(at) ? at : null;
}

/**
 * What was scheduled in [from, to), cut from whole UTC days: `day(start)` for a day over before
 * `settled` (read once and kept by the caller), `part(from, to)` for the rest, read as it is.
 */
export async function fromUtcDays<T extends { scheduledAt: number }>(
  from: number,
  to: number,
  settled: number,
  day: (start: number) => Promise<T[]>,
  part: (from: number, to: number) => Promise<T[]>,
): Promise<T[]> {
  const out: T[] = [];
  for (let start = Math.floor(from / DAY) * DAY; start < to; start += DAY) {
    const [a, b] = [Math.max(from, start), Math.min(to, start + DAY)];
    if (start + DAY >= settled) out.push(...(await part(a, b)));
    else for (const x of await day(start)) if (x.scheduledAt >= a && x.scheduledAt < b) out.push(x);
  }
  return out;
}
