// The micro-batching loop shared by the SQLite group transaction (sqlite-group.ts), the batched
// PostgreSQL reads (batcher.ts) and metering's PostgreSQL group commit (metering/group-commit.ts):
// work queued during one turn of the event loop is flushed together on the next `setImmediate`
// (after the I/O phase, so every request parsed in this turn joins), at most `parallel` flushes at
// once; work queued meanwhile waits for the next flush, so under load batches grow instead of
// statements. Each owner keeps its own queue and what one flush does with it; this is only when.
// A synchronous flush (SQLite) runs to its end inside the turn, with no promise in between.

export interface TurnWork {
  /** Whether anything waits for a flush. */
  pending(): boolean;
  /** Takes what waits and writes or reads it; a rejection is the owner's to hand to its callers. */
  flush(): void | Promise<void>;
}

export class TurnLoop {
  private scheduled = false;
  private running = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly work: TurnWork,
    /** Flushes in flight at once (a synchronous flush is never in flight across turns). */
    private readonly parallel = 1,
  ) {}

  /** Call after queueing: schedules a flush on the next turn unless one is scheduled or too many run. */
  wake(): void {
    if (this.scheduled || this.running >= this.parallel || !this.work.pending()) return;
    this.scheduled = true;
    setImmediate(this.turn);
  }

  /** Resolves once nothing waits and no flush runs. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.running === 0 && !this.work.pending();
  }

  private readonly turn = (): void => {
    this.scheduled = false;
    this.running++;
    let flushed: void | Promise<void>;
    try {
      flushed = this.work.flush();
    } catch (error) {
      this.done();
      throw error;
    }
    if (flushed instanceof Promise) flushed.then(this.done, this.done);
    else this.done();
  };

  private readonly done = (): void => {
    this.running--;
    if (this.work.pending()) this.wake();
    else if (this.isIdle()) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  };
}
