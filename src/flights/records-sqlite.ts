// SQLite: the replay read is a statement prepared once, run inside the group transaction.
import type BetterSqlite3 from 'better-sqlite3';
import type { FlightRecordsTable, SqliteDatabase } from '../db/index.js';
import { SELECT_RECORD, upsertRecord, type RecordStore, type StoredRecord } from './records.js';

export class SqliteRecordStore implements RecordStore {
  private readonly statement: BetterSqlite3.Statement<[string, string], StoredRecord>;

  constructor(private readonly db: SqliteDatabase) {
    this.statement = db.sqlite.prepare(`${SELECT_RECORD} WHERE flight_number = ? AND flight_date = ?`);
  }

  find(flightNumber: string, flightDate: string): Promise<StoredRecord | undefined> {
    return this.db.group.run(() => this.statement.get(flightNumber, flightDate));
  }

  save(row: Omit<FlightRecordsTable, 'created_at'>): Promise<void> {
    return upsertRecord(this.db, row);
  }
}
