// The batch's plan (docs/batches.md, "Provider calls"): how its lookups are answered for the fewest
// provider requests, decided from the provider's cost table (CallCosts, docs/providers.md "What a call
// costs"). In order:
// 1. rows asking the same question share one lookup (service.ts: lookupKey);
// 2. a settled disruption already stored is replayed by the resolver (0 requests);
// 3. a flight the board poller saw final at both ends is answered from its observations (0 requests
//    for the flight; work.ts hands them to the resolver, src/boards/observed.ts decides);
// 4. lookups that depart the same airport on the same day are answered from that airport's
//    departures of the day, read whole once, when that costs less than asking for each flight;
// 5. every other lookup asks for its flight, as the status endpoint does.
// The plan also says how many requests it expects (replays and observations are not known before
// they are asked).
import { LRUCache } from 'lru-cache';
import type { CallCosts, DepartureDays } from '../providers/index.js';

export interface Plannable {
  origin: string | null;
  flightDate: string;
}

export interface Plan {
  /** Per lookup, in order: the day of departures it is answered from (`OTP|2026-02-20`), or null. */
  days: (string | null)[];
  /** Requests the plan expects, before replays. */
  requests: number;
}

export const dayKey = (airport: string, date: string): string => `${airport}|${date}`;

/**
 * Reads a day of departures whole where its lookups cost more one by one: n lookups of one airport
 * and day go to the board when n × lookup > departuresDay (with AeroDataBox's table, 3 or more).
 */
export function plan(lookups: Plannable[], costs: CallCosts | null): Plan {
  const perDay = new Map<string, number>();
  if (costs) {
    for (const l of lookups) if (l.origin) perDay.set(dayKey(l.origin, l.flightDate), (perDay.get(dayKey(l.origin, l.flightDate)) ?? 0) + 1);
  }
  const boards = new Set([...perDay].filter(([, n]) => costs && n * costs.lookup > costs.departuresDay).map(([key]) => key));
  const days = lookups.map((l) => (l.origin && boards.has(dayKey(l.origin, l.flightDate)) ? dayKey(l.origin, l.flightDate) : null));
  const singles = days.filter((d) => d === null).length;
  return { days, requests: costs ? boards.size * costs.departuresDay + singles * costs.lookup : singles };
}

/** Days of departures read in this process, shared by every batch's lookups (a past day does not change). */
export class DepartureDayCache {
  private readonly days = new LRUCache<string, Promise<unknown>>({ max: 500, ttl: 30 * 60_000 });

  /** The DepartureDays of one lookup: the one day its plan reads, if any. */
  for(day: string | null): DepartureDays | undefined {
    if (day === null) return undefined;
    return {
      planned: (airport, date) => dayKey(airport, date) === day,
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
