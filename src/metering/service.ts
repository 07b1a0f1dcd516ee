// Metering (docs/metering.md) beyond admission (gate.ts takes the credit): usage rows committed before
// the response leaves, credit reads, the lifetime request count, and every read of the usage log that
// others need (the dashboard's chart, the operator's usage, billing's overage, a batch row's charge):
// no other capability reads usage_log or refusals itself.
import type { Principal } from '../auth/index.js';
import type { Database } from '../db/index.js';
import { chargeAll, type BulkCharge, type BulkStore, type PaidUsage, type PaidWrites } from './bulk.js';
import { refusalsByDay } from './refusals.js';
import type { Charge, MeteringStore, UsageSettlement } from './store.js';
import { billableOverage, chargeOf, lastUsedByKey, usageByDay, type DailyUsage } from './usage.js';

export class MeteringService {
  constructor(
    private readonly store: MeteringStore,
    private readonly db: Database,
    private readonly bulk: BulkStore,
  ) {}

  /**
   * One credit per usage row, all or none, written with `paid` in one transaction (bulk.ts): a
   * request that cannot pay for all of it writes nothing.
   */
  chargeAll(principal: Principal, usage: PaidUsage[], paid: PaidWrites, now: number): Promise<BulkCharge> {
    return chargeAll(this.bulk, principal, usage, paid, now);
  }

  /** Requests per UTC day in [from, to), by status. */
  usageByDay(accountId: string, from: number, to: number): Promise<DailyUsage[]> {
    return usageByDay(this.db, accountId, from, to);
  }

  /** Requests refused before they were metered (no credit, a 429 or 402), per UTC day. */
  refusalsByDay(accountId: string, from: number, to: number): Promise<Map<string, number>> {
    return refusalsByDay(this.db, accountId, from, to);
  }

  /** When each key last made a metered request (epoch ms), for the keys that ever did. */
  lastUsedByKey(keyIds: string[]): Promise<Map<string, number>> {
    return lastUsedByKey(this.db, keyIds);
  }

  /** Overage requests in [from, to) that were answered, per account and plan: what billing invoices. */
  billableOverage(
    from: number,
    to: number,
  ): Promise<{ account_id: string; plan_id: string | null; requests: number }[]> {
    return billableOverage(this.db, from, to);
  }

  /** The usage row a request with exactly this endpoint and query wrote since `since` (a credit taken and not yet recorded). */
  chargeOf(accountId: string, endpoint: string, query: string, since: number): Promise<number | null> {
    return chargeOf(this.db, accountId, endpoint, query, since);
  }

  /** Credits taken so far in the window starting at `windowStart`. */
  usedInWindow(accountId: string, windowStart: number): Promise<number> {
    return this.store.readUsed(accountId, windowStart);
  }

  /** Records the answer actually sent in a charged request's usage row; resolves once it is committed. */
  settleUsage(settlement: UsageSettlement): Promise<void> {
    return this.store.settleUsage(settlement);
  }

  /** Takes back a charge whose answer could not be recorded: its usage row and its credit, together. */
  voidCharge(charge: Charge): Promise<void> {
    return this.store.voidCharge(charge);
  }

  /** Lifetime count of metered requests (credits ever taken) of an account. */
  requestCount(accountId: string): Promise<number> {
    return this.store.lifetimeUsed(accountId);
  }

  /** A write of a metered request's kind that leaves nothing behind; throws when it cannot be written. */
  probeWrite(): Promise<void> {
    return this.store.probeWrite();
  }

  /** Waits until every queued credit and usage row is committed. */
  drain(): Promise<void> {
    return this.store.idle();
  }
}
