// The budgets of following (docs/watches.md, "Followed through the providers"): provider requests
// made for following, counted per clock hour globally and per account in follow_requests, so every
// process on the database shares them. A question is asked only while the hour's global count and
// one of the flight's accounts' counts are under their limits; its requests are then added to both.
import { sql } from 'kysely';
import { HOUR } from '../clock.js';
import type { Database } from '../db/index.js';

export const GLOBAL_SCOPE = '*';

export const hourOf = (at: number): number => Math.floor(at / HOUR) * HOUR;

export class FollowBudget {
  constructor(
    private readonly db: Database,
    private readonly limits: { requestsPerHour: number; accountRequestsPerHour: number },
  ) {}

  /**
   * The account (of `accounts`, in order) whose budget pays for the next question at `at`; null when
   * the global budget or every one of them is spent this hour.
   */
  async payer(accounts: readonly string[], at: number): Promise<string | null> {
    const hour = hourOf(at);
    const rows = await this.db.kysely
      .selectFrom('follow_requests')
      .select(['scope', 'requests'])
      .where('hour', '=', hour)
      .where('scope', 'in', [GLOBAL_SCOPE, ...accounts])
      .execute();
    const used = new Map(rows.map((r) => [r.scope, Number(r.requests)]));
    if ((used.get(GLOBAL_SCOPE) ?? 0) >= this.limits.requestsPerHour) return null;
    return accounts.find((a) => (used.get(a) ?? 0) < this.limits.accountRequestsPerHour) ?? null;
  }

  /** Adds the requests a question made to the hour's global count and the paying account's. */
  async spend(account: string, at: number, requests: number): Promise<void> {
    if (requests <= 0) return;
    const hour = hourOf(at);
    for (const scope of [GLOBAL_SCOPE, account])
      await this.db.kysely
        .insertInto('follow_requests')
        .values({ scope, hour, requests })
        .onConflict((oc) =>
          oc.columns(['scope', 'hour']).doUpdateSet({ requests: sql`follow_requests.requests + ${requests}` }),
        )
        .execute();
  }

  /** The hour's requests (`*` for all accounts). */
  async used(scope: string, at: number): Promise<number> {
    const row = await this.db.kysely
      .selectFrom('follow_requests')
      .select('requests')
      .where('scope', '=', scope)
      .where('hour', '=', hourOf(at))
      .executeTakeFirst();
    return Number(row?.requests ?? 0);
  }

  /** Forgets the counts of hours before `before`. */
  async prune(before: number): Promise<void> {
    await this.db.kysely.deleteFrom('follow_requests').where('hour', '<', hourOf(before)).execute();
  }
}
