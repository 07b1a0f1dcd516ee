// What the flight lookup does differently on each database: where settled records are kept for replay.
import { forDialect, type Database } from '../db/index.js';
import { CachedRecordStore, type RecordStore } from './records.js';
import { PostgresRecordStore } from './records-postgres.js';
import { SqliteRecordStore } from './records-sqlite.js';

/** The replay store over this database's dialect, with the in-process cache in front (records.ts). */
export function createRecordStore(db: Database): RecordStore {
  return new CachedRecordStore(
    forDialect<RecordStore>(db, {
      sqlite: (d) => new SqliteRecordStore(d),
      postgres: (d) => new PostgresRecordStore(d),
    }),
  );
}
