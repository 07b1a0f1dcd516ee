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

// Runs in the worker (CommonJS, eval'd: the same code works from src/ under tests and from dist/).
// The WAL starts over only when a writer begins right after a checkpoint that copied every frame,
// and frames the writer appends during a checkpoint are not copied by it. So while the WAL grows the
// worker checkpoints every few milliseconds (each copying only a few frames, and some finishing
// between two commits); when nothing was written since the last pass it waits the full interval.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
const checkpoint = () => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    if (result.log > workerData.truncateAfterPages) db.pragma('wal_checkpoint(TRUNCATE)');
    return result.log;
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
    return -1;
  }
};
let previous = 0;
let timer;
const loop = () => {
  const frames = checkpoint();
  const writing = frames > 0 && frames !== previous;
  previous = frames;
  timer = setTimeout(loop, writing ? workerData.activeIntervalMs : workerData.intervalMs);
};
timer = setTimeout(loop, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearTimeout(timer);
  checkpoint();
  db.close();
  parentPort.postMessage('stopped');
});
`;

export class Checkpointer {
  private constructor(private readonly worker: Worker) {}

  /** Starts checkpointing `path`; problems are reported through `onError` and never stop the service. */
  static start(path: string, onError: (message: string) => void): Checkpointer {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { path, driver: SQLITE_DRIVER_PATH, intervalMs: INTERVAL_MS, activeIntervalMs: ACTIVE_INTERVAL_MS, truncateAfterPages: TRUNCATE_AFTER_PAGES },
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
