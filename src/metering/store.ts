// Storage for credits and the usage log. Both dialects take credits with one guarded statement per
// account and window: an upsert whose UPDATE grants min(requested, what is left) computed from the
// row as locked, so no read-then-write race exists in any number of processes. `last_grant` carries
// the number granted back through RETURNING (RETURNING sees new values only).

/** A group of credit requests for one account window, granted in order. */
export interface CreditRequest {
  accountId: string;
  windowStart: number;
  /** How many credits are asked for (one per waiting request). */
  count: number;
  /** Allowance of the window; null = unlimited. */
  included: number | null;
  overage: boolean;
}

export interface CreditGrant {
  /** Credits used in the window after this statement. */
  used: number;
  /** How many of `count` were granted (the first ones in order). */
  granted: number;
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

export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface MeteringStore {
  /**
   * One group commit: takes every credit request and appends every usage row. Results come back
   * per request so one failing statement fails only its own requests. Resolves after commit.
   */
  commit(credits: CreditRequest[], usage: UsageRow[]): Promise<{ credits: Settled<CreditGrant>[]; usage: Settled<void> }>;
  readUsed(accountId: string, windowStart: number): Promise<number>;
  /** Credits ever taken by the account: its lifetime count of metered requests. */
  lifetimeUsed(accountId: string): Promise<number>;
  /** How many commits may run at once (1 for SQLite, whose commits are synchronous). */
  readonly parallelism: number;
}

/** Credits granted to a fresh window row: all of them when open-ended, else up to the allowance. */
export function freshGrant(request: CreditRequest): number {
  if (request.included === null || request.overage) return request.count;
  return Math.max(0, Math.min(request.count, request.included));
}
