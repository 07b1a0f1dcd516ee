// What the batches' store (store.ts, store-lookups.ts) takes and gives: a batch to insert, claimed lookups, their rows and answers.

export interface NewBatch {
  id: string;
  accountId: string;
  callerId: string;
  callerName: string;
  format: 'json' | 'csv';
  ignoredColumns: string[];
  createdAt: number;
  /** The distinct questions, in order of their first row (seq from 1), with their plans. */
  lookups: { query: string; plan: string | null }[];
  /** Provider requests the plan expects. */
  callsPlanned: number;
  rows: { position: number; reference: string | null; lookupSeq: number | null; error: string | null }[];
}

export interface Claimed {
  seq: number;
  query: string;
  plan: string | null;
  attempts: number;
  leaseUntil: number;
}

export interface OpenRow {
  position: number;
  lookupSeq: number;
  usageId: number | null;
}

/** A lookup's answer and its rows' charges, written together. */
export interface LookupWrite {
  lookup: Claimed;
  result: string;
  outcome: string;
  calls: number;
  rows: { position: number; usageId: number | null; state: 'done' | 'refused'; error: string | null }[];
  at: number;
}

export interface CountRow {
  state: string;
  outcome: string | null;
  rows: number;
  credits: number;
}

export interface ResultRecord {
  position: number;
  reference: string | null;
  state: string;
  outcome: string | null;
  usage_id: number | null;
  error: string | null;
  query: string | null;
  result: string | null;
}

/** Rows per INSERT statement when a batch is stored (9 columns each: well under SQLite's variable limit). */
export const INSERT_CHUNK = 500;
