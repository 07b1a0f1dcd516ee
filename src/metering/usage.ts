// Reading the usage log: requests per UTC day for an account (operator API and CLI), and the
// overage that billing invoices.
import { sql } from 'kysely';
import { DAY } from '../clock.js';
import type { Database } from '../db/index.js';

export interface DailyUsage {
  date: string;
  requests: number;
  /** Requests per HTTP status, e.g. {"200": 10, "400": 1}. */
  byStatus: Record<string, number>;
}

export async function usageByDay(db: Database, accountId: string, from: number, to: number): Promise<DailyUsage[]> {
  // A literal, not a parameter: PostgreSQL must see the same expression in SELECT and GROUP BY.
  const day = sql<number>`(${sql.ref('at')} / ${sql.lit(DAY)})`;
  const rows = await db.kysely
    .selectFrom('usage_log')
    .select([day.as('day'), 'status', (eb) => eb.fn.countAll<number>().as('requests')])
    .where('account_id', '=', accountId)
    .where('at', '>=', from)
    .where('at', '<', to)
    .groupBy([day, 'status'])
    .execute();
  const days = new Map<number, DailyUsage>();
  for (const row of rows) {
    const index = Math.floor(Number(row.day));
    let entry = days.get(index);
    if (!entry) {
      entry = { date: new Date(index * DAY).toISOString().slice(0, 10), requests: 0, byStatus: {} };
      days.set(index, entry);
    }
    entry.requests += Number(row.requests);
    entry.byStatus[String(row.status)] = (entry.byStatus[String(row.status)] ?? 0) + Number(row.requests);
  }
  return [...days.entries()].sort(([a], [b]) => a - b).map(([, entry]) => entry);
}

/** When each key last made a metered request (epoch ms), for the keys that ever did. */
export async function lastUsedByKey(db: Database, keyIds: string[]): Promise<Map<string, number>> {
  if (keyIds.length === 0) return new Map();
  const rows = await db.kysely
    .selectFrom('usage_log')
    .select(['key_id', (eb) => eb.fn.max<number>('at').as('last')])
    .where('key_id', 'in', keyIds)
    .groupBy('key_id')
    .execute();
  return new Map(rows.map((row) => [row.key_id, Number(row.last)]));
}

/**
 * Overage requests in [from, to) that the service answered (a 5xx, or no answer at all, is not
 * billed), per account and plan, in account order: what billing invoices at the end of a month.
 */
export function billableOverage(
  db: Database,
  from: number,
  to: number,
): Promise<{ account_id: string; plan_id: string | null; requests: number }[]> {
  return db.kysely
    .selectFrom('usage_log')
    .select(['account_id', 'plan_id', (eb) => eb.fn.countAll<number>().as('requests')])
    .where('overage', '=', 1)
    .where('at', '>=', from)
    .where('at', '<', to)
    .where('status', '<', 500)
    .where('plan_id', 'is not', null)
    .groupBy(['account_id', 'plan_id'])
    .orderBy('account_id')
    .orderBy('plan_id')
    .execute();
}

/**
 * The usage row a caller's request with exactly this endpoint and query wrote since `since`, if any:
 * how work that took a credit and stopped before recording it (a batch row whose worker was killed)
 * finds that credit again instead of taking a second one.
 */
export async function chargeOf(
  db: Database,
  accountId: string,
  endpoint: string,
  query: string,
  since: number,
): Promise<number | null> {
  const row = await chargeQuery(db, accountId, endpoint, query, since).executeTakeFirst();
  return row ? Number(row.id) : null;
}

/**
 * chargeOf's statement. The batches' usage rows (endpoint `POST /api/v1/batches`, the batch and row in
 * the query) are found through the partial index usage_log_batch_row (migration 0022): one index
 * entry, however many usage rows the account has. The endpoint is written as a literal (it is the
 * caller's constant, never a client's text), since SQLite uses a partial index only for a statement
 * that says its condition in literals; another endpoint is found through usage_log_account_at.
 */
export function chargeQuery(db: Database, accountId: string, endpoint: string, query: string, since: number) {
  return db.kysely
    .selectFrom('usage_log')
    .select('id')
    .where('account_id', '=', accountId)
    .where('query', '=', query)
    .where('endpoint', '=', sql.lit(endpoint))
    .where('at', '>=', since)
    .orderBy('id')
    .limit(1);
}
