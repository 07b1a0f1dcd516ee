// The rows of a batch (docs/batches.md, "Submitting"), from a JSON array or a CSV upload, each validated exactly as the
// status endpoint validates its query (src/flights/query.ts: names, aliases, trimming, the strict date)
// plus an optional `reference` the customer uses to find the row again. CSV as people export it: a
// byte-order mark, CRLF, quoted fields holding commas and newlines, header names in any case and spacing ("Flight Number"), extra
// columns (ignored, and listed), and the date formats spreadsheets write (refused with a message that
// says how to export them). csv-parse reads the CSV: the format's corners are a solved problem.
import { parse } from 'csv-parse/sync';
import { parseFlightQuery, QUERY_PARAMETERS, type FlightQuery } from '../flights/index.js';
import { nameProblem } from '../names.js';

/** Rows one batch may hold. */
export const MAX_BATCH_ROWS = 10_000;
/** A reference longer than this is not a claim number but a mistake. */
export const MAX_REFERENCE_LENGTH = 200;

/** One input row, in input order (`position` from 1). A row with a problem has `query: null` and `error`. */
export interface BatchRow {
  position: number;
  reference: string | null;
  query: FlightQuery | null;
  error: string | null;
}

export interface ParsedRows {
  rows: BatchRow[];
  /** Columns of the CSV header that name nothing a row uses, as written. */
  ignoredColumns: string[];
}

export type RowsResult = { ok: true; value: ParsedRows } | { ok: false; message: string };

/** The query's parameters a batch row takes: one row is one flight, so neither refresh nor screenshot. */
const ROW_PARAMETERS = QUERY_PARAMETERS.filter((p) => p.name !== 'refresh' && p.name !== 'screenshot');
/** The names a JSON row's fields may have, exactly as the status endpoint's query spells them. */
const ROW_FIELDS = new Set([...ROW_PARAMETERS.flatMap((p) => [p.name, ...p.aliases]), 'reference']);
/** A header name as matched: case, spaces, underscores, dashes and dots do not count ("Flight Number", "flight_number"). */
const columnKey = (name: string): string => name.toLowerCase().replace(/[\s_.-]+/g, '');
/** Header name, as matched → the canonical name it stands for. */
const COLUMN_NAMES = new Map<string, string>([
  ...ROW_PARAMETERS.flatMap((p) => [p.name, ...p.aliases].map((name) => [columnKey(name), p.name] as [string, string])),
  ['reference', 'reference'],
]);

/** What an upload says for all its rows: `dateBasis` for rows that do not give their own. */
export interface RowDefaults {
  dateBasis?: 'utc' | 'local';
}

/** A JSON batch: an array of objects with the query's names (or aliases) and an optional `reference`. */
export function rowsFromJson(body: unknown, defaults: RowDefaults = {}): RowsResult {
  if (!Array.isArray(body))
    return {
      ok: false,
      message: 'The batch must be a JSON array of rows (or a CSV upload with Content-Type: text/csv)',
    };
  const size = checkSize(body.length);
  if (size) return size;
  const rows = body.map((item, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      return {
        position: index + 1,
        reference: null,
        query: null,
        error: 'row must be an object with flightNumber and flightDate',
      };
    }
    const fields: Record<string, string> = {};
    const problems: string[] = [];
    for (const [key, value] of Object.entries(item as Record<string, unknown>)) {
      // As in a CSV, what a row does not use (refresh, screenshot, the customer's own fields) is ignored.
      if (value === null || value === undefined || !ROW_FIELDS.has(key)) continue;
      if (typeof value !== 'string' && typeof value !== 'number') problems.push(`${key} must be a string`);
      else fields[key] = String(value);
    }
    return row(index + 1, fields, problems, defaults);
  });
  return { ok: true, value: { rows, ignoredColumns: [] } };
}

