// Local time for the simulated world: schedules are built in each airport's local time (banks of
// departures in the morning and evening), boards print local HH:MM, and the world changes its
// timetable with the IATA seasons. Offsets come from the IANA database through Intl, cached per
// zone and hour because formatToParts is slow and the world asks often.
import { DAY, HOUR, MINUTE } from '../clock.js';

const formatters = new Map<string, Intl.DateTimeFormat>();
/** Offsets by zone, then by UTC hour since the epoch. */
const offsets = new Map<string, Map<number, number>>();

/** Minutes the zone is ahead of UTC at the instant `at`. */
export function offsetMinutes(timezone: string, at: number): number {
  const hour = Math.floor(at / HOUR) | 0; // an int32 key: see dayNumber
  let zone = offsets.get(timezone);
  if (!zone) offsets.set(timezone, (zone = new Map()));
  const cached = zone.get(hour);
  if (cached !== undefined) return cached;
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
  const parts: Record<string, number> = {};
  for (const part of formatter.formatToParts(hour * HOUR)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const local = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!);
  const offset = Math.round((local - hour * HOUR) / MINUTE);
  if (zone.size > 50_000) zone.clear();
  zone.set(hour, offset);
  return offset;
}

/** The UTC instant of local midnight starting `date` (YYYY-MM-DD) in the zone. */
export function localMidnight(timezone: string, date: string): number {
  const utcMidnight = Date.parse(`${date}T00:00:00Z`);
  // The offset at local noon is the day's offset except across a DST change before noon, which
  // happens at 01:00–03:00 local; schedules start after 05:00, so noon's offset is the one to use.
  return utcMidnight - offsetMinutes(timezone, utcMidnight + 12 * HOUR) * MINUTE;
}

/** The minute of the local day (0–1439) in the zone at the instant `at`. */
export function localMinuteOfDay(timezone: string, at: number): number {
  const local = at + offsetMinutes(timezone, at) * MINUTE;
  const minutes = Math.floor(local / MINUTE) % 1440;
  return (minutes + 1440) % 1440;
}

/** "00:00" … "23:59" by minute of the day, as boards print local times. */
export const CLOCK_TEXTS: readonly string[] = Array.from(
  { length: 1440 },
  (_, m) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`,
);

const dates = new Map<number, string>();

/**
 * The UTC day number of an instant (days since the epoch). `| 0` keeps the same value but tells V8 it
 * is a small integer, so the Maps keyed by day take their integer fast path (a float key is hashed
 * generically, a few times slower; these lookups run several times per simulated leg).
 */
export function dayNumber(at: number): number {
  return Math.floor(at / DAY) | 0;
}

/** YYYY-MM-DD of an instant in UTC (memoised per day: the world asks this for every leg). */
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

/** YYYY-MM-DD of an instant in the zone's local time. */
export function localDate(timezone: string, at: number): string {
  return utcDate(at + offsetMinutes(timezone, at) * MINUTE);
}

export function addDays(date: string, days: number): string {
  return utcDate(Date.parse(`${date}T00:00:00Z`) + days * DAY);
}

/** 0 = Monday … 6 = Sunday. */
export function weekday(date: string): number {
  return (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7;
}

/** Date of the last Sunday of a month (1-based) of a year. */
function lastSunday(year: number, month: number): string {
  const last = new Date(Date.UTC(year, month, 0));
  last.setUTCDate(last.getUTCDate() - last.getUTCDay());
  return utcDate(last.getTime());
}

/**
 * The IATA scheduling season a date falls in: summer (S) from the last Sunday of March, winter (W)
 * from the last Sunday of October, named by the year they start in (W2026 runs into March 2027).
 */
export function seasonOf(date: string): Season {
  let season = seasons.get(date);
  if (!season) {
    season = computeSeason(date);
    if (seasons.size > 10_000) seasons.clear();
    seasons.set(date, season);
  }
  return season;
}

export interface Season {
  key: string;
  summer: boolean;
  start: string;
}

const seasons = new Map<string, Season>();

function computeSeason(date: string): Season {
  const year = Number(date.slice(0, 4));
  const summerStart = lastSunday(year, 3);
  const winterStart = lastSunday(year, 10);
  if (date < summerStart) return { key: `W${year - 1}`, summer: false, start: lastSunday(year - 1, 10) };
  if (date < winterStart) return { key: `S${year}`, summer: true, start: summerStart };
  return { key: `W${year}`, summer: false, start: winterStart };
}
