// Metered requests refused before any credit was taken (429 allowance used up, 402 no active plan,
// 403 disabled key or account) have no usage row; the dashboard still shows them. They are counted
// in memory per account, UTC day and status, and added to the `refusals` table every few seconds and
// at shutdown, one upsert per counter: a client hammering past its allowance costs no write per
// request. Several processes add to the same rows. A crash loses at most FLUSH_MS of counts (they
// are informational; nothing is billed from them).
import { sql } from 'kysely';
import { DAY } from '../clock.js';
import type { Database } from '../db/index.js';
import type { Admission } from './gate.js';

export const FLUSH_MS = 10_000;

/** The status each refusal of a known caller is answered with. */
const REFUSAL_STATUS = { forbidden: 403, payment_required: 402, exhausted: 429 } as const;

export class RefusalLog {
  private pending = new Map<string, { accountId: string; day: number; status: number; count: number }>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly db: Database) {}

  /** Counts a metered request's admission when it refused a known caller (nothing else is counted). */
  noteRefused(admission: Admission, at: number): void {
    if (admission.kind === 'admitted' || admission.kind === 'unauthenticated') return;
    this.note(admission.principal.account.id, at, REFUSAL_STATUS[admission.kind]);
  }

  /** Counts `count` refused requests of `accountId` at `at` (service clock) answered `status`. */
  note(accountId: string, at: number, status: number, count = 1): void {
    const day = Math.floor(at / DAY);
    const key = `${accountId}|${day}|${status}`;
    const entry = this.pending.get(key);
    if (entry) entry.count += count;
    else this.pending.set(key, { accountId, day, status, count });
  }

  /** Adds the counts so far to the table (after any flush already running); a failed write keeps its counts for the next. */
  flush(): Promise<void> {
    const run = this.flushing
      .catch(() => {})
      .then(async () => {
        const rows = [...this.pending.values()];
        this.pending = new Map();
        for (const [i, r] of rows.entries()) {
          try {
            await this.db.kysely
              .insertInto('refusals')
              .values({ account_id: r.accountId, day: r.day, status: r.status, count: r.count })
              .onConflict((oc) =>
                oc.columns(['account_id', 'day', 'status']).doUpdateSet({ count: sql`refusals.count + ${r.count}` }),
              )
              .execute();
          } catch (error) {
            for (const kept of rows.slice(i)) this.note(kept.accountId, kept.day * DAY, kept.status, kept.count);
            throw error;
          }
        }
      });
    this.flushing = run;
    return run;
  }

  start(onError: (error: unknown) => void): void {
    this.timer ??= setInterval(() => this.flush().catch(onError), FLUSH_MS).unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}

/** Refused requests per UTC day (ISO date) of an account in [from, to). */
export async function refusalsByDay(
  db: Database,
  accountId: string,
  from: number,
  to: number,
): Promise<Map<string, number>> {
  const rows = await db.kysely
    .selectFrom('refusals')
    .select(['day', (eb) => eb.fn.sum<number>('count').as('n')])
    .where('account_id', '=', accountId)
    .where('day', '>=', Math.floor(from / DAY))
    .where('day', '<', Math.ceil(to / DAY))
    .groupBy('day')
    .execute();
  return new Map(rows.map((r) => [new Date(Number(r.day) * DAY).toISOString().slice(0, 10), Number(r.n)]));
}