/** A CSV batch: a header row naming the columns, then one row per flight. */
export function rowsFromCsv(text: string, defaults: RowDefaults = {}): RowsResult {
  let records: string[][];
  try {
    records = parse(text, {
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      trim: false,
      max_record_size: 64 * 1024,
    });
  } catch (error) {
    return { ok: false, message: `The CSV could not be read: ${csvProblem(error)}` };
  }
  const [header, ...body] = records;
  if (!header || header.every((cell) => cell.trim() === ''))
    return {
      ok: false,
      message:
        'The CSV is empty: it needs a header row (flightNumber,flightDate[,dateBasis][,origin][,destination][,reference]) and one row per flight',
    };
  const columns = header.map((cell) => COLUMN_NAMES.get(columnKey(cell)) ?? null);
  const missing = ['flightNumber', 'flightDate'].filter((name) => !columns.includes(name));
  if (missing.length > 0) {
    return {
      ok: false,
      message: `The CSV header must name ${missing.join(' and ')} (found: ${header.map((h) => JSON.stringify(h.trim().slice(0, 40))).join(', ')})`,
    };
  }
  const twice = [...new Set(columns.filter((name, i) => name !== null && columns.indexOf(name) !== i))];
  if (twice.length > 0)
    return { ok: false, message: `The CSV header names ${twice.join(', ')} more than once (directly or by an alias)` };
  const size = checkSize(body.length);
  if (size) return size;
  const ignoredColumns = header.filter((_, i) => columns[i] === null).map((cell) => cell.trim());
  const rows = body.map((cells, index) => {
    const fields: Record<string, string> = {};
    columns.forEach((name, i) => {
      const cell = cells[i];
      if (name !== null && cell !== undefined && cell.trim() !== '') fields[name] = cell;
    });
    return row(index + 1, fields, [], defaults);
  });
  return { ok: true, value: { rows, ignoredColumns } };
}

function checkSize(count: number): RowsResult | null {
  if (count === 0) return { ok: false, message: 'The batch has no rows' };
  if (count > MAX_BATCH_ROWS)
    return {
      ok: false,
      message: `The batch has ${count.toLocaleString('en')} rows; at most ${MAX_BATCH_ROWS.toLocaleString('en')} are accepted in one batch`,
    };
  return null;
}

function row(position: number, given: Record<string, string>, problems: string[], defaults: RowDefaults): BatchRow {
  const fields =
    defaults.dateBasis && given.dateBasis === undefined ? { ...given, dateBasis: defaults.dateBasis } : given;
  const reference = fields.reference?.trim() || null;
  if (reference && reference.length > MAX_REFERENCE_LENGTH)
    problems.push(`reference must be at most ${MAX_REFERENCE_LENGTH} characters`);
  // Shown back on pages, in the results CSV and the CLI like a name; and PostgreSQL cannot store a NUL.
  const unreadable = reference ? nameProblem('reference', reference) : null;
  if (unreadable) problems.push(unreadable);
  const date = fields.flightDate ?? fields.date;
  const spreadsheet = date === undefined ? null : spreadsheetDate(date.trim());
  if (spreadsheet) problems.push(spreadsheet);
  const { reference: _, ...query } = fields;
  const parsed = parseFlightQuery(spreadsheet ? { ...query, flightDate: undefined, date: undefined } : query);
  if (!parsed.ok) {
    // The date's own problem is already said in the spreadsheet's words.
    const said = parsed.message
      .replace(/^Invalid query: /, '')
      .split('; ')
      .filter((p) => !(spreadsheet && p.startsWith('flightDate is required')));
    problems.push(...said);
  }
  if (problems.length > 0 || !parsed.ok) return { position, reference, query: null, error: problems.join('; ') };
  return { position, reference, query: parsed.query, error: null };
}

/**
 * The date formats a spreadsheet writes when a date column is saved as it is shown: day or month
 * first with slashes, dots or dashes, two-digit years, or Excel's day number. Which of 03/04 is March
 * cannot be known, so none is guessed.
 */
function spreadsheetDate(value: string): string | null {
  const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (/^\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}$/.test(value)) {
    return `flightDate ${shown} is a spreadsheet's date format, whose day and month order cannot be known: write it as YYYY-MM-DD (in Excel, format the column as yyyy-mm-dd before saving as CSV)`;
  }
  if (/^\d{5}(\.\d+)?$/.test(value)) {
    return `flightDate ${shown} looks like a spreadsheet's day number: write it as YYYY-MM-DD (in Excel, format the column as yyyy-mm-dd before saving as CSV)`;
  }
  return null;
}

function csvProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // csv-parse names the line; the rest of its message is about its own options.
  return message.replace(/^Invalid Record Length: /, '').slice(0, 300);
}
