// Many credits at once, all or none, with the writes they pay for (docs/metering.md, "Many credits at
// once"): a request that creates N watches takes N credits, writes N usage rows and the watches in one
// transaction, or is refused and writes nothing. The grant is the guarded statement of a single credit
// with an all-or-nothing rule: N when the policy is open-ended (unlimited, or overage billed) or N
// still fit in the allowance, else none. Charges with a `check` (a limit counted from the rows the
// writes add to) take turns per account, so the check is exact across processes on either database:
// SQLite has one writer; PostgreSQL takes an advisory lock and locks the account's credit row only
// for the statement that takes the credits. Each dialect runs it in its own file: bulk-sqlite.ts,
// bulk-postgres.ts.
import type { CompiledQuery } from 'kysely';
import type { Principal } from '../auth/index.js';
import type { UsageDraft } from './gate.js';
import type { CreditAsk, UsageRow } from './store.js';
import { policyOf, positionOf, windowAt, type CreditPosition } from './window.js';

/** What the credits pay for, written in their transaction. */
export interface PaidWrites {
  /**
   * Read in the charge's transaction, one charge with a check of the account at a time: a reason to
   * refuse the whole (nothing is then written, no credit taken), or null to go on.
   */
  check?: { query: CompiledQuery; refuse: (rows: Record<string, unknown>[]) => string | null };
  /** Run in order in the charge's transaction; a failure undoes everything. */
  writes: CompiledQuery[];
}

/** A usage row of a paid write: the draft, and the status of the answer that reports it. */
export type PaidUsage = UsageDraft & { status: number };

/** `used`: the window's count after the grant (charged), or as found (refused). */
export type BulkOutcome =
  | { kind: 'charged'; used: number; usageIds: number[] }
  | { kind: 'exhausted'; used: number }
  | { kind: 'refused'; used: number; reason: string };

export interface BulkStore {
  takeCredits(ask: CreditAsk, usage: UsageRow[], paid: PaidWrites): Promise<BulkOutcome>;
}

export type BulkCharge = BulkOutcome & { position: CreditPosition };

/** The grant expression over `:open`, `:included` and `:n` (named or positional as each dialect writes them). */
export const allOrNothing = (open: string, included: string, n: string): string =>
  `CASE WHEN ${open} THEN ${n} WHEN ${included} - credit_windows.used >= ${n} THEN ${n} ELSE 0 END`;

/** Credits granted to a fresh window row: all `n` when open-ended or within the allowance, else none. */
export const freshAll = (ask: CreditAsk, n: number): number =>
  ask.included === null || ask.overage || ask.included >= n ? n : 0;

/** Takes one credit per usage row for `principal` at `now`, all or none, with `paid`. */
export async function chargeAll(
  store: BulkStore,
  principal: Principal,
  usage: PaidUsage[],
  paid: PaidWrites,
  now: number,
): Promise<BulkCharge> {
  const { account } = principal;
  const window = windowAt(account.windowAnchor, now);
  const policy = policyOf(principal, window.start);
  const ask: CreditAsk = {
    accountId: account.id,
    windowStart: window.start,
    included: policy.included,
    overage: policy.overage,
    planId: policy.planId,
  };
  const rows = usage.map((u) => ({ ...u, accountId: account.id, keyId: principal.keyId, durationMs: 0 }));
  const outcome = await store.takeCredits(ask, rows, paid);
  return { ...outcome, position: positionOf(policy, outcome.used, window) };
}
