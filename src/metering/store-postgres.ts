// PostgreSQL: credits of one account window asked for in the same turn of the event loop become one
// guarded statement that also writes the usage rows of the credits it grants; settlements of that
// turn become one update (group-commit.ts). Each is one round trip on a pooled connection with a
// named prepared statement, and one statement is one transaction: a usage row that cannot be written
// takes its credit down with it.
import type pg from 'pg';
import { TurnBatcher } from '../db/index.js';
import type { PrincipalVersion } from '../auth/index.js';
import { GroupCommit, STALE, type CheckedOutcome, type CreditGroup } from './group-commit.js';
import {
  freshGrant,
  isOpenEnded,
  PROBE_ENDPOINT,
  PROBE_QUERY,
  type Charge,
  type CreditAsk,
  type CreditOutcome,
  type MeteringStore,
  type UsageRow,
  type UsageSettlement,
} from './store.js';

const GRANT = `CASE WHEN $5::boolean THEN $3::integer
                    ELSE LEAST($3::integer, GREATEST($6::integer - credit_windows.used, 0)) END`;
// `logged` numbers the rows of the granted asks (the first last_grant in arrival order) from the
// table's own sequence, so the ids come back in ask order; a data-modifying CTE always runs, and
// the whole statement commits or fails as one. A granted row is overage when its place in the
// window (used before this statement + its ordinal) passes the allowance on a billed-overage
// policy ($13): the overage record is written by the very statement that takes the credit.
//
// `valid` checks the principals the asks were judged on ($15–$17: key id, key version, account
// version): with any key or its account updated since it was read, no row is inserted or updated, the
// statement returns no row, and the asks are judged again from a fresh lookup (gate.ts).
//
// The statement commits without waiting for its WAL to reach the disk (synchronous_commit off for
// this transaction only): the row lock on the window's credit row is then held for the statement, not
// for a flush as well, so the grants of a busy account do not queue behind each other's fsync. No
// answer relies on it: the settlement, committed synchronously before the answer leaves, flushes the
// WAL through every earlier commit, this credit and its usage row included. What a crash of
// PostgreSQL can lose is the credits of requests not yet answered, each with its row.
const TAKE = `
  WITH valid AS (
    SELECT count(*) = cardinality($15::text[]) AS ok
    FROM unnest($15::text[], $16::text[], $17::text[]) AS v(key_id, key_version, account_version)
    JOIN api_keys k ON k.id = v.key_id AND k.xmin::text = v.key_version
    JOIN accounts a ON a.id = k.account_id AND a.xmin::text = v.account_version
    WHERE k.account_id = $1::text
  ), taken AS (
    INSERT INTO credit_windows (account_id, window_start, used, last_grant)
    SELECT $1::text, $2::bigint, $4::integer, $4::integer WHERE (SELECT ok FROM valid)
    ON CONFLICT (account_id, window_start) DO UPDATE SET
      used = credit_windows.used + ${GRANT},
      last_grant = ${GRANT}
    RETURNING used, last_grant
  ), logged AS (
    SELECT nextval('usage_log_id_seq') AS id, u.*
    FROM unnest($7::bigint[], $8::text[], $9::text[], $10::integer[], $11::float8[], $12::text[])
      WITH ORDINALITY AS u(at, key_id, endpoint, status, duration_ms, query, ord)
    WHERE u.ord <= (SELECT last_grant FROM taken)
  ), inserted AS (
    INSERT INTO usage_log (id, at, account_id, key_id, endpoint, status, duration_ms, query, overage, plan_id)
    SELECT id, at, $1, key_id, endpoint, status, duration_ms, query,
           CASE WHEN $13::boolean AND (SELECT used - last_grant FROM taken) + ord > $6::integer THEN 1 ELSE 0 END, $14::text
    FROM logged
  )
  SELECT used, last_grant, ARRAY(SELECT id FROM logged ORDER BY ord) AS usage_ids,
         set_config('synchronous_commit', 'off', true) AS commit_mode
  FROM taken`;
// Arrays per column, unnested server-side: one statement text for any number of rows.
const SETTLE_USAGE = `
  UPDATE usage_log AS u SET status = v.status, duration_ms = v.duration_ms
  FROM unnest($1::bigint[], $2::integer[], $3::float8[]) AS v(id, status, duration_ms)
  WHERE u.id = v.id`;
const VOID_CHARGE = `
  WITH gone AS (DELETE FROM usage_log WHERE id = $1 RETURNING id)
  UPDATE credit_windows SET used = used - 1
  WHERE account_id = $2 AND window_start = $3 AND used > 0 AND EXISTS (SELECT 1 FROM gone)`;

/**
 * Group commits in flight at once per process; each holds pool connections while its statements
 * run. Enough to keep a 10-connection pool busy without starving the key lookups.
 */
const PARALLEL_COMMITS = 4;

/**
 * Times an unchecked credit is asked for when its group keeps meeting changed principals, and a
 * gate judges a caller again after a stale grant, before the request is refused as unavailable.
 */
export const STALE_ATTEMPTS = 3;

export class StaleAdmissionError extends Error {
  constructor() {
    super(`the caller's key or account changed during each of ${STALE_ATTEMPTS} admissions in a row`);
  }
}

