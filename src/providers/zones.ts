// Time zones, dates and the time formats providers write. Providers file flights and boards under the
// airport's local date and time (AeroDataBox, aviationstack), so the adapters convert both ways with
// the IANA zone of the reference airports (Intl, no extra library: the zone data ships with Node). The
// simulated world builds its schedules with the same helpers (src/sim/time.ts).
import { DAY, HOUR, MINUTE } from '../clock.js';

const formatters = new Map<string, Intl.DateTimeFormat>();
/**
 * Offsets by zone, then by UTC hour since the epoch: formatToParts is slow and both the simulated world
 * and the adapters ask often. An hour is cached only when the zone has the same offset at its first
 * and its last minute, that is when no change falls inside it; an hour with a change (twice a year per
 * zone) is cached as NaN and answered minute by minute. Changes fall off the hour in some zones (St
 * John's at :30 UTC, Lord Howe's 30-minute change, Chatham at :45 local), so an offset cached for the
 * whole hour was wrong for up to 30 minutes there.
 */
const offsets = new Map<string, Map<number, number>>();
const validity = new Map<string, boolean>();

/** Whether `zone` is an IANA zone name this Node knows (provider data may carry anything). */
export function isZone(zone: string): boolean {
  let valid = validity.get(zone);
  if (valid === undefined) {
    try {
      new Intl.DateTimeFormat('en-GB', { timeZone: zone });
      valid = true;
    } catch {
      valid = false;
    }
    if (validity.size < 1000) validity.set(zone, valid);
  }
  return valid;
}

function formatterOf(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(timezone, formatter);
  }
  return formatter;
}

/** The zone's offset at `minute` (ms since the epoch, a whole minute), from the IANA data Node ships. */
function offsetAtMinute(formatter: Intl.DateTimeFormat, minute: number): number {
  const parts: Record<string, number> = {};
  for (const part of formatter.formatToParts(minute)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const local = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!);
  return Math.round((local - minute) / MINUTE);
}

/** Minutes the zone is ahead of UTC at the instant `at` (negative west of Greenwich). */
export function offsetMinutes(timezone: string, at: number): number {
  const hour = Math.floor(at / HOUR) | 0; // an int32 key: see dayNumber
  let zone = offsets.get(timezone);
  if (!zone) offsets.set(timezone, (zone = new Map()));
  let cached = zone.get(hour);
  if (cached === undefined) {
    const formatter = formatterOf(timezone);
    const first = offsetAtMinute(formatter, hour * HOUR);
    cached = offsetAtMinute(formatter, hour * HOUR + HOUR - MINUTE) === first ? first : Number.NaN;
    if (zone.size > 50_000) zone.clear();
    zone.set(hour, cached);
  }
  // The hour of a change: the offset of the minute itself (changes fall on whole minutes).
  return Number.isNaN(cached) ? offsetAtMinute(formatterOf(timezone), Math.floor(at / MINUTE) * MINUTE) : cached;
}

/** `YYYY-MM-DDTHH:mm` as a clock on the wall of the zone shows it. */
export function localMinute(at: number, timezone: string): string {
  return new Date(at + offsetMinutes(timezone, at) * MINUTE).toISOString().slice(0, 16);
}

/**
 * The instant a wall-clock time (`YYYY-MM-DDTHH:mm[:ss]`) names in the zone. In the time a change
 * repeats, the first of the two instants; in the time it skips, the time as many minutes later as the
 * change (an hour in most zones, 30 minutes at Lord Howe): the wall time read with the offset before it.
 */
export function zonedToUtc(wall: string, zone: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?/.exec(wall);
  if (!m) return null;
  const asUtc = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0));
  if (Number.isNaN(asUtc)) return null;
  // The instant is within 14 hours of the wall time read as UTC; a change near it has its offsets on
  // either side of that span. Each offset that reads back as itself names the wall time.
  const before = offsetMinutes(zone, asUtc - 14 * HOUR);
  const after = offsetMinutes(zone, asUtc + 14 * HOUR);
  const named = [before, after]
    .map((offset) => asUtc - offset * MINUTE)
    .filter((at, i) => offsetMinutes(zone, at) === [before, after][i]);
  return named.length > 0 ? Math.min(...named) : asUtc - before * MINUTE;
}

const dates = new Map<number, string>();

/**
 * The UTC day number of an instant (days since the epoch). `| 0` keeps the same value but tells V8 it
 * is a small integer, so the Maps keyed by day take their integer fast path (a float key is hashed
 * generically, a few times slower; the simulated world looks these up several times per leg).
 */
export function dayNumber(at: number): number {
  return Math.floor(at / DAY) | 0;
}

/** YYYY-MM-DD of an instant in UTC (memoised per day). */
export function utcDate(at: number): string {
  const day = dayNumber(at);
  let text = dates.get(day);
  if (text === undefined) {
    text = new Date(day * DAY).toISOString().slice(0, 10);
    if (dates.size > 100_000) dates.clear();
    dates.set(day, text);
  }
  return text;
}

/** `YYYY-MM-DD` moved by whole days. */
export function addDays(date: string, days: number): string {
  return utcDate(Date.parse(`${date}T00:00:00Z`) + days * DAY);
}

/**
 * An instant in the forms providers write: ISO 8601 (`2024-03-12T07:15:00Z`, `…+01:00`) and
 * AeroDataBox's `2024-03-12 07:15Z` / `2024-03-12 08:15+01:00` (a space, minutes only). A time with
 * neither `Z` nor an offset is refused: it names no instant.
 */
export function parseInstant(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)\s*(Z|[+-]\d{2}:?\d{2})$/i.exec(text.trim());
  if (!m) return null;
  const zone =
    m[3]!.toUpperCase() === 'Z' ? 'Z' : m[3]!.length === 5 ? `${m[3]!.slice(0, 3)}:${m[3]!.slice(3)}` : m[3]!;
  const ms = Date.parse(`${m[1]}T${m[2]}${zone}`);
  return Number.isNaN(ms) ? null : ms;
}
