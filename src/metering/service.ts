// Metering (spec 4.6, 7, 8) beyond admission (gate.ts takes the credit): usage rows committed before
// the response leaves, credit reads and the lifetime request count.
import type { Charge, MeteringStore, UsageSettlement } from './store.js';

export class MeteringService {
  constructor(private readonly store: MeteringStore) {}

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
