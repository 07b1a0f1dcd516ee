// The watches a request asks for (docs/watches.md, "Creating watches"): one JSON object, a JSON array
// of them, or a CSV upload, each row read and checked by the batches' parser (src/batches/rows.ts:
// the status endpoint's names and aliases, the strict date, a reference), plus the webhook endpoints
// it sends to: a row's own `endpoints` (JSON) or the request's `endpoints` parameter (any format).
import { MAX_BATCH_ROWS, rowsFromCsv, rowsFromJson, type BatchRow, type RowsResult } from '../batches/index.js';
import type { FlightQuery } from '../flights/index.js';

/** Watches one request may create: as many as a batch's rows. */
export const MAX_WATCHES_PER_REQUEST = MAX_BATCH_ROWS;

/** One input row; `query: null` with `error` for a row with a problem. */
export interface WatchRow {
  position: number;
  reference: string | null;
  query: FlightQuery | null;
  /** Distinct endpoint ids, as given. */
  endpoints: string[];
  error: string | null;
}

export interface WatchInput {
  /** One JSON object: answered as one watch rather than a list. */
  single: boolean;
  rows: WatchRow[];
  /** CSV columns that name nothing a row uses. */
  ignoredColumns: string[];
}

export type InputResult = { ok: true; value: WatchInput } | { ok: false; message: string };

export interface RequestDefaults {
  dateBasis?: 'utc' | 'local';
  /** The request's `endpoints` parameter: for every row that does not name its own. */
  endpoints?: string[];
}

const SHAPE =
  'The body must be one watch (a JSON object with flightNumber, flightDate and endpoints), a JSON array of them, or a CSV upload (Content-Type: text/csv)';

/** The parser's words are a batch's; here the whole is a request. */
const asRequest = (result: RowsResult): RowsResult =>
  result.ok ? result : { ok: false, message: result.message.replace(/\bbatch\b/g, 'request') };

export function watchesFromJson(body: unknown, defaults: RequestDefaults): InputResult {
  const single = typeof body === 'object' && body !== null && !Array.isArray(body);
  if (!single && !Array.isArray(body)) return { ok: false, message: SHAPE };
  const items = single ? [body] : (body as unknown[]);
  // An object holding a list is not a watch: say what the body may be rather than that row 1 lacks a flight.
  if (single && Object.values(body as object).some(Array.isArray) && !('endpoints' in (body as object))) {
    return { ok: false, message: SHAPE };
  }
  const parsed = asRequest(rowsFromJson(items, defaults.dateBasis ? { dateBasis: defaults.dateBasis } : {}));
  if (!parsed.ok) return parsed;
  const rows = parsed.value.rows.map((row, i) => {
    const item = items[i];
    const own =
      typeof item === 'object' && item !== null && !Array.isArray(item)
        ? (item as Record<string, unknown>).endpoints
        : undefined;
    return withEndpoints(row, own === undefined || own === null ? defaults.endpoints : own);
  });
  return { ok: true, value: { single, rows, ignoredColumns: [] } };
}

export function watchesFromCsv(text: string, defaults: RequestDefaults): InputResult {
  const parsed = asRequest(rowsFromCsv(text, defaults.dateBasis ? { dateBasis: defaults.dateBasis } : {}));
  if (!parsed.ok) return parsed;
  const { rows, ignoredColumns } = parsed.value;
  // A column the parser does not know is ignored; this one would be ignored silently where it matters.
  if (ignoredColumns.some((c) => c.toLowerCase().replace(/[\s_.-]+/g, '') === 'endpoints')) {
    return {
      ok: false,
      message:
        'The CSV has an endpoints column: a CSV upload names its endpoints for all rows with the endpoints query parameter (?endpoints=wh_…,wh_…)',
    };
  }
  return {
    ok: true,
    value: { single: false, rows: rows.map((r) => withEndpoints(r, defaults.endpoints)), ignoredColumns },
  };
}

/** The `endpoints` query parameter: ids separated by commas. */
export function endpointsParameter(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
}

function withEndpoints(row: BatchRow, given: unknown): WatchRow {
  const problems = row.error ? [row.error] : [];
  let endpoints: string[] = [];
  if (given === undefined) problems.push('endpoints is required: the ids of the webhook endpoints to send to');
  else if (!Array.isArray(given) || given.some((id) => typeof id !== 'string' || id.trim() === '' || id.length > 100))
    problems.push('endpoints must be an array of webhook endpoint ids (wh_…)');
  else if (given.length === 0) problems.push('endpoints must name at least one webhook endpoint');
  else endpoints = [...new Set((given as string[]).map((id) => id.trim()))];
  const error = problems.length > 0 ? problems.join('; ') : null;
  return { position: row.position, reference: row.reference, query: error ? null : row.query, endpoints, error };
}
