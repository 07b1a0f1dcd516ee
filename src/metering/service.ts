// Metering (spec 4.6, 7, 8) beyond admission (gate.ts takes the credit): usage rows committed before
// the response leaves, credit reads and the lifetime request count.
import type { MeteringStore, UsageRow } from './store.js';

export class MeteringService {
  constructor(private readonly store: MeteringStore) {}

  /** Credits taken so far in the window starting at `windowStart`. */
  usedInWindow(accountId: string, windowStart: number): Promise<number> {
    return this.store.readUsed(accountId, windowStart);
  }

  /** Appends a usage row; resolves once it is committed. */
  recordUsage(row: UsageRow): Promise<void> {
    return this.store.writeUsage(row);
  }

  /** Lifetime count of metered requests (credits ever taken) of an account. */
  requestCount(accountId: string): Promise<number> {
    return this.store.lifetimeUsed(accountId);
  }

  /** Waits until every queued credit and usage row is committed. */
  drain(): Promise<void> {
    return this.store.idle();
  }
}
