// Background work waits for the requests in flight between its steps. It (the board pass and its
// writes, the fan-out, the delivery worker, the watches' settle and follow runs) gives the event loop
// back between its steps with `backgroundTurn()`. While this process is answering a request (from
// its start until its response or its connection closes), the step also waits until it is not,
// for at most BACKGROUND_WAIT_MS: a request takes several turns (its key, its credit, its reads, each
// a round trip on PostgreSQL, its answer), and without the wait each of them could queue behind one
// more background step (docs/performance.md, "Watches under load"). The wait is earned back: after
// waiting, background work runs at least as long again before it waits again, so that requests
// without end (a flood, a closed loop) take half the loop from it, never all of it.
//
// Performance.now(), not the service clock: this is how long the process itself waits, in real time,
// whatever the manual clock says (as providers/timer.ts).
import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long one background step waits for the requests in flight to be answered. */
const BACKGROUND_WAIT_MS = 20;

/** A response that tells when it is done: Node's ServerResponse emits 'close' once sent, or once its client went away. */
export interface Answer {
  /** Already closed (its client went away before the request was counted): 'close' will not come again. */
  readonly closed?: boolean;
  once(event: 'close', listener: () => void): unknown;
}

/**
 * The connection the request came on: its close ends the request too. A request pipelined behind
 * another on a connection that closes (the server shutting down, the client gone) never gets its
 * response's 'close', and counted for ever it would hold every background step to its bound.
 */
export interface Connection {
  readonly destroyed?: boolean;
  once(event: 'close', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

export class Foreground {
  private answering = 0;
  private waiting = new Set<() => void>();
  /** Until when background work runs without waiting: as long as its last wait, after that wait. */
  private earnedUntil = 0;

  started(answer: Answer, connection?: Connection | null): void {
    if (answer.closed || connection?.destroyed) return;
    this.answering++;
    let answered = false;
    const end = (): void => {
      if (answered) return;
      answered = true;
      connection?.off('close', end);
      if (--this.answering > 0) return;
      for (const wake of [...this.waiting]) wake();
    };
    answer.once('close', end);
    connection?.once('close', end);
  }

  get requests(): number {
    return this.answering;
  }

  async turn(maxWaitMs: number): Promise<void> {
    await nextTurn();
    if (this.answering === 0 || performance.now() < this.earnedUntil) return;
    const began = performance.now();
    await new Promise<void>((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.waiting.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, maxWaitMs);
      this.waiting.add(wake);
    });
    const now = performance.now();
    this.earnedUntil = now + (now - began);
  }
}

const foreground = new Foreground();

/** A request is being answered until its response or its connection closes (the HTTP server calls this for each: http/server.ts). */
export function requestStarted(answer: Answer, connection?: Connection | null): void {
  foreground.started(answer, connection);
}

/** Requests this process is answering now. */
export function requestsAnswering(): number {
  return foreground.requests;
}

/**
 * A turn of the event loop for background work, between two of its steps (never inside a transaction:
 * a request may be waiting for what it holds); while requests are being answered, until they are, for
 * at most `maxWaitMs`, unless background work has not yet run as long as it last waited.
 */
export function backgroundTurn(maxWaitMs = BACKGROUND_WAIT_MS): Promise<void> {
  return foreground.turn(maxWaitMs);
}
