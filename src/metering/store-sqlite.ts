import type BetterSqlite3 from 'better-sqlite3';
import { freshGrant, type CreditGrant, type CreditRequest, type MeteringStore, type Settled, type UsageRow } from './store.js';

const GRANT = `CASE WHEN :open = 1 THEN :count ELSE MIN(:count, MAX(:included - credit_windows.used, 0)) END`;

export class SqliteMeteringStore implements MeteringStore {
  readonly parallelism = 1;
  private readonly take: BetterSqlite3.Statement;
  private readonly insertUsage: BetterSqlite3.Statement;
  private readonly used: BetterSqlite3.Statement<[string, number], { used: number }>;
  private readonly lifetime: BetterSqlite3.Statement<[string], { total: number | null }>;
  private readonly transaction: (credits: CreditRequest[], usage: UsageRow[]) => {
    credits: Settled<CreditGrant>[];
    usage: Settled<void>;
  };

  constructor(private readonly db: BetterSqlite3.Database) {
    this.take = db.prepare(
      `INSERT INTO credit_windows (account_id, window_start, used, last_grant)
       VALUES (:account, :window, :fresh, :fresh)
       ON CONFLICT (account_id, window_start) DO UPDATE SET
         used = credit_windows.used + ${GRANT},
         last_grant = ${GRANT}
       RETURNING used, last_grant`,
    );
    this.insertUsage = db.prepare(
      `INSERT INTO usage_log (at, account_id, key_id, endpoint, status, duration_ms, query)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.used = db.prepare('SELECT used FROM credit_windows WHERE account_id = ? AND window_start = ?');
    this.lifetime = db.prepare('SELECT SUM(used) AS total FROM credit_windows WHERE account_id = ?');

    const body = (credits: CreditRequest[], usage: UsageRow[]) => {
      const results = credits.map((request): Settled<CreditGrant> => {
        try {
          const row = this.take.get({
            account: request.accountId,
            window: request.windowStart,
            fresh: freshGrant(request),
            open: request.included === null || request.overage ? 1 : 0,
            count: request.count,
            included: request.included ?? 0,
          }) as { used: number; last_grant: number };
          return { ok: true, value: { used: row.used, granted: row.last_grant } };
        } catch (error) {
          // A failed statement is rolled back on its own; the rest of the group still commits.
          return { ok: false, error };
        }
      });
      for (const row of usage) {
        this.insertUsage.run(row.at, row.accountId, row.keyId, row.endpoint, row.status, row.durationMs, row.query);
      }
      return { credits: results, usage: { ok: true } as Settled<void> };
    };
    const transaction = db.transaction(body);
    this.transaction = (credits, usage) => transaction.immediate(credits, usage);
  }

  async commit(credits: CreditRequest[], usage: UsageRow[]) {
    // Never fold a group commit into someone else's open transaction on the shared connection.
    while (this.db.inTransaction) await new Promise((resolve) => setImmediate(resolve));
    try {
      return this.transaction(credits, usage);
    } catch (error) {
      // The whole transaction failed (the file is locked past busy_timeout, the disk is full...).
      return { credits: credits.map(() => ({ ok: false as const, error })), usage: { ok: false as const, error } };
    }
  }

  async readUsed(accountId: string, windowStart: number): Promise<number> {
    return this.used.get(accountId, windowStart)?.used ?? 0;
  }

  async lifetimeUsed(accountId: string): Promise<number> {
    return this.lifetime.get(accountId)?.total ?? 0;
  }
}
