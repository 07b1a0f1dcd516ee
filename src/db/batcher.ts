// Reads asked for during one turn of the event loop become one statement over all their keys (on
// PostgreSQL, where each statement is a round trip and the server's CPU is what a busy process
// spends most on). At most `parallel` statements run at once; asks arriving meanwhile wait and join
// the next one, so under load batches grow instead of round trips (the loop: turn-loop.ts). A failed
// statement fails every ask it carried. Reads only: a batch sees the database as of its statement,
// like a single read.
import { TurnLoop } from './turn-loop.js';

export class TurnBatcher<K, V> {
  private waiting = new Map<K, { resolve: (value: V | undefined) => void; reject: (error: unknown) => void }[]>();
  private readonly loop: TurnLoop;

  constructor(
    /** Answers for the distinct keys of one batch (a key left out answers undefined). */
    private readonly read: (keys: K[]) => Promise<Map<K, V>>,
    parallel = 4,
  ) {
    this.loop = new TurnLoop({ pending: () => this.waiting.size > 0, flush: () => this.flush() }, parallel);
  }

  get(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const callers = this.waiting.get(key);
      if (callers) callers.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      this.loop.wake();
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = new Map();
    try {
      const answers = await this.read([...batch.keys()]);
      for (const [key, callers] of batch) for (const c of callers) c.resolve(answers.get(key));
    } catch (error) {
      for (const callers of batch.values()) for (const c of callers) c.reject(error);
    }
  }
}
