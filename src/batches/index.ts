// Batches of flights checked at once (issue 29): so far the rows a batch is made of, from a JSON array
// or a CSV upload, validated as the status endpoint validates its query.
export { MAX_BATCH_ROWS, MAX_REFERENCE_LENGTH, rowsFromCsv, rowsFromJson, type BatchRow, type ParsedRows, type RowsResult } from './rows.js';