export class PostgresMeteringStore implements MeteringStore {
  private readonly commits: GroupCommit;

  /** Credit reads and lifetime counts of one turn share a statement each (db/batcher.ts). */
  private readonly used: TurnBatcher<string, number>;
  private readonly lifetime: TurnBatcher<string, number>;

  constructor(private readonly pool: pg.Pool) {
    this.commits = new GroupCommit(PARALLEL_COMMITS, {
      take: (group) => this.take(group),
      settleUsage: (settlements) => this.settle(settlements),
    });
    this.used = new TurnBatcher(async (keys) => {
      const pairs = keys.map((k) => k.split(' '));
      const result = await pool.query<{ account_id: string; window_start: number; used: number }>({
        name: 'metering_read_used',
        text: `SELECT c.account_id, c.window_start, c.used FROM credit_windows c
               JOIN unnest($1::text[], $2::bigint[]) AS w(account_id, window_start) USING (account_id, window_start)`,
        values: [pairs.map((p) => p[0]), pairs.map((p) => Number(p[1]))],
      });
      return new Map(result.rows.map((r) => [`${r.account_id} ${r.window_start}`, r.used]));
    });
    this.lifetime = new TurnBatcher(async (accounts) => {
      const result = await pool.query<{ account_id: string; total: number }>({
        name: 'metering_lifetime_used',
        text: 'SELECT account_id, SUM(used)::bigint AS total FROM credit_windows WHERE account_id = ANY($1::text[]) GROUP BY account_id',
        values: [accounts],
      });
      return new Map(result.rows.map((r) => [r.account_id, r.total]));
    });
  }

  /** Unchecked (a caller judged elsewhere); a group it shared with a stale principal is asked again. */
  async takeCredit(ask: CreditAsk, usage: UsageRow): Promise<CreditOutcome> {
    for (let attempt = 0; attempt < STALE_ATTEMPTS; attempt++) {
      const outcome = await this.commits.takeCredit(ask, usage, null);
      if (outcome !== STALE) return outcome;
    }
    throw new StaleAdmissionError();
  }

  /** Only while the principal `check` was read from is unchanged; STALE otherwise (nothing taken). */
  takeCheckedCredit(ask: CreditAsk, usage: UsageRow, check: PrincipalVersion): Promise<CheckedOutcome> {
    return this.commits.takeCredit(ask, usage, check);
  }

  settleUsage(settlement: UsageSettlement): Promise<void> {
    return this.commits.settleUsage(settlement);
  }

  async voidCharge(charge: Charge): Promise<void> {
    await this.pool.query({
      name: 'metering_void_charge',
      text: VOID_CHARGE,
      values: [charge.usageId, charge.accountId, charge.windowStart],
    });
  }

  private async take({
    ask,
    usage,
    checks,
  }: CreditGroup): Promise<{ used: number; granted: number; usageIds: number[] } | null> {
    const count = usage.length;
    const result = await this.pool.query<{ used: number; last_grant: number; usage_ids: (string | number)[] }>({
      name: 'metering_take_credits',
      text: TAKE,
      values: [
        ask.accountId,
        ask.windowStart,
        count,
        freshGrant(ask, count),
        isOpenEnded(ask),
        ask.included ?? 0,
        usage.map((r) => r.at),
        usage.map((r) => r.keyId),
        usage.map((r) => r.endpoint),
        usage.map((r) => r.status),
        usage.map((r) => r.durationMs),
        usage.map((r) => r.query),
        ask.overage && ask.included !== null,
        ask.planId,
        checks.map((c) => c.keyId),
        checks.map((c) => c.key),
        checks.map((c) => c.account),
      ],
    });
    const row = result.rows[0];
    if (!row) return null;
    return { used: row.used, granted: row.last_grant, usageIds: row.usage_ids.map(Number) };
  }

  private async settle(settlements: UsageSettlement[]): Promise<void> {
    // Not a named statement: its plan is made for the table as it is now. A named one keeps the
    // generic plan made at its sixth run, and on a young usage_log that plan scans the whole table
    // per settlement: the bench found 151 M rows read in 20 s, throughput halving as the table grew.
    // Planning each (one per turn's settlements) costs a few microseconds per request.
    await this.pool.query({
      text: SETTLE_USAGE,
      values: [
        settlements.map((s) => s.usageId),
        settlements.map((s) => s.status),
        settlements.map((s) => s.durationMs),
      ],
    });
  }

  readUsed(accountId: string, windowStart: number): Promise<number> {
    return this.used.get(`${accountId} ${windowStart}`).then((used) => used ?? 0);
  }

  lifetimeUsed(accountId: string): Promise<number> {
    return this.lifetime.get(accountId).then((total) => total ?? 0);
  }

  idle(): Promise<void> {
    return this.commits.idle();
  }

  /** The row is written in a transaction that is rolled back: PostgreSQL takes the space at the insert. */
  async probeWrite(): Promise<void> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      await client.query({
        text: `INSERT INTO usage_log (at, account_id, key_id, endpoint, status, duration_ms, query) VALUES (0, '', '', $1, 0, 0, $2)`,
        values: [PROBE_ENDPOINT, PROBE_QUERY],
      });
    } finally {
      await client.query('ROLLBACK').catch((error: Error) => (broken = error));
      client.release(broken);
    }
  }
}
