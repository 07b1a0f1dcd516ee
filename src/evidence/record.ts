// The record an evidence PDF renders, in its canonical form: what is signed, hashed and embedded.
//
// It is the lookup's `data` (FlightStatusData) without what says how this one answer was served
// rather than what the flight did: the resolve's timings (meta.durationMs, startedAt, finishedAt, and
// each provider call's durationMs), whether it was a replay or was stored by this call (meta.cached,
// meta.persisted), and the proof image (rendered anew each time, with its production time). So a
// settled flight gives the same record, and the same SHA-256, whether it is resolved live or replayed,
// today or next year.
//
// Canonical JSON: object keys sorted by code unit, no white space, strings and numbers as
// JSON.stringify writes them (which RFC 8785, JCS, also prescribes for the values a record holds:
// strings, integers, booleans and null), members whose value is undefined left out.
import { createHash } from 'node:crypto';
import type { FlightStatusData } from '../flights/index.js';

/** The parts of `data` that describe the answer rather than the flight. */
const VOLATILE_META = ['durationMs', 'startedAt', 'finishedAt', 'cached', 'persisted'] as const;

export interface EvidenceRecord {
  /** The canonical JSON, UTF-8. */
  bytes: Buffer;
  /** SHA-256 of `bytes`, lower-case hex. */
  sha256: string;
  /** The record as data (what the PDF draws). */
  data: FlightStatusData;
}

export function evidenceRecord(data: FlightStatusData): EvidenceRecord {
  const { proof: _proof, proofError: _proofError, meta, sources, ...rest } = data;
  const kept: Record<string, unknown> = { ...meta };
  for (const name of VOLATILE_META) delete kept[name];
  const record = {
    ...rest,
    meta: kept as unknown as FlightStatusData['meta'],
    sources: sources.map(({ durationMs: _durationMs, ...source }) => source) as FlightStatusData['sources'],
  };
  const bytes = Buffer.from(canonicalJson(record), 'utf8');
  return { bytes, sha256: createHash('sha256').update(bytes).digest('hex'), data: record };
}

/** JSON with sorted keys and no white space (see the top of this file). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
