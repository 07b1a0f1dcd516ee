// The usual of the seven days before, from the boards the service watches: counted hour by hour by
// the database (`BoardHistory.hourly`), and hours long past kept (`Baselines`): they do not change any
// more, and every lookup at that airport needs them.
import { LRUCache } from 'lru-cache';
import { DAY, fromUtcDays, HOUR } from '../clock.js';
import { ConnectionShare } from '../db/share.js';
import { lruCache } from '../lru.js';
import { BASELINE_DAYS } from './figures.js';
import type { BoardHistory, BoardSighting, HourTally } from './shapes.js';

/** Hours older than this before now no longer change: their flights are long settled. */
export const SETTLED = DAY;
const MAX_KEPT = 500_000;

/**
 * The seven days before, counted hour by hour and kept once settled: per airport (or carrier) and
 * type, only the hours not yet kept are counted again.
 */
export class Baselines {
  /** By airport or carrier and type (`airport|OTP|flight.delayed`), the settled hours counted, by the hour's start. */
  private readonly kept = new Map<string, Map<number, HourTally>>();
  private size = 0;
  /** The seven days' sums of windows whose hours are all kept, by scope and window. */
  private readonly sums = lruCache<string, { count: number; shortNotice: number }[]>(50_000);
  /** Settled windows' sightings and hourly counts, by scope and window; sized by the rows they hold. */
  private readonly windows = new LRUCache<string, (BoardSighting | HourTally)[]>({
    maxSize: 200_000,
    sizeCalculation: (list) => list.length + 1,
  });
  /** Whether an airport's boards were watched in a settled window (`BoardHistory.watchedAt`), by airport and window. */
  private readonly watchedIn = lruCache<string, boolean>(50_000);

  constructor(private readonly boards: BoardHistory) {}

  /**
   * The hours [from, to) summed on each of the seven days before (the day before first). `share`:
   * where the read of the hours not kept waits for a connection (a batch's share of the pool).
   */
  async daily(
    by: 'airport' | 'carrier',
    value: string,
    type: BoardSighting['type'],
    from: number,
    to: number,
    now: number,
    share: ConnectionShare = ConnectionShare.none,
  ): Promise<{ count: number; shortNotice: number }[]> {
    const scope = `${by}|${value}|${type}`;
    const summed = `${scope}|${from}|${to}`;
    const known = this.sums.get(summed);
    if (known) return known;
    let kept = this.kept.get(scope);
    if (!kept) this.kept.set(scope, (kept = new Map()));
    let low = Infinity;
    let high = -Infinity;
    for (let k = 1; k <= BASELINE_DAYS; k++) {
      for (let h = from - k * DAY; h < to - k * DAY; h += HOUR) {
        if (kept.has(h)) continue;
        if (h < low) low = h;
        if (h > high) high = h;
      }
    }
    const counted = new Map<number, HourTally>();
    if (low <= high) {
      for (const tally of await share.run(() => this.boards.hourly(by, value, type, low, high + HOUR)))
        counted.set(tally.hour, tally);
      if (this.size > MAX_KEPT) {
        this.kept.clear();
        this.kept.set(scope, kept);
        kept.clear();
        this.size = 0;
      }
      for (let h = low; h <= high; h += HOUR) {
        if (h + HOUR >= now - SETTLED || kept.has(h)) continue;
        kept.set(h, counted.get(h) ?? { hour: h, count: 0, shortNotice: 0 });
        this.size++;
      }
    }
    const days: { count: number; shortNotice: number }[] = [];
    for (let k = 1; k <= BASELINE_DAYS; k++) {
      let count = 0;
      let shortNotice = 0;
      for (let h = from - k * DAY; h < to - k * DAY; h += HOUR) {
        const tally = kept.get(h) ?? counted.get(h);
        if (!tally) continue;
        count += tally.count;
        shortNotice += tally.shortNotice;
      }
      days.push({ count, shortNotice });
    }
    if (to - DAY < now - SETTLED) this.sums.set(summed, days);
    return days;
  }

  /**
   * What the boards showed of a window (an airport's or a carrier's day, an airport's hours), kept
   * once every flight in it is long past: the lookups of one airport's day all read the same.
   */
  async settled<T extends BoardSighting | HourTally>(
    key: string,
    to: number,
    now: number,
    read: () => Promise<T[]>,
  ): Promise<T[]> {
    if (to >= now - SETTLED) return read();
    const kept = this.windows.get(key);
    if (kept) return kept as T[];
    const value = await read();
    this.windows.set(key, value);
    return value;
  }

  /**
   * An airport's sightings of flights due in [from, to), from its UTC days: a settled day read whole
   * once (the day around each lookup's hour is its own window, and every lookup there reads the same days).
   */
  ofDays(
    airport: string,
    from: number,
    to: number,
    now: number,
    read: (from: number, to: number) => Promise<BoardSighting[]>,
  ): Promise<BoardSighting[]> {
    return fromUtcDays(
      from,
      to,
      now - SETTLED,
      (day) => this.settled(`sighted|${airport}|${day}`, day + DAY, now, () => read(day, day + DAY)),
      read,
    );
  }

  /** Whether the airport's boards were watched in [from, to) (`BoardHistory.watchedAt`), kept once the window is settled. */
  async watched(airport: string, from: number, to: number, now: number, share: ConnectionShare): Promise<boolean> {
    const key = `${airport}|${from}|${to}`;
    const kept = this.watchedIn.get(key);
    if (kept !== undefined) return kept;
    const watched = await share.run(() => this.boards.watchedAt(airport, from, to));
    if (to < now - SETTLED) this.watchedIn.set(key, watched);
    return watched;
  }
}

/**
 * The mean of the days the boards were watched (`watched`, per day: evidence.ts and watched.ts decide): an airport
 * watched for three days has a usual of three days, not seven with four empty ones.
 */
export function meanOverWatched(
  window: { count: number; shortNotice: number }[],
  watched: boolean[],
): { count: number; shortNotice: number } {
  const days = window.filter((_, k) => watched[k]);
  if (days.length === 0) return { count: 0, shortNotice: 0 };
  return {
    count: days.reduce((n, d) => n + d.count, 0) / days.length,
    shortNotice: days.reduce((n, d) => n + d.shortNotice, 0) / days.length,
  };
}
