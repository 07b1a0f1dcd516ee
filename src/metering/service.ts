// Metering (spec 4.6, 7, 8): one credit per metered request, taken at authorisation before any
// work, exact under any concurrency; a usage row for every charged request, stored before the
// response leaves.
import type { Principal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import type { MeteringStore, UsageRow } from './store.js';
import { policyOf, positionOf, windowAt, type CreditPosition } from './window.js';

export type ChargeOutcome =
  | { kind: 'charged'; position: CreditPosition }
  /** Allowance exhausted and no overage: refused, nothing taken. */
  | { kind: 'exhausted'; position: CreditPosition };

export class MeteringService {
  constructor(
    private readonly store: MeteringStore,
    private readonly clock: Clock,
  ) {}

  /** The credit position without taking anything (account call, 402/403 headers). */
  async position(principal: Principal): Promise<CreditPosition> {
    const window = windowAt(principal.account.windowAnchor, this.clock.now());
    const used = await this.usedInWindow(principal.account.id, window.start);
    return positionOf(policyOf(principal), used, window);
  }

  /** Credits taken so far in the window starting at `windowStart`. */
  usedInWindow(accountId: string, windowStart: number): Promise<number> {
    return this.store.readUsed(accountId, windowStart);
  }

  /** Takes one credit, or refuses with 429 semantics when the allowance is spent and overage is off. */
  async charge(principal: Principal): Promise<ChargeOutcome> {
    const policy = policyOf(principal);
    const window = windowAt(principal.account.windowAnchor, this.clock.now());
    const outcome = await this.store.takeCredit({
      accountId: principal.account.id,
      windowStart: window.start,
      included: policy.included,
      overage: policy.overage,
    });
    const position = positionOf(policy, outcome.used, window);
    return outcome.granted ? { kind: 'charged', position } : { kind: 'exhausted', position };
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
