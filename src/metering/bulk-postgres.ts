// PostgreSQL: one transaction on a pooled connection, in this order:
// 1. With a `check`, a transaction-scoped advisory lock on the account: charges with a check take turns,
//    so the check (READ COMMITTED: a new snapshot per statement) sees every earlier one committed.
// 2. The check, then the writes the credits pay for.
// 3. Last, one statement takes the credits and writes their usage rows (or, short of credits, none).
// The account window's credit row is locked from that statement to COMMIT only: every metered request
// of the account takes its credit on that row, and held from the start, as it was, it made them wait
// for the check's and each write's round trip: the account's lookups during a 6,000-watch upload
// waited up to 518 ms, 29–82 ms since (docs/performance.md, "Watches under load, read").
import type pg from 'pg';
import { allOrNothing, freshAll, type BulkOutcome, type BulkStore, type PaidWrites } from './bulk.js';
import { isOpenEnded, type CreditAsk, type UsageRow } from './store.js';

const TURNS = `SELECT pg_advisory_xact_lock(hashtextextended('metering: charges with a check of ' || $1::text, 0))`;

// Ids drawn in input order (as metering_take_credits draws them), each row overage when its place in
// the window passes the allowance on a billed-overage policy ($12); no row unless all `n` were granted.
const TAKE_ALL = `
  WITH taken AS (
    INSERT INTO credit_windows (account_id, window_start, used, last_grant)
    VALUES ($1::text, $2::bigint, $3::integer, $3::integer)
    ON CONFLICT (account_id, window_start) DO UPDATE SET
      used = credit_windows.used + ${allOrNothing('$4::boolean', '$5::integer', '$6::integer')},
      last_grant = ${allOrNothing('$4::boolean', '$5::integer', '$6::integer')}
    RETURNING used, last_grant
  ), logged AS (
    SELECT nextval('usage_log_id_seq') AS id, u.*
    FROM unnest($7::bigint[], $8::text[], $9::text[], $10::integer[], $11::text[])
      WITH ORDINALITY AS u(at, key_id, endpoint, status, query, ord)
    WHERE (SELECT last_grant FROM taken) = $6::integer
  ), inserted AS (
    INSERT INTO usage_log (id, at, account_id, key_id, endpoint, status, duration_ms, query, overage, plan_id)
    SELECT id, at, $1::text, key_id, endpoint, status, 0, query,
           CASE WHEN $12::boolean AND (SELECT used - last_grant FROM taken) + ord > $5::integer THEN 1 ELSE 0 END, $13::text
    FROM logged
  )
  SELECT used, last_grant, ARRAY(SELECT id FROM logged ORDER BY ord) AS ids FROM taken`;

const USED = 'SELECT used FROM credit_windows WHERE account_id = $1::text AND window_start = $2::bigint';

export class PostgresBulkStore implements BulkStore {
  constructor(private readonly pool: pg.Pool) {}

  async takeCredits(ask: CreditAsk, usage: UsageRow[], paid: PaidWrites): Promise<BulkOutcome> {
    const n = usage.length;
    const client = await this.pool.connect();
    let broken: Error | undefined;
    let committed = false;
    try {
      await client.query('BEGIN');
      if (paid.check) {
        await client.query(TURNS, [ask.accountId]);
        const { rows } = await client.query(paid.check.query.sql, paid.check.query.parameters as unknown[]);
        const reason = paid.check.refuse(rows as Record<string, unknown>[]);
        if (reason !== null) {
          const found = await client.query<{ used: number }>(USED, [ask.accountId, ask.windowStart]);
          return { kind: 'refused', used: found.rows[0]?.used ?? 0, reason };
        }
      }
      for (const write of paid.writes) await client.query(write.sql, write.parameters as unknown[]);
      const taken = (
        await client.query<{ used: number; last_grant: number; ids: (string | number)[] }>(TAKE_ALL, [
          ask.accountId,
          ask.windowStart,
          freshAll(ask, n),
          isOpenEnded(ask),
          ask.included ?? 0,
          n,
          usage.map((u) => u.at),
          usage.map((u) => u.keyId),
          usage.map((u) => u.endpoint),
          usage.map((u) => u.status),
          usage.map((u) => u.query),
          ask.overage && ask.included !== null,
          ask.planId,
        ])
      ).rows[0]!;
      // Short of credits: the writes are rolled back with the rest.
      if (taken.last_grant !== n) return { kind: 'exhausted', used: taken.used - taken.last_grant };
      await client.query('COMMIT');
      committed = true;
      return { kind: 'charged', used: taken.used, usageIds: taken.ids.map(Number) };
    } finally {
      if (!committed) await client.query('ROLLBACK').catch((error: Error) => (broken = error));
      client.release(broken);
    }
  }
}
