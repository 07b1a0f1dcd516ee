// The time the HTTP client (upstream.ts) keeps and waits on: its per-minute budget, the backoff between
// retries, a 429's closure and the breaker's cool-down. Monotonic milliseconds, not the service clock,
// which a manual clock may hold still or move by days. By default real (performance.now() and a timer);
// a test passes a `ManualTimer` and moves it, so no test sleeps for a budget, a backoff or a Retry-After.
// The call's deadline is not kept here: `bounded` (call.ts) aborts the call's signal, which also cuts
// a wait short.
import { ManualClock, type Clock } from '../clock.js';
import { pause } from './call.js';

export interface Timer extends Clock {
  /** Resolves after `ms` on this timer, or rejects with the signal's reason when it aborts first. */
  wait(ms: number, signal: AbortSignal): Promise<void>;
}

/** Real time: performance.now(), and a timer the signal can cut short. */
export const monotonic: Timer = { now: () => performance.now(), wait: pause };

interface Waiter {
  due: number;
  resolve: () => void;
}

/**
 * A timer that moves only when told. A wait ends when `advance` or `set` reaches its end; with
 * `{ skipWaits: true }` every wait moves the timer to its end at once (a retry's backoff, in a test
 * about what the retries answer rather than when).
 */
export class ManualTimer extends ManualClock implements Timer {
  private readonly waiters = new Set<Waiter>();
  private readonly skipWaits: boolean;

  constructor(options: { start?: number; skipWaits?: boolean } = {}) {
    super(options.start ?? 0);
    this.skipWaits = options.skipWaits ?? false;
  }

  /** How many waits have not ended yet. */
  get waiting(): number {
    return this.waiters.size;
  }

  wait(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.skipWaits) {
      this.advance(Math.max(0, ms));
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        due: this.now() + ms,
        resolve: () => {
          signal.removeEventListener('abort', abort);
          resolve();
        },
      };
      const abort = () => {
        this.waiters.delete(waiter);
        reject(signal.reason);
      };
      signal.addEventListener('abort', abort, { once: true });
      this.waiters.add(waiter);
      this.release();
    });
  }

  override advance(ms: number): number {
    const now = super.advance(ms);
    this.release();
    return now;
  }

  override set(to: number | string | Date): number {
    const now = super.set(to);
    this.release();
    return now;
  }

  private release(): void {
    for (const waiter of this.waiters) {
      if (waiter.due <= this.now()) {
        this.waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }
}
