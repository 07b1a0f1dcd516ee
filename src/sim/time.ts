// Local time for the simulated world: schedules are built in each airport's local time (banks of
// departures in the morning and evening), boards print local HH:MM, and the world changes its
// timetable with the IATA seasons. Offsets come from the IANA database through Intl, cached per
// zone and hour because formatToParts is slow and the world asks often (src/providers/zones.ts, shared
// with the real providers' adapters).
import { HOUR, MINUTE } from '../clock.js';
import { addDays, dayNumber, offsetMinutes, utcDate } from '../providers/zones.js';

export { addDays, dayNumber, offsetMinutes, utcDate };

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

/** YYYY-MM-DD of an instant in the zone's local time. */
export function localDate(timezone: string, at: number): string {
  return utcDate(at + offsetMinutes(timezone, at) * MINUTE);
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
