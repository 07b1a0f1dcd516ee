// The batch's plan (docs/batches.md, "Provider calls"): how its lookups are answered for the fewest
// provider requests, decided from the provider's cost table (CallCosts, docs/providers.md "What a call
// costs"). In order:
// 1. rows asking the same question share one lookup (service.ts: lookupKey);
// 2. a settled disruption already stored is replayed by the resolver (0 requests);
// 3. a flight the board poller saw final at both ends is answered from its observations (0 requests
//    for the flight; work.ts hands them to the resolver, src/boards/observed.ts decides);
// 4. lookups that depart the same airport on the same day are answered from that airport's
//    departures of the day, read whole once, when that costs less than asking for each flight: where
//    a provider reads an airport's past day (src/boards/days.ts) and the day is over, its both boards
//    are read and kept, and step 3 answers the lookups from them (the circumstances of its disrupted
//    flights, later batches and other processes read the same rows); otherwise its departures are
//    read for this process's lookups (DepartureDayCache);
// 5. every other lookup asks for its flight, as the status endpoint does.
// The plan also says how many requests it expects (replays and observations are not known before
// they are asked).
import { LRUCache } from 'lru-cache';
import type { CallCosts, DepartureDays } from '../providers/index.js';

/** An airport's past day read whole and kept (src/boards/days.ts AirportDays): `read` once kept. */
export interface AirportDayReads {
  read(
    airport: string,
    date: string,
    call: { signal: AbortSignal; meter?: { requests: number }; background?: boolean },
  ): Promise<string>;
}

export interface Plannable {
  origin: string | null;
  flightDate: string;
}

export interface Plan {
  /**
   * Per lookup, in order: the day it is answered from, or null: `OTP|2026-02-20` (the day's departures),
   * `OTP|2026-02-20|both` (both boards of the airport's day, read and kept).
   */
  days: (string | null)[];
  /** Requests the plan expects, before replays. */
  requests: number;
}

export const dayKey = (airport: string, date: string): string => `${airport}|${date}`;
const BOTH = '|both';

/** A planned day's parts: its airport and local date, and whether both its boards are read and kept. */
export function plannedDay(day: string): { key: string; airport: string; date: string; both: boolean } {
  const both = day.endsWith(BOTH);
  const key = both ? day.slice(0, -BOTH.length) : day;
  const [airport, date] = key.split('|') as [string, string];
  return { key, airport, date, both };
}

/**
 * Reads a day whole where its lookups cost more one by one: n lookups of one airport and day go to
 * the board when n × lookup > departuresDay (with AeroDataBox's table, 3 or more). Where the provider
 * reads both boards of a past day (`airportDay`) and the day is over (`over`: dates up to it), those
 * are read and kept instead once n × lookup > airportDay (5 or more): the arrivals board comes with
 * them, which the circumstances of any disrupted flight of that airport-day read anyway, and every
 * later batch and process reads the kept rows.
 */
export function plan(lookups: Plannable[], costs: CallCosts | null, over = ''): Plan {
  const perDay = new Map<string, number>();
  if (costs) {
    for (const l of lookups)
      if (l.origin) perDay.set(dayKey(l.origin, l.flightDate), (perDay.get(dayKey(l.origin, l.flightDate)) ?? 0) + 1);
  }
  const chosen = new Map<string, string>();
  let requests = 0;
  for (const [key, n] of perDay) {
    if (!costs) continue;
    if (
      costs.airportDay !== undefined &&
      key.slice(key.indexOf('|') + 1) <= over &&
      n * costs.lookup > costs.airportDay
    ) {
      chosen.set(key, key + BOTH);
      requests += costs.airportDay;
    } else if (n * costs.lookup > costs.departuresDay) {
      chosen.set(key, key);
      requests += costs.departuresDay;
    }
  }
  const days = lookups.map((l) => (l.origin ? (chosen.get(dayKey(l.origin, l.flightDate)) ?? null) : null));
  const singles = days.filter((d) => d === null).length;
  return { days, requests: requests + singles * (costs?.lookup ?? 1) };
}

/** Days of departures read in this process, shared by every batch's lookups (a past day does not change). */
export class DepartureDayCache {
  private readonly days = new LRUCache<string, Promise<unknown>>({ max: 500, ttl: 30 * 60_000 });

  /** The DepartureDays of one lookup: the one day its plan reads, if any. */
  for(day: string | null): DepartureDays | undefined {
    if (day === null) return undefined;
    const planned = plannedDay(day).key;
    return {
      planned: (airport, date) => dayKey(airport, date) === planned,
      read: <T>(key: string, fetch: () => Promise<T>): Promise<T> => {
        let read = this.days.get(key) as Promise<T> | undefined;
        if (!read) {
          read = fetch();
          this.days.set(key, read);
          // A failed read is not kept: the next lookup of the day tries again.
          read.catch(() => this.days.get(key) === read && this.days.delete(key));
        }
        return read;
      },
    };
  }
}
