// What a batch keeps of each lookup's answer, and how a row's result reads as JSON and as CSV. The
// summary is taken from the very answer the status endpoint would send for the row's query at that
// moment (the same resolver), so a row and a single lookup agree field for field.
import { stringify } from 'csv-stringify/sync';
import type { ExtraordinaryAssessment } from '../circumstances/index.js';
import { shownArrivalDelay, type FlightStatusData } from '../flights/index.js';

/** A row's times, each UTC and local with its offset, and the airports' zones. */
export interface Times {
  scheduledDeparture: string | null;
  scheduledDepartureLocal: string | null;
  actualDeparture: string | null;
  actualDepartureLocal: string | null;
  scheduledArrival: string | null;
  scheduledArrivalLocal: string | null;
  actualArrival: string | null;
  actualArrivalLocal: string | null;
  departureTimezone: string | null;
  arrivalTimezone: string | null;
}

export const TIME_COLUMNS = [
  'scheduledDeparture',
  'scheduledDepartureLocal',
  'actualDeparture',
  'actualDepartureLocal',
  'scheduledArrival',
  'scheduledArrivalLocal',
  'actualArrival',
  'actualArrivalLocal',
  'departureTimezone',
  'arrivalTimezone',
] as const satisfies readonly (keyof Times)[];

/** The record's times as a row shows them: none without a record. */
function timesOf(data: FlightStatusData): Times | undefined {
  const s = data.selected;
  if (!s) return undefined;
  const local = data.localTimes;
  return {
    scheduledDeparture: s.scheduledDeparture,
    scheduledDepartureLocal: local?.departure.scheduled ?? null,
    actualDeparture: s.actualDeparture,
    actualDepartureLocal: local?.departure.actual ?? null,
    scheduledArrival: s.scheduledArrival,
    scheduledArrivalLocal: local?.arrival.scheduled ?? null,
    actualArrival: s.actualArrival,
    actualArrivalLocal: local?.arrival.actual ?? null,
    departureTimezone: local?.departure.timezone ?? null,
    arrivalTimezone: local?.arrival.timezone ?? null,
  };
}

/** A lookup's answer as the batch keeps it (batch_lookups.result). */
export interface LookupAnswer {
  /** The flight was matched. */
  found: boolean;
  /** on_time, delayed, cancelled or diverted; null when not found. */
  status: string | null;
  /** The record is settled: enough timings, no contradiction. */
  complete: boolean | null;
  delayMinutes: number | null;
  /** The verdict's kind: early, on_time, minor_delay, significant_delay, long_delay, cancelled, diverted. */
  verdict: string | null;
  origin: string | null;
  destination: string | null;
  scheduledDeparture: string | null;
  /** The record's times, UTC and at the airports' clocks (data.localTimes); absent on answers kept before they were. */
  times?: Times;
  eu261: { applies: boolean; amountEur: number | null } | null;
  uk261: { applies: boolean; amountGbp: number | null } | null;
  /**
   * Circumstances' assessment (likely_extraordinary, …) where the flight has circumstances. With the
   * amounts it is all a row's `amountAtRisk` needs (resultRow), so rows stored before that column
   * existed read the same as new ones.
   */
  circumstances: string | null;
  /** A stored settled record answered (no provider asked). */
  cached: boolean;
  /** Provider requests made for this answer (the batch's meter; a day of departures read for others included). */
  providerCalls: number;
  /** Why there is no answer (the providers could not be asked); null otherwise. */
  error: string | null;
  /** The airline, as the record names it (absent on answers kept before it was). */
  carrier?: { iata: string | null; name: string | null } | null;
  /** Why the flight was not found (the service's rationale, or what each provider answered); absent when found. */
  notFoundReason?: string | null;
}

/** Why an answer has no flight: the service's own rationale where it has one, else what each provider said. */
function notFoundReason(data: FlightStatusData): string {
  if (data.rationale && data.rationale.length > 0) return data.rationale.join(' ');
  const said = data.sources.map((s) => `${s.provider}: ${s.outcome}`).join(', ');
  return `No provider holds this flight on this date${said ? ` (${said})` : ''}.`;
}

export function summarise(data: FlightStatusData): LookupAnswer {
  const selected = data.selected;
  const compensation = data.compensation;
  return {
    found: selected !== null,
    status: selected?.status ?? null,
    complete: selected?.complete ?? null,
    // None for a flight that never reached its destination (empty in the CSV), never 0.
    delayMinutes: shownArrivalDelay(data),
    verdict: data.flightDelay?.statusKind ?? null,
    origin: data.originIata ?? null,
    destination: data.destinationIata ?? null,
    scheduledDeparture: selected?.scheduledDeparture ?? null,
    ...(selected ? { times: timesOf(data) } : {}),
    carrier: selected?.airline ? { iata: selected.airline.iata, name: selected.airline.name } : null,
    notFoundReason: selected ? null : notFoundReason(data),
    eu261: compensation ? { applies: compensation.eu261.applies, amountEur: compensation.eu261.amountEur } : null,
    uk261: compensation ? { applies: compensation.uk261.applies, amountGbp: compensation.uk261.amountGbp } : null,
    circumstances: data.circumstances?.assessment ?? null,
    cached: data.meta.cached,
    providerCalls: 0,
    error: null,
  };
}

