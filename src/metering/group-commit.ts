// Group commit over a client-server database: credit requests of one account window queued during
// one turn of the event loop become one guarded statement (granting the first n in arrival order),
// and the usage rows of that turn one insert. Callers get their own answer, after the statement that
// holds their write has committed. Each statement is atomic on its own, so exactness does not depend
// on how requests are grouped, nor on how many processes share the database.
import type { CreditAsk, CreditOutcome, UsageRow } from './store.js';

export interface CreditGroup {
  ask: CreditAsk;
  count: number;
}

export interface GroupStatements {
  /** Grants up to `count` credits in one statement; returns the window's count after it and how many were granted. */
  take(group: CreditGroup): Promise<{ used: number; granted: number }>;
  insertUsage(rows: UsageRow[]): Promise<void>;
}

interface Pending<I, O> {
  item: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

export class GroupCommit {
  private credits: Pending<CreditAsk, CreditOutcome>[] = [];
  private usage: Pending<UsageRow, void>[] = [];
  private scheduled = false;
  private running = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly parallelism: number,
    private readonly statements: GroupStatements,
  ) {}

  takeCredit(ask: CreditAsk): Promise<CreditOutcome> {
    return new Promise((resolve, reject) => {
      this.credits.push({ item: ask, resolve, reject });
      this.schedule();
    });
  }

  writeUsage(row: UsageRow): Promise<void> {
    return new Promise((resolve, reject) => {
      this.usage.push({ item: row, resolve, reject });
      this.schedule();
    });
  }

  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.credits.length === 0 && this.usage.length === 0 && this.running === 0;
  }

  private schedule(): void {
    if (this.scheduled || this.running >= this.parallelism) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    const credits = this.credits;
    const usage = this.usage;
    this.credits = [];
    this.usage = [];
    this.running++;
    try {
      await Promise.all([
        ...groupByWindow(credits).map((group) => this.grant(group)),
        usage.length === 0
          ? Promise.resolve()
          : this.statements.insertUsage(usage.map((u) => u.item)).then(
              () => usage.forEach((u) => u.resolve()),
              (error: unknown) => usage.forEach((u) => u.reject(error)),
            ),
      ]);
    } finally {
      this.running--;
      if (this.credits.length > 0 || this.usage.length > 0) this.schedule();
      else if (this.isIdle()) this.settleIdle();
    }
  }

  /** The first `granted` asks get consecutive counts ending at `used`; the rest are refused. */
  private async grant(group: { ask: CreditAsk; pending: Pending<CreditAsk, CreditOutcome>[] }): Promise<void> {
    try {
      const { used, granted } = await this.statements.take({ ask: group.ask, count: group.pending.length });
      group.pending.forEach((p, i) =>
        p.resolve(i < granted ? { granted: true, used: used - granted + i + 1 } : { granted: false, used }),
      );
    } catch (error) {
      for (const p of group.pending) p.reject(error);
    }
  }

  private settleIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

/** Asks for the same account window under the same policy, in arrival order. */
function groupByWindow(pending: Pending<CreditAsk, CreditOutcome>[]) {
  const groups = new Map<string, { ask: CreditAsk; pending: Pending<CreditAsk, CreditOutcome>[] }>();
  for (const p of pending) {
    const { accountId, windowStart, included, overage } = p.item;
    const key = `${accountId}\u0000${windowStart}\u0000${included}\u0000${overage}`;
    const group = groups.get(key);
    if (group) group.pending.push(p);
    else groups.set(key, { ask: p.item, pending: [p] });
  }
  return [...groups.values()];
}
