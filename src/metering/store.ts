// Storage for credits and the usage log. Both dialects take credits with one guarded statement per
// account window: an upsert whose UPDATE grants min(requested, what is left) computed from the row
// as locked, so no read-then-write race exists in any number of processes. `last_grant` carries the
// number granted back through RETURNING (RETURNING sees new values only).
//
// A credit and its usage row are one write: the row is inserted in the same transaction that takes
// the credit (saying PENDING_STATUS until the answer is known), so a failed insert takes no credit
// and no credit exists without its row. Before the answer leaves, the row is settled to the status
// actually sent; if that write fails, the charge is voided (row and credit together) where possible.

import { randomBytes } from 'node:crypto';

/** One request's credit, under the account's policy for the window. */
export interface CreditAsk {
  accountId: string;
  windowStart: number;
  /** Allowance of the window; null = unlimited. */
  included: number | null;
  overage: boolean;
  /** Recorded on the usage row: the catalogue plan that prices this request if it is overage. */
  planId: string | null;
}

/** `used` is the window's count after this request (granted) or as found (refused). */
export interface CreditOutcome {
  granted: boolean;
  used: number;
  /** The usage row written with the credit; set when granted. */
  usageId?: number;
}

/**
 * The status a charged request's usage row holds until its answer is settled: the 503 the client
 * gets when the settlement cannot be written, and what a row says when the process stopped before
 * answering (no answer left; see docs/metering.md).
 */
export const PENDING_STATUS = 503;

/** A credit taken and the usage row written with it: what settling or voiding needs. */
export interface Charge {
  usageId: number;
  accountId: string;
  windowStart: number;
}

/** The answer a charged request actually got, for its usage row. */
export interface UsageSettlement {
  usageId: number;
  status: number;
  durationMs: number;
}

export interface UsageRow {
  at: number;
  accountId: string;
  keyId: string;
  endpoint: string;
  status: number;
  durationMs: number;
  query: string;
}

export interface MeteringStore {
  /**
   * Takes one credit and writes `usage` with it in one transaction, or refuses and writes nothing;
   * resolves after the commit that holds them. A failure to write either takes nothing.
   */
  takeCredit(ask: CreditAsk, usage: UsageRow): Promise<CreditOutcome>;
  /** Records the answer in a charged request's usage row; resolves after the commit that holds it. */
  settleUsage(settlement: UsageSettlement): Promise<void>;
  /** Deletes a charged request's usage row and gives its credit back, together. */
  voidCharge(charge: Charge): Promise<void>;
  readUsed(accountId: string, windowStart: number): Promise<number>;
  /** Credits ever taken by the account: its lifetime count of metered requests. */
  lifetimeUsed(accountId: string): Promise<number>;
  /** Resolves once nothing is queued or committing. */
  idle(): Promise<void>;
  /**
   * A write of a metered request's kind that leaves nothing behind: a usage row larger than any real
   * one (PROBE_QUERY), written and taken out again. Throws the database's reason when it cannot be
   * written (a full disk: SQLITE_FULL, disk_full), which a write that changes nothing would not show.
   */
  probeWrite(): Promise<void>;
}

/** The probe row's endpoint, never a route's. */
export const PROBE_ENDPOINT = 'readiness probe';
/**
 * The probe row's query: 8 KB, longer than any real one (2 KB at most) and than a page of SQLite's
 * (4 KB by default), so it needs new pages wherever a real row would; random, so that PostgreSQL's
 * compression cannot shrink it below that.
 */
export const PROBE_QUERY = randomBytes(6144).toString('base64');

/** Credits granted to a fresh window row for `count` requests: all when open-ended, else up to the allowance. */
export function freshGrant(ask: CreditAsk, count: number): number {
  if (ask.included === null || ask.overage) return count;
  return Math.max(0, Math.min(count, ask.included));
}

export const isOpenEnded = (ask: CreditAsk): boolean => ask.included === null || ask.overage;

/** Whether a request granted as the window's `used`-th is billed as overage (its record is the usage row's flag). */
export const isOverage = (ask: CreditAsk, used: number): boolean =>
  ask.overage && ask.included !== null && used > ask.included;
