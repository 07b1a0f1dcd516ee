// Reads off the event loop. better-sqlite3 runs each statement on the thread that calls it, so a
// read that visits thousands of rows holds every request waiting behind it. The delivery claim is
// such a read: when a cycle first meets 1,000 endpoints it probes each one's queue, 15–130 ms a time,
// a dozen times in the cycle's first seconds (profiled in bench/webhooks.mjs, "failing"). This worker
// thread has a read-only connection of its own to the same file and answers SELECTs there; in WAL mode
// it reads the last committed state and never blocks the service's writer, nor is blocked by it.
// Started on the first read and stopped with the database; a database in memory has no file for a
// second connection, so its reads run on the caller's connection as before (`read` says which).
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import { SQLITE_DRIVER_PATH } from './sqlite-driver.js';

/** Statements the worker keeps prepared, by their text (the callers' texts are fixed, their values bound). */
const PREPARED_LIMIT = 64;

// Runs in the worker (CommonJS, eval'd: the same code works from src/ under tests and from dist/).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
const prepared = new Map();
parentPort.on('message', (message) => {
  if (message === 'stop') {
    db.close();
    parentPort.postMessage('stopped');
    return;
  }
  try {
    let statement = prepared.get(message.sql);
    if (!statement) {
      if (prepared.size >= workerData.preparedLimit) prepared.clear();
      statement = db.prepare(message.sql);
      prepared.set(message.sql, statement);
    }
    parentPort.postMessage({ id: message.id, rows: statement.all(...message.parameters) });
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: String((error && error.message) || error) });
  }
});
`;

type Answer = { id: number; rows?: unknown[]; error?: string };

export class OffLoopReader {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, { resolve: (rows: unknown[]) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private stopped = false;

  /**
   * `path`: the database file (null for a database in memory); `local`: the service's own connection,
   * which answers when there is no file or the reader has stopped.
   */
  constructor(
    private readonly path: string | null,
    private readonly local: BetterSqlite3.Database,
  ) {}

  /** The rows of one SELECT, read on the worker's connection (else on the service's own). */
  read<Row>(sqlText: string, parameters: readonly unknown[]): Promise<Row[]> {
    if (this.path === null || this.stopped)
      return Promise.resolve(this.local.prepare(sqlText).all(...parameters) as Row[]);
    const worker = this.start();
    const id = this.nextId++;
    const answered = new Promise<Row[]>((resolve, reject) =>
      this.waiting.set(id, { resolve: resolve as (rows: unknown[]) => void, reject }),
    );
    // Held open while a caller waits: an idle reader must not keep the process alive on its own.
    worker.ref();
    worker.postMessage({ id, sql: sqlText, parameters });
    return answered;
  }

  /** Closes the worker's connection; reads after this run on the service's connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    const stopped = new Promise<void>((resolve) => {
      worker.on('message', (message) => message === 'stopped' && resolve());
      worker.once('exit', () => resolve());
    });
    worker.ref();
    worker.postMessage('stop');
    await stopped;
    await worker.terminate();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { path: this.path, driver: SQLITE_DRIVER_PATH, preparedLimit: PREPARED_LIMIT },
    });
    worker.on('message', (message: Answer | 'stopped') => {
      if (message === 'stopped') return;
      const waiter = this.waiting.get(message.id);
      if (!waiter) return;
      this.waiting.delete(message.id);
      if (this.waiting.size === 0) worker.unref();
      if (message.error !== undefined) waiter.reject(new Error(message.error));
      else waiter.resolve(message.rows ?? []);
    });
    const fail = (error: Error) => {
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
      if (this.worker === worker) this.worker = null;
    };
    worker.on('error', fail);
    worker.once('exit', (code) => fail(new Error(`the database reader thread exited (code ${code})`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }
}
