// PostgreSQL: the replay read is a named prepared statement.
import type { FlightRecordsTable, PostgresDatabase } from '../db/index.js';
import { SELECT_RECORD, upsertRecord, type RecordStore, type StoredRecord } from './records.js';

export class PostgresRecordStore implements RecordStore {
  constructor(private readonly db: PostgresDatabase) {}

  async find(flightNumber: string, flightDate: string): Promise<StoredRecord | undefined> {
    const result = await this.db.pool.query<StoredRecord>({
      name: 'flight_records_find',
      text: `${SELECT_RECORD} WHERE flight_number = $1 AND flight_date = $2`,
      values: [flightNumber, flightDate],
    });
    const row = result.rows[0];
    // bigint columns come back as strings from pg.
    return row && { ...row, departed_at: Number(row.departed_at), updated_at: Number(row.updated_at) };
  }

  save(row: Omit<FlightRecordsTable, 'created_at'>): Promise<void> {
    return upsertRecord(this.db, row);
  }
}
