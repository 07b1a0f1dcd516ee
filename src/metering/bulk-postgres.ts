// PostgreSQL: one transaction on a pooled connection. The grant's upsert locks the account window's
// credit row until COMMIT or ROLLBACK, so the check after it sees every earlier request of the account
// committed (READ COMMITTED takes a new snapshot per statement).
import type pg from 'pg';
import { allOrNothing, freshAll, type BulkOutcome, type BulkStore, type PaidWrites } from './bulk.js';
import { isOpenEnded, type CreditAsk, type UsageRow } from './store.js';

const TAKE_ALL = `
  INSERT INTO credit_windows (account_id, window_start, used, last_grant)
  VALUES ($1::text, $2::bigint, $3::integer, $3::integer)
  ON CONFLICT (account_id, window_start) DO UPDATE SET
    used = credit_windows.used + ${allOrNothing('$4::boolean', '$5::integer', '$6::integer')},
    last_grant = ${allOrNothing('$4::boolean', '$5::integer', '$6::integer')}
  RETURNING used, last_grant`;
// Ids drawn in input order (as metering_take_credits draws them), each row overage when its place in
// the window passes the allowance on a billed-overage policy ($9).
const INSERT_USAGE = `
  WITH logged AS (
    SELECT nextval('usage_log_id_seq') AS id, u.*
    FROM unnest($1::bigint[], $2::text[], $3::text[], $4::integer[], $5::text[])
      WITH ORDINALITY AS u(at, key_id, endpoint, status, query, ord)
  ), inserted AS (
    INSERT INTO usage_log (id, at, account_id, key_id, endpoint, status, duration_ms, query, overage, plan_id)
    SELECT id, at, $6::text, key_id, endpoint, status, 0, query,
           CASE WHEN $9::boolean AND $7::integer + ord > $8::integer THEN 1 ELSE 0 END, $10::text
    FROM logged
  )
  SELECT ARRAY(SELECT id FROM logged ORDER BY ord) AS ids`;

export class PostgresBulkStore implements BulkStore {
  constructor(private readonly pool: pg.Pool) {}

  async takeCredits(ask: CreditAsk, usage: UsageRow[], paid: PaidWrites): Promise<BulkOutcome> {
    const n = usage.length;
    const client = await this.pool.connect();
    let broken: Error | undefined;
    let committed = false;
    try {
      await client.query('BEGIN');
      const taken = (
        await client.query<{ used: number; last_grant: number }>(TAKE_ALL, [
          ask.accountId,
          ask.windowStart,
          freshAll(ask, n),
          isOpenEnded(ask),
          ask.included ?? 0,
          n,
        ])
      ).rows[0]!;
      const before = taken.used - taken.last_grant;
      if (taken.last_grant !== n) return { kind: 'exhausted', used: before };
      if (paid.check) {
        const { rows } = await client.query(paid.check.query.sql, paid.check.query.parameters as unknown[]);
        const reason = paid.check.refuse(rows as Record<string, unknown>[]);
        if (reason !== null) return { kind: 'refused', used: before, reason };
      }
      const logged = await client.query<{ ids: (string | number)[] }>(INSERT_USAGE, [
        usage.map((u) => u.at),
        usage.map((u) => u.keyId),
        usage.map((u) => u.endpoint),
        usage.map((u) => u.status),
        usage.map((u) => u.query),
        ask.accountId,
        before,
        ask.included ?? 0,
        ask.overage && ask.included !== null,
        ask.planId,
      ]);
      for (const write of paid.writes) await client.query(write.sql, write.parameters as unknown[]);
      await client.query('COMMIT');
      committed = true;
      return { kind: 'charged', used: taken.used, usageIds: logged.rows[0]!.ids.map(Number) };
    } finally {
      if (!committed) await client.query('ROLLBACK').catch((error: Error) => (broken = error));
      client.release(broken);
    }
  }
}
