// Storage for credits and the usage log. Both dialects take credits with one guarded statement per
// account window: an upsert whose UPDATE grants min(requested, what is left) computed from the row
// as locked, so no read-then-write race exists in any number of processes. `last_grant` carries the
// number granted back through RETURNING (RETURNING sees new values only).

/** One request's credit, under the account's policy for the window. */
export interface CreditAsk {
  accountId: string;
  windowStart: number;
  /** Allowance of the window; null = unlimited. */
  included: number | null;
  overage: boolean;
}

/** `used` is the window's count after this request (granted) or as found (refused). */
export interface CreditOutcome {
  granted: boolean;
  used: number;
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
  /** Takes one credit or refuses; resolves after the commit that holds it. */
  takeCredit(ask: CreditAsk): Promise<CreditOutcome>;
  /** Appends a usage row; resolves after the commit that holds it. */
  writeUsage(row: UsageRow): Promise<void>;
  readUsed(accountId: string, windowStart: number): Promise<number>;
  /** Credits ever taken by the account: its lifetime count of metered requests. */
  lifetimeUsed(accountId: string): Promise<number>;
  /** Resolves once nothing is queued or committing. */
  idle(): Promise<void>;
}

/** Credits granted to a fresh window row for `count` requests: all when open-ended, else up to the allowance. */
export function freshGrant(ask: CreditAsk, count: number): number {
  if (ask.included === null || ask.overage) return count;
  return Math.max(0, Math.min(count, ask.included));
}

export const isOpenEnded = (ask: CreditAsk): boolean => ask.included === null || ask.overage;
