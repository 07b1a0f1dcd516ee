import type pg from 'pg';
import { freshGrant, type CreditGrant, type CreditRequest, type MeteringStore, type Settled, type UsageRow } from './store.js';

const GRANT = `CASE WHEN $5::boolean THEN $3::integer
                    ELSE LEAST($3::integer, GREATEST($6::integer - credit_windows.used, 0)) END`;
const TAKE = `
  INSERT INTO credit_windows (account_id, window_start, used, last_grant)
  VALUES ($1, $2, $4::integer, $4::integer)
  ON CONFLICT (account_id, window_start) DO UPDATE SET
    used = credit_windows.used + ${GRANT},
    last_grant = ${GRANT}
  RETURNING used, last_grant`;
// One statement appends any number of usage rows: arrays per column, unnested server-side.
const INSERT_USAGE = `
  INSERT INTO usage_log (at, account_id, key_id, endpoint, status, duration_ms, query)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::float8[], $7::text[])`;

/**
 * Commits running at once per process. Each holds one pool connection; the credit statements of one
 * commit run in parallel on others. Enough to keep a 10-connection pool busy without starving it.
 */
const PARALLEL_COMMITS = 4;

export class PostgresMeteringStore implements MeteringStore {
  readonly parallelism = PARALLEL_COMMITS;

  constructor(private readonly pool: pg.Pool) {}

  async commit(credits: CreditRequest[], usage: UsageRow[]) {
    const creditResults = Promise.allSettled(credits.map((request) => this.take(request)));
    const usageResult = usage.length === 0 ? Promise.resolve() : this.insertUsage(usage);
    const [settledCredits, settledUsage] = await Promise.all([creditResults, usageResult.then(
      () => ({ ok: true as const }),
      (error: unknown) => ({ ok: false as const, error }),
    )]);
    return {
      credits: settledCredits.map((s): Settled<CreditGrant> =>
        s.status === 'fulfilled' ? { ok: true, value: s.value } : { ok: false, error: s.reason },
      ),
      usage: settledUsage as Settled<void>,
    };
  }

  private async take(request: CreditRequest): Promise<CreditGrant> {
    const result = await this.pool.query<{ used: number; last_grant: number }>({
      name: 'metering_take_credits',
      text: TAKE,
      values: [
        request.accountId,
        request.windowStart,
        request.count,
        freshGrant(request),
        request.included === null || request.overage,
        request.included ?? 0,
      ],
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
}
