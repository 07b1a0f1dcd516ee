// The sliding one-minute limit on a provider's requests (FLIGHTSTATUS_<NAME>_REQUESTS_PER_MINUTE), kept
// by its HTTP client (upstream.ts): a call that would exceed it waits for a slot within its deadline,
// else is refused unsent; a background call (a batch's) leaves a reserve of the minute to the others.
import type { ProviderError } from './types.js';
import type { Timer } from './timer.js';
import type { CallWindow } from './upstream.js';

/**
 * The share of each minute's budget a background call (a batch's) never takes: a quarter, kept for
 * single lookups and the board poll, so a batch never makes them wait on the budget.
 */
export const backgroundReserve = (requestsPerMinute: number): number => Math.floor(requestsPerMinute / 4);

export class MinuteBudget {
  /** When each request of the last minute was sent, oldest first from `head` (a queue without shift()). */
  private sent: number[] = [];
  private head = 0;

  constructor(
    private readonly provider: string,
    private readonly requestsPerMinute: number,
    private readonly clock: Timer,
  ) {}

  /** Waits for room under the per-minute limit; an error when there is none before the deadline. */
  async slot(call: CallWindow): Promise<ProviderError | null> {
    for (;;) {
      const now = this.clock.now();
      while (this.head < this.sent.length && this.sent[this.head]! <= now - 60_000) this.head++;
      if (this.head > 1024 && this.head * 2 > this.sent.length) {
        this.sent = this.sent.slice(this.head);
        this.head = 0;
      }
      // A background call (a batch's) leaves BACKGROUND_RESERVE of the minute to the others.
      const limit = call.background
        ? Math.max(1, this.requestsPerMinute - backgroundReserve(this.requestsPerMinute))
        : this.requestsPerMinute;
      if (this.sent.length - this.head < limit) {
        this.sent.push(now);
        return null;
      }
      // When the minute's count falls below the limit: the oldest requests beyond it age out.
      const free = this.sent[this.head + (this.sent.length - this.head - limit)]! + 60_000;
      if (free >= call.deadlineAt) {
        return {
          kind: 'rate_limited',
          message: `${this.provider}: ${this.requestsPerMinute} requests a minute reached (FLIGHTSTATUS_${this.provider.toUpperCase()}_REQUESTS_PER_MINUTE)`,
        };
      }
      await this.clock.wait(free - now + 1, call.signal);
    }
  }
}
