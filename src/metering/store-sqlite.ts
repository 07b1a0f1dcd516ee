// SQLite: every credit, usage row and read joins the database's group transaction (db/sqlite-group.ts).
// A credit and its usage row run as one savepoint inside the group: both or neither, and a failure
// fails only that request.
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteGroup } from '../db/index.js';
import {
  freshGrant,
  isOpenEnded,
  isOverage,
  PROBE_ENDPOINT,
  PROBE_QUERY,
  type Charge,
  type CreditAsk,
  type CreditOutcome,
  type MeteringStore,
  type UsageRow,
  type UsageSettlement,
} from './store.js';

const GRANT = `CASE WHEN :open = 1 THEN 1 ELSE MIN(1, MAX(:included - credit_windows.used, 0)) END`;

/** The upsert of an account window's credit row that grants `grant` (an expression of :open, :included…) and says what it granted. */
export const takeCreditsSql = (grant: string) =>
  `INSERT INTO credit_windows (account_id, window_start, used, last_grant)
   VALUES (:account, :window, :fresh, :fresh)
   ON CONFLICT (account_id, window_start) DO UPDATE SET
     used = credit_windows.used + ${grant},
     last_grant = ${grant}
   RETURNING used, last_grant`;

export const INSERT_USAGE_SQLITE = `INSERT INTO usage_log (at, account_id, key_id, endpoint, status, duration_ms, query, overage, plan_id)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;

export class SqliteMeteringStore implements MeteringStore {
  private readonly take: BetterSqlite3.Statement<[Record<string, unknown>], { used: number; last_grant: number }>;
  private readonly insertUsage: BetterSqlite3.Statement;
  private readonly settle: BetterSqlite3.Statement;
  private readonly charge: (ask: CreditAsk, usage: UsageRow) => CreditOutcome;
  private readonly void: (charge: Charge) => void;
  private readonly probe: () => void;
  private readonly used: BetterSqlite3.Statement<[string, number], { used: number }>;
  private readonly lifetime: BetterSqlite3.Statement<[string], { total: number | null }>;

  constructor(
    db: BetterSqlite3.Database,
    private readonly group: SqliteGroup,
  ) {
    this.take = db.prepare(takeCreditsSql(GRANT));
    this.insertUsage = db.prepare(INSERT_USAGE_SQLITE);
    this.settle = db.prepare('UPDATE usage_log SET status = ?, duration_ms = ? WHERE id = ?');
    const deleteUsage = db.prepare('DELETE FROM usage_log WHERE id = ?');
    const refund = db.prepare(
      'UPDATE credit_windows SET used = used - 1 WHERE account_id = ? AND window_start = ? AND used > 0',
    );
    // Nested in the group's transaction, better-sqlite3 runs these as savepoints.
    this.charge = db.transaction((ask: CreditAsk, usage: UsageRow) => {
      const outcome = this.takeOne(ask);
      if (!outcome.granted) return outcome;
      // The overage record is the row's flag, written in the savepoint that took the credit.
      const { lastInsertRowid } = this.insertUsage.run(
        usage.at,
        usage.accountId,
        usage.keyId,
        usage.endpoint,
        usage.status,
        usage.durationMs,
        usage.query,
        isOverage(ask, outcome.used) ? 1 : 0,
        ask.planId,
      );
      return { ...outcome, usageId: Number(lastInsertRowid) };
    });
    this.void = db.transaction((charge: Charge) => {
      if (deleteUsage.run(charge.usageId).changes === 1) refund.run(charge.accountId, charge.windowStart);
    });
    // Written and deleted in one savepoint of the group: committed (so a full WAL or file shows), and
    // no reader ever sees the row.
    this.probe = db.transaction(() => {
      const { lastInsertRowid } = this.insertUsage.run(0, '', '', PROBE_ENDPOINT, 0, 0, PROBE_QUERY, 0, null);
      deleteUsage.run(lastInsertRowid);
    });
    this.used = db.prepare('SELECT used FROM credit_windows WHERE account_id = ? AND window_start = ?');
    this.lifetime = db.prepare('SELECT SUM(used) AS total FROM credit_windows WHERE account_id = ?');
  }

  takeCredit(ask: CreditAsk, usage: UsageRow): Promise<CreditOutcome> {
    return this.group.run(() => this.takeCreditNow(ask, usage));
  }

  /** Synchronous; only for work already running inside the group transaction. */
  takeCreditNow(ask: CreditAsk, usage: UsageRow): CreditOutcome {
    return this.charge(ask, usage);
  }

  private takeOne(ask: CreditAsk): CreditOutcome {
    const row = this.take.get({
      account: ask.accountId,
      window: ask.windowStart,
      fresh: freshGrant(ask, 1),
      open: isOpenEnded(ask) ? 1 : 0,
      included: ask.included ?? 0,
    })!;
    return { granted: row.last_grant === 1, used: row.used };
  }

  settleUsage(settlement: UsageSettlement): Promise<void> {
    return this.group.run(() => {
      this.settle.run(settlement.status, settlement.durationMs, settlement.usageId);
    });
  }

  voidCharge(charge: Charge): Promise<void> {
    return this.group.run(() => this.void(charge));
  }

  readUsed(accountId: string, windowStart: number): Promise<number> {
    return this.group.run(() => this.readUsedNow(accountId, windowStart));
  }

  /** Synchronous; only for work already running inside the group transaction. */
  readUsedNow(accountId: string, windowStart: number): number {
    return this.used.get(accountId, windowStart)?.used ?? 0;
  }

  lifetimeUsed(accountId: string): Promise<number> {
    return this.group.run(() => this.lifetime.get(accountId)?.total ?? 0);
  }

  idle(): Promise<void> {
    return this.group.idle();
  }

  probeWrite(): Promise<void> {
    return this.group.run(() => this.probe());
  }
}