export function failed(message: string): LookupAnswer {
  return {
    found: false,
    status: null,
    complete: null,
    delayMinutes: null,
    verdict: null,
    origin: null,
    destination: null,
    scheduledDeparture: null,
    eu261: null,
    uk261: null,
    circumstances: null,
    cached: false,
    providerCalls: 0,
    error: message,
  };
}

/** A row's outcome, for the counts: the flight's status, or what kept it from one. */
export function outcomeOf(answer: LookupAnswer): string {
  if (answer.error !== null) return 'error';
  return answer.status ?? 'not_found';
}

/** One row of the results, as GET /api/v1/batches/{id}/results answers it; the record's times null where not found, or kept before they were. */
export interface ResultRow extends Times {
  row: number;
  reference: string | null;
  /** The row's query as the batch read it; null for a row that could not be read. */
  flightNumber: string | null;
  flightDate: string | null;
  origin: string | null;
  destination: string | null;
  /** pending, done, refused, invalid or canceled. */
  state: string;
  /** on_time, delayed, cancelled, diverted, not_found or error once done; null otherwise. */
  outcome: string | null;
  delayMinutes: number | null;
  verdict: string | null;
  compensationOwed: boolean | null;
  /** The circumstances' assessment (likely_extraordinary, possibly_extraordinary, not_indicated, unknown); null without circumstances. */
  assessment: ExtraordinaryAssessment | null;
  /** Owed, and the assessment lets the airline refuse it (Art. 5(3)); null when nothing is owed or there are no circumstances. */
  amountAtRisk: boolean | null;
  eu261AmountEur: number | null;
  uk261AmountGbp: number | null;
  /** The same value as `assessment`, kept in the column it had before `assessment` was added (docs/boards.md, "The hours kept whole"). */
  circumstances: string | null;
  /** Credits this row took (0 or 1). */
  credits: number;
  error: string | null;
  /** The evidence PDF of the row's flight (GET /api/v1/flights/evidence, one credit), once it was found. */
  evidenceUrl: string | null;
  /** What the row's flightDate is: utc or local (the departure airport's date); null for a row that could not be read. */
  dateBasis: 'utc' | 'local' | null;
  /** The airline's IATA code and name, as the record has them; null when not found (or kept before they were). */
  carrierIata: string | null;
  carrierName: string | null;
  /** Why the flight was not found (outcome not_found); null otherwise. */
  notFoundReason: string | null;
}

/** The columns of the results CSV, in order (docs/batches.md); the times come last, after those older readers know. */
export const CSV_COLUMNS: (keyof ResultRow)[] = [
  'row',
  'reference',
  'flightNumber',
  'flightDate',
  'origin',
  'destination',
  'state',
  'outcome',
  'delayMinutes',
  'verdict',
  'compensationOwed',
  'assessment',
  'amountAtRisk',
  'eu261AmountEur',
  'uk261AmountGbp',
  'circumstances',
  'credits',
  'error',
  'evidenceUrl',
  'dateBasis',
  ...TIME_COLUMNS,
  'carrierIata',
  'carrierName',
  'notFoundReason',
];

/** The byte order mark that tells a spreadsheet the CSV is UTF-8 (Excel reads "Müller" as "MÃ¼ller" without it). */
export const UTF8_BOM = '\uFEFF';

/**
 * Results as CSV (RFC 4180, CRLF, a header row after the UTF-8 byte order mark), fields that need it
 * quoted by csv-stringify; `base` makes the evidence links absolute (a spreadsheet cannot follow a path).
 */
export function resultsCsv(rows: ResultRow[], header: boolean, base: string): string {
  const text = stringify(
    rows.map((r) =>
      CSV_COLUMNS.map((c) =>
        csvValue(c === 'evidenceUrl' && r.evidenceUrl !== null ? `${base}${r.evidenceUrl}` : r[c]),
      ),
    ),
    { header, columns: CSV_COLUMNS, record_delimiter: 'windows' },
  );
  return header ? `${UTF8_BOM}${text}` : text;
}

function csvValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  // A cell a spreadsheet would run as a formula (CWE-1236) is prefixed with a quote.
  return /^[=+\-@\t\r]/.test(text) && !/^-?\d+(\.\d+)?$/.test(text) ? `'${text}` : text;
}
