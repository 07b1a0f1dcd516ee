import { forDialect, type Database } from '../db/index.js';
import { CachedRecordStore, type RecordStore } from './records.js';
import { PostgresRecordStore } from './records-postgres.js';
import { SqliteRecordStore } from './records-sqlite.js';

export { flightRoutes } from './routes.js';
export { isDesignator, parseFlightQuery, parseFlightDate, QUERY_PARAMETERS, querySchema, type FlightQuery } from './query.js';
export type { FlightResolver, Resolution, ResolveContext } from './resolver.js';
export { FlightStatusResponse, type FlightStatusData } from './schema.js';
export { FlightLookupService, SETTLE_WINDOW_MS, type SourceEntry } from './lookup.js';
export { LocalDateResolver, localIso, localTimesOf, shownLocal } from './local.js';
export type { RecordStore } from './records.js';
export { ProofRenderer, ProofUnavailableError, PROOF_WIDTH, PROOF_HEIGHT, type Proof } from './proof.js';
export { classify, shownArrivalDelay } from './verdict.js';
export { formatDelay } from './rationale.js';
export { DELAY_THRESHOLD_MINUTES } from './shapes.js';

/** The replay store over this database's dialect, with the in-process cache in front (records.ts). */
export function createRecordStore(db: Database): RecordStore {
  return new CachedRecordStore(forDialect<RecordStore>(db, { sqlite: (d) => new SqliteRecordStore(d), postgres: (d) => new PostgresRecordStore(d) }));
}
export { PNG_SIGNATURE, pngChunk } from './png.js';
