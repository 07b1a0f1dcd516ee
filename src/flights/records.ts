// The replay store (docs/flight-lookup.md, "Replay"): settled disruptions, unique on flight number and date. The read runs
// on every lookup, so it is a statement prepared once (SQLite, inside the group transaction) or a
// named statement (PostgreSQL); the rare write is one upsert through Kysely. Stored records are also
// kept in a small in-process LRU: a replay then reads no database at all (the read was the largest
// single cost of a replay: 8% of its CPU). Another process's refresh of the same flight reaches this
// process's cache within RECORD_CACHE_TTL_MS; this process's own writes replace its entry at once.
// The dialects' reads: records-sqlite.ts, records-postgres.ts; the factory: flights/index.ts.
import { LRUCache } from 'lru-cache';
import type { ConnectionShare, Database, FlightRecordsTable } from '../db/index.js';
import type { FlightQuery } from './query.js';

export type StoredRecord = Pick<
  FlightRecordsTable,
  'origin_iata' | 'destination_iata' | 'unfiltered' | 'status' | 'source' | 'departed_at' | 'body' | 'updated_at'
>;

export interface RecordStore {
  /** `share`: where the database read waits for a connection (a batch's share of the pool); absent, the pool itself. */
  find(flightNumber: string, flightDate: string, share?: ConnectionShare): Promise<StoredRecord | undefined>;
  /** Inserts, or overwrites the row of the same flight number and date in place. */
  save(row: Omit<FlightRecordsTable, 'created_at'>): Promise<void>;
}

/** The read's columns; each dialect's store adds its WHERE. */
export const SELECT_RECORD =
  'SELECT origin_iata, destination_iata, unfiltered, status, source, departed_at, body, updated_at FROM flight_records';

/** The rare write, the same on both dialects: one upsert through Kysely. */
export async function upsertRecord(db: Database, row: Omit<FlightRecordsTable, 'created_at'>): Promise<void> {
  await db.kysely
    .insertInto('flight_records')
    .values({ ...row, created_at: row.updated_at })
    .onConflict((conflict) =>
      conflict.columns(['flight_number', 'flight_date']).doUpdateSet({
        origin_iata: row.origin_iata,
        destination_iata: row.destination_iata,
        unfiltered: row.unfiltered,
        status: row.status,
        source: row.source,
        departed_at: row.departed_at,
        body: row.body,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

/** Records kept in memory per process, and how long one may lag a write by another process. */
export const RECORD_CACHE_SIZE = 5000;
export const RECORD_CACHE_TTL_MS = 60_000;

/**
 * Stored records in front of the database. Only hits are cached: a flight not stored yet is looked
 * up in the database every time, so a record another process stores is replayed at once.
 */
export class CachedRecordStore implements RecordStore {
  private readonly cache = new LRUCache<string, StoredRecord>({ max: RECORD_CACHE_SIZE, ttl: RECORD_CACHE_TTL_MS });

  constructor(private readonly store: RecordStore) {}

  async find(flightNumber: string, flightDate: string, share?: ConnectionShare): Promise<StoredRecord | undefined> {
    const key = `${flightNumber} ${flightDate}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    // A hit reads no database, so it never waits in the share: only the read does.
    const row = await (share
      ? share.run(() => this.store.find(flightNumber, flightDate))
      : this.store.find(flightNumber, flightDate));
    if (row) this.cache.set(key, row);
    return row;
  }

  async save(row: Omit<FlightRecordsTable, 'created_at'>): Promise<void> {
    const key = `${row.flight_number} ${row.flight_date}`;
    this.cache.delete(key);
    await this.store.save(row);
    this.cache.delete(key); // a find that raced the write may have cached the old row
  }
}

/**
 * A stored record answers only lookups whose origin/destination filter it matches; a lookup without
 * a filter only a record stored by one (another leg of the number may have been stored by a filtered
 * lookup, and an unfiltered lookup chooses the first leg of the day).
 */
export function matchesFilter(
  stored: Pick<StoredRecord, 'origin_iata' | 'destination_iata' | 'unfiltered'>,
  query: FlightQuery,
): boolean {
  if (!query.origin && !query.destination) return stored.unfiltered === 1;
  return (
    (!query.origin || stored.origin_iata === query.origin) &&
    (!query.destination || stored.destination_iata === query.destination)
  );
}
