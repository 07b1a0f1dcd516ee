// Group commit over a client-server database: credit requests of one account window queued during
// one turn of the event loop become one guarded statement (granting the first n in arrival order and
// writing their usage rows in the same statement), and the settlements of that turn one update.
// Callers get their own answer, after the statement that holds their write has committed. Each
// statement is atomic on its own, so exactness does not depend on how requests are grouped, nor on
// how many processes share the database. When to flush: the shared turn loop (db/turn-loop.ts).
import type { PrincipalVersion } from '../auth/index.js';
import { TurnLoop } from '../db/index.js';
import type { CreditAsk, CreditOutcome, UsageRow, UsageSettlement } from './store.js';

export interface CreditGroup {
  ask: CreditAsk;
  /** One usage row per request, in arrival order; the first `granted` are written with the credits. */
  usage: UsageRow[];
  /** The principals' row versions the asks were judged on (distinct); all must still hold. */
  checks: PrincipalVersion[];
}

export interface GroupStatements {
  /**
   * Grants up to `usage.length` credits and writes the usage rows of those granted, in one
   * statement; returns the window's count after it, how many were granted and their rows' ids, or
   * null when a checked principal changed since it was read (nothing taken).
   */
  take(group: CreditGroup): Promise<{ used: number; granted: number; usageIds: number[] } | null>;
  settleUsage(settlements: UsageSettlement[]): Promise<void>;
}

/** A credit refused because a principal of its group changed since it was read: judge again. */
export const STALE = 'stale';
export type CheckedOutcome = CreditOutcome | typeof STALE;

interface CreditItem {
  ask: CreditAsk;
  usage: UsageRow;
  check: PrincipalVersion | null;
}

interface Pending<I, O> {
  item: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

export class GroupCommit {
  private credits: Pending<CreditItem, CheckedOutcome>[] = [];
  private usage: Pending<UsageSettlement, void>[] = [];
  private readonly loop: TurnLoop;

  constructor(
    parallelism: number,
    private readonly statements: GroupStatements,
  ) {
    this.loop = new TurnLoop(
      { pending: () => this.credits.length > 0 || this.usage.length > 0, flush: () => this.flush() },
      parallelism,
    );
  }

  /**
   * With `check`, the credit is taken only if that principal (and every other checked one of its
   * group) is unchanged; otherwise the whole group answers STALE and takes nothing.
   */
  takeCredit(ask: CreditAsk, usage: UsageRow, check: PrincipalVersion | null): Promise<CheckedOutcome> {
    return new Promise((resolve, reject) => {
      this.credits.push({ item: { ask, usage, check }, resolve, reject });
      this.loop.wake();
    });
  }

  settleUsage(settlement: UsageSettlement): Promise<void> {
    return new Promise((resolve, reject) => {
      this.usage.push({ item: settlement, resolve, reject });
      this.loop.wake();
    });
  }

  idle(): Promise<void> {
    return this.loop.idle();
  }

  private async flush(): Promise<void> {
    const credits = this.credits;
    const usage = this.usage;
    this.credits = [];
    this.usage = [];
    await Promise.all([
      ...groupByWindow(credits).map((group) => this.grant(group)),
      usage.length === 0
        ? Promise.resolve()
        : this.statements.settleUsage(usage.map((u) => u.item)).then(
            () => usage.forEach((u) => u.resolve()),
            (error: unknown) => usage.forEach((u) => u.reject(error)),
          ),
    ]);
  }

  /** The first `granted` asks get consecutive counts ending at `used`; the rest are refused. */
  private async grant(group: { ask: CreditAsk; pending: Pending<CreditItem, CheckedOutcome>[] }): Promise<void> {
    try {
      const taken = await this.statements.take({
        ask: group.ask,
        usage: group.pending.map((p) => p.item.usage),
        checks: distinctChecks(group.pending),
      });
      if (taken === null) {
        for (const p of group.pending) p.resolve(STALE);
        return;
      }
      const { used, granted, usageIds } = taken;
      group.pending.forEach((p, i) =>
        p.resolve(
          i < granted
            ? { granted: true, used: used - granted + i + 1, usageId: usageIds[i]! }
            : { granted: false, used },
        ),
      );
    } catch (error) {
      for (const p of group.pending) p.reject(error);
    }
  }
}

/** Asks for the same account window under the same policy, in arrival order. */
function groupByWindow(pending: Pending<CreditItem, CheckedOutcome>[]) {
  const groups = new Map<string, { ask: CreditAsk; pending: Pending<CreditItem, CheckedOutcome>[] }>();
  for (const p of pending) {
    const { accountId, windowStart, included, overage, planId } = p.item.ask;
    const key = `${accountId}\u0000${windowStart}\u0000${included}\u0000${overage}\u0000${planId}`;
    const group = groups.get(key);
    if (group) group.pending.push(p);
    else groups.set(key, { ask: p.item.ask, pending: [p] });
  }
  return [...groups.values()];
}

function distinctChecks(pending: Pending<CreditItem, CheckedOutcome>[]): PrincipalVersion[] {
  const checks = new Map<string, PrincipalVersion>();
  for (const { item } of pending) {
    if (item.check) checks.set(`${item.check.keyId}\u0000${item.check.key}\u0000${item.check.account}`, item.check);
  }
  return [...checks.values()];
}
