// PostgreSQL: credits of one account window asked for in the same turn of the event loop become one
// guarded statement, usage rows of that turn one multi-row insert (group-commit.ts). Each is one
// round trip on a pooled connection with a named prepared statement.
import type pg from 'pg';
import { GroupCommit, type CreditGroup } from './group-commit.js';
import { freshGrant, isOpenEnded, type CreditAsk, type CreditOutcome, type MeteringStore, type UsageRow } from './store.js';

const GRANT = `CASE WHEN $5::boolean THEN $3::integer
                    ELSE LEAST($3::integer, GREATEST($6::integer - credit_windows.used, 0)) END`;
const TAKE = `
  INSERT INTO credit_windows (account_id, window_start, used, last_grant)
  VALUES ($1, $2, $4::integer, $4::integer)
  ON CONFLICT (account_id, window_start) DO UPDATE SET
    used = credit_windows.used + ${GRANT},
    last_grant = ${GRANT}
  RETURNING used, last_grant`;
// Arrays per column, unnested server-side: one statement text for any number of rows.
const INSERT_USAGE = `
  INSERT INTO usage_log (at, account_id, key_id, endpoint, status, duration_ms, query)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::float8[], $7::text[])`;

/**
 * Group commits in flight at once per process; each holds pool connections while its statements
 * run. Enough to keep a 10-connection pool busy without starving the key lookups.
 */
const PARALLEL_COMMITS = 4;

export class PostgresMeteringStore implements MeteringStore {
  private readonly commits: GroupCommit;

  constructor(private readonly pool: pg.Pool) {
    this.commits = new GroupCommit(PARALLEL_COMMITS, {
      take: (group) => this.take(group),
      insertUsage: (rows) => this.insertUsage(rows),
    });
  }

  takeCredit(ask: CreditAsk): Promise<CreditOutcome> {
    return this.commits.takeCredit(ask);
  }

  writeUsage(row: UsageRow): Promise<void> {
    return this.commits.writeUsage(row);
  }

  private async take({ ask, count }: CreditGroup): Promise<{ used: number; granted: number }> {
    const result = await this.pool.query<{ used: number; last_grant: number }>({
      name: 'metering_take_credits',
      text: TAKE,
      values: [ask.accountId, ask.windowStart, count, freshGrant(ask, count), isOpenEnded(ask), ask.included ?? 0],
    });
    const row = result.rows[0]!;
    return { used: row.used, granted: row.last_grant };
  }

  private async insertUsage(rows: UsageRow[]): Promise<void> {
    await this.pool.query({
      name: 'metering_insert_usage',
      text: INSERT_USAGE,
      values: [
        rows.map((r) => r.at),
        rows.map((r) => r.accountId),
        rows.map((r) => r.keyId),
        rows.map((r) => r.endpoint),
        rows.map((r) => r.status),
        rows.map((r) => r.durationMs),
        rows.map((r) => r.query),
      ],
    });
  }

  async readUsed(accountId: string, windowStart: number): Promise<number> {
    const result = await this.pool.query<{ used: number }>({
      name: 'metering_read_used',
      text: 'SELECT used FROM credit_windows WHERE account_id = $1 AND window_start = $2',
      values: [accountId, windowStart],
    });
    return result.rows[0]?.used ?? 0;
  }

  async lifetimeUsed(accountId: string): Promise<number> {
    const result = await this.pool.query<{ total: number | null }>({
      name: 'metering_lifetime_used',
      text: 'SELECT SUM(used)::bigint AS total FROM credit_windows WHERE account_id = $1',
      values: [accountId],
    });
    return result.rows[0]?.total ?? 0;
  }

  idle(): Promise<void> {
    return this.commits.idle();
  }
}
