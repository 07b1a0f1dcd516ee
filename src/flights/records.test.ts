// The replay store's in-process cache: hits are kept, misses are not, and a write replaces the entry.
import { describe, expect, it } from 'vitest';
import type { FlightRecordsTable } from '../db/index.js';
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
  flight_number: 'W63101', flight_date: '2026-02-18', origin_iata: 'OTP', destination_iata: 'LTN', unfiltered: 1,
  status: 'delayed', source: 'sim', departed_at: 1, body, updated_at: 1,
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
