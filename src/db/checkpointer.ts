// WAL checkpoints off the event loop. SQLite normally checkpoints inside the COMMIT that pushes the
// WAL past 1000 pages: it copies those pages into the database file and fsyncs, on the thread that
// committed, which here is the thread serving requests. Measured under load: the metered request's
// p99 went from 9 ms to 6–7 ms with those checkpoints moved away. So the service's connection turns
// automatic checkpoints off and this worker thread, with its own connection to the same file, runs
// PASSIVE checkpoints, which never block writers or readers.
import { SQLITE_DRIVER_PATH } from './sqlite-driver.js';
import { Worker } from 'node:worker_threads';

/** How often the worker checkpoints while the WAL is quiet, and while it grows. */
const INTERVAL_MS = 250;
const ACTIVE_INTERVAL_MS = 5;
/**
 * A PASSIVE checkpoint cannot reset a WAL that writers keep appending to. Past this many pages
 * (64 MB with 4 KB pages) the worker runs one TRUNCATE checkpoint, which briefly waits for writers,
 * to bound the file.
 */
const TRUNCATE_AFTER_PAGES = 16_384;

/**
 * Past this many WAL frames (16 MB with 4 KB pages) a long writer waits for a catch-up before its next
 * transaction (`beforeLongWrite`), so that its write starts the WAL over. Without that wait the board
 * pass and the fan-out outrun the PASSIVE checkpoints, the WAL grows to TRUNCATE_AFTER_PAGES, and that
 * checkpoint holds every writer, requests included: measured under bench/watches-load.mjs, a request's
 * `BEGIN IMMEDIATE` waited 55–106 ms (SQLite's busy-handler sleeps) each time the WAL was past 64 MB.
 */
const LONG_WRITER_FRAMES = 4096;

/** How long one catch-up (see `catchUp`) may keep checkpointing before it answers anyway. */
const CATCH_UP_MS = 2000;

// Runs in the worker (CommonJS, eval'd: the same code works from src/ under tests and from dist/).
// The WAL starts over only when a writer begins right after a checkpoint that copied every frame,
// and frames the writer appends during a checkpoint are not copied by it. So while the WAL grows the
// worker checkpoints every few milliseconds (each copying only a few frames, and some finishing
// between two commits); when nothing was written since the last pass it waits the full interval.
// After each pass it tells the main thread how many frames the WAL holds, when that changed; a
// catch-up request checkpoints back to back until every frame is copied.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
let reported = -1;
const checkpoint = () => {
  try {
    let [result] = db.pragma('wal_checkpoint(PASSIVE)');
    if (result.log > workerData.truncateAfterPages) [result] = db.pragma('wal_checkpoint(TRUNCATE)');
    if (result.log !== reported) {
      reported = result.log;
      parentPort.postMessage({ log: result.log });
    }
    return result;
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
    return null;
  }
};
let previous = 0;
let timer;
const loop = () => {
  const result = checkpoint();
  const frames = result ? result.log : -1;
  const writing = frames > 0 && frames !== previous;
  previous = frames;
  timer = setTimeout(loop, writing ? workerData.activeIntervalMs : workerData.intervalMs);
};
timer = setTimeout(loop, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message && typeof message.catchUp === 'number') {
    const deadline = Date.now() + workerData.catchUpMs;
    let result;
    do result = checkpoint();
    while (result && result.checkpointed < result.log && Date.now() < deadline);
    parentPort.postMessage({ caughtUp: message.catchUp });
    return;
  }
  if (message !== 'stop') return;
  clearTimeout(timer);
  checkpoint();
  db.close();
  parentPort.postMessage('stopped');
});
`;

export class Checkpointer {
  private log = 0;
  private readonly reports = new Set<(frames: number) => void>();
  private readonly waiting = new Map<number, () => void>();
  private nextRequest = 0;
  private exited = false;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (message: unknown) => {
      if (typeof message !== 'object' || !message) return;
      if ('log' in message) {
        this.log = Number(message.log);
        for (const listener of this.reports) listener(this.log);
      } else if ('caughtUp' in message) this.settle(Number(message.caughtUp));
    });
    worker.once('exit', () => {
      this.exited = true;
      for (const id of [...this.waiting.keys()]) this.settle(id);
    });
  }

  /**
   * The frames in the WAL as of the worker's last pass. Not "frames left to copy": the worker's
   * passes often copy every frame between two commits, yet the WAL starts over only if the next
   * writer begins while no checkpoint runs, which a worker checkpointing every few milliseconds
   * beside a busy writer seldom allows; the WAL then keeps growing.
   */
  get walFrames(): number {
    return this.log;
  }

  /** Calls `listener` with each WAL size the worker reports (as `walFrames` then reads); returns the unsubscribe. */
  onWalFrames(listener: (frames: number) => void): () => void {
    this.reports.add(listener);
    return () => this.reports.delete(listener);
  }

  /**
   * A long writer (the board pass's chunks, the fan-out's) calls this before each of its
   * transactions: past LONG_WRITER_FRAMES it waits for a catch-up, else it goes on at once.
   */
  async beforeLongWrite(): Promise<void> {
    if (this.log > LONG_WRITER_FRAMES) await this.catchUp();
  }

  /**
   * Resolves once a checkpoint has copied every frame of the WAL (or after CATCH_UP_MS). A long
   * writer waits for this between its transactions when the WAL grows (`beforeLongWrite`): the
   * event loop stays free meanwhile, and the next write starts the WAL over, where otherwise the WAL
   * would grow until the TRUNCATE checkpoint, which blocks every writer while it copies.
   */
  catchUp(): Promise<void> {
    if (this.exited) return Promise.resolve();
    const id = this.nextRequest++;
    const answered = new Promise<void>((resolve) => this.waiting.set(id, resolve));
    // Held open while a caller waits: an unref'd worker would let the process exit meanwhile.
    this.worker.ref();
    this.worker.postMessage({ catchUp: id });
    return answered;
  }

  private settle(id: number): void {
    const resolve = this.waiting.get(id);
    if (!resolve) return;
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.worker.unref();
    resolve();
  }

  /** Starts checkpointing `path`; problems are reported through `onError` and never stop the service. */
  static start(path: string, onError: (message: string) => void): Checkpointer {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        path,
        driver: SQLITE_DRIVER_PATH,
        intervalMs: INTERVAL_MS,
        activeIntervalMs: ACTIVE_INTERVAL_MS,
        truncateAfterPages: TRUNCATE_AFTER_PAGES,
        catchUpMs: CATCH_UP_MS,
      },
    });
    worker.on('message', (message: unknown) => {
      if (typeof message === 'object' && message && 'error' in message) onError(String(message.error));
    });
    worker.on('error', (error) => onError(error.message));
    // Never keep the process alive on its own account.
    worker.unref();
    return new Checkpointer(worker);
  }

  /** A last checkpoint, then the worker's connection closes. */
  async stop(): Promise<void> {
    const stopped = new Promise<void>((resolve) => {
      this.worker.on('message', (message) => message === 'stopped' && resolve());
      this.worker.once('exit', () => resolve());
    });
    // Held open until the worker answers: an unref'd worker would let the process exit mid-stop.
    this.worker.ref();
    this.worker.postMessage('stop');
    await stopped;
    await this.worker.terminate();
  }
}
