// SQLite: the credits, their usage rows, the check and the writes are one savepoint in the group
// transaction (db/sqlite-group.ts); a refusal throws inside it, which undoes everything it wrote.
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteGroup } from '../db/index.js';
import { allOrNothing, freshAll, type BulkOutcome, type BulkStore, type PaidWrites } from './bulk.js';
import { isOpenEnded, isOverage, type CreditAsk, type UsageRow } from './store.js';
import { INSERT_USAGE_SQLITE, takeCreditsSql } from './store-sqlite.js';

const GRANT = allOrNothing(':open = 1', ':included', ':n');

export class SqliteBulkStore implements BulkStore {
  private readonly take: BetterSqlite3.Statement<[Record<string, unknown>], { used: number; last_grant: number }>;
  private readonly insertUsage: BetterSqlite3.Statement;

  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly group: SqliteGroup,
  ) {
    this.take = db.prepare(takeCreditsSql(GRANT));
    this.insertUsage = db.prepare(INSERT_USAGE_SQLITE);
  }

  async takeCredits(ask: CreditAsk, usage: UsageRow[], paid: PaidWrites): Promise<BulkOutcome> {
    const n = usage.length;
    const undo = new Error('refused');
    let outcome: BulkOutcome | undefined;
    const unit = this.db.transaction(() => {
      const taken = this.take.get({
        account: ask.accountId,
        window: ask.windowStart,
        fresh: freshAll(ask, n),
        open: isOpenEnded(ask) ? 1 : 0,
        included: ask.included ?? 0,
        n,
      })!;
      const before = taken.used - taken.last_grant;
      if (taken.last_grant !== n) {
        outcome = { kind: 'exhausted', used: before };
        throw undo;
      }
      const reason = paid.check
        ? paid.check.refuse(
            this.db.prepare(paid.check.query.sql).all(...(paid.check.query.parameters as unknown[])) as Record<
              string,
              unknown
            >[],
          )
        : null;
      if (reason !== null) {
        outcome = { kind: 'refused', used: before, reason };
        throw undo;
      }
      const usageIds = usage.map((u, i) =>
        Number(
          this.insertUsage.run(
            u.at,
            u.accountId,
            u.keyId,
            u.endpoint,
            u.status,
            u.durationMs,
            u.query,
            isOverage(ask, before + i + 1) ? 1 : 0,
            ask.planId,
          ).lastInsertRowid,
        ),
      );
      for (const write of paid.writes) this.db.prepare(write.sql).run(...(write.parameters as unknown[]));
      outcome = { kind: 'charged', used: taken.used, usageIds };
    });
    await this.group.run(() => {
      try {
        unit();
      } catch (error) {
        if (error !== undo) throw error;
      }
    });
    return outcome!;
  }
}
