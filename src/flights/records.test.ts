// The replay store's in-process cache: hits are kept, misses are not, and a write replaces the entry;
// and a request reads the store once, whether its route asked for a replay first or not.
import { describe, expect, it } from 'vitest';
import type { FlightRecordsTable } from '../db/index.js';
import { loadReferenceAirports } from '../airports/index.js';
import { ManualClock } from '../clock.js';
import { createLogger } from '../logger.js';
import { FlightLookupService } from './lookup.js';
import { ProofRenderer } from './proof.js';
import { parseFlightQuery } from './query.js';
import { CachedRecordStore, type RecordStore, type StoredRecord } from './records.js';

function memoryStore() {
  const rows = new Map<string, StoredRecord>();
  let reads = 0;
  const store: RecordStore = {
    async find(number, date) {
      reads++;
      return rows.get(`${number} ${date}`);
    },
    async save(row: Omit<FlightRecordsTable, 'created_at'>) {
      rows.set(`${row.flight_number} ${row.flight_date}`, row);
    },
  };
  return { store, rows, reads: () => reads };
}

const row = (body: string): Omit<FlightRecordsTable, 'created_at'> => ({
  flight_number: 'W63101',
  flight_date: '2026-02-18',
  origin_iata: 'OTP',
  destination_iata: 'LTN',
  unfiltered: 1,
  status: 'delayed',
  source: 'sim',
  departed_at: 1,
  body,
  updated_at: 1,
});

describe('CachedRecordStore', () => {
  it('reads a stored record once, never caches a miss, and serves its own writes at once', async () => {
    const inner = memoryStore();
    const cached = new CachedRecordStore(inner.store);
    expect(await cached.find('W63101', '2026-02-18')).toBeUndefined();
    // Stored meanwhile by another process: seen at once, since misses are not cached.
    inner.rows.set('W63101 2026-02-18', row('{"v":1}'));
    expect((await cached.find('W63101', '2026-02-18'))?.body).toBe('{"v":1}');
    expect((await cached.find('W63101', '2026-02-18'))?.body).toBe('{"v":1}');
    expect(inner.reads()).toBe(2);
    await cached.save(row('{"v":2}')); // a refresh in this process
    expect((await cached.find('W63101', '2026-02-18'))?.body).toBe('{"v":2}');
  });
});

describe('a lookup that is not a replay', () => {
  it("reads the store once: the route's replay found nothing, and its resolve does not ask again", async () => {
    const inner = memoryStore();
    const airports = loadReferenceAirports();
    const lookup = new FlightLookupService({
      providers: [],
      clock: new ManualClock('2026-02-20T00:00:00Z'),
      records: inner.store,
      logger: createLogger('silent'),
      providerTimeoutMs: 1000,
      proof: new ProofRenderer(airports),
      airports,
    });
    const parsed = parseFlightQuery({ flightNumber: 'W63101', flightDate: '2026-02-18' });
    if (!parsed.ok) throw new Error(parsed.message);
    const context = { signal: new AbortController().signal, requestId: 'req_1' };
    expect(await lookup.replay(parsed.query, context)).toBeNull();
    await lookup.resolve(parsed.query, context);
    expect(inner.reads()).toBe(1);
    // Another request (another context) reads it again: a miss is never kept beyond its request.
    await lookup.resolve(parsed.query, { ...context, requestId: 'req_2' });
    expect(inner.reads()).toBe(2);
  });
});
