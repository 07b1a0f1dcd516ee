// Periodic jobs (board polls, delivery cycles, …) driven by the service clock. Each job falls due at
// whole multiples of its interval (a 30-minute poll runs at :00 and :30). With the system clock the
// jobs run on real timers; with the manual clock nothing runs until the clock is advanced, and then
// every run that falls due up to the new time happens in time order, each seeing the clock at its
// own due time, before the advance returns. That is how tests and demos replay hours in a moment.
// A job marked `once` runs each slot in one process of all that share the database: the first to
// claim the slot (claims.ts) runs it, the others record it as run elsewhere. An advance of the manual
// clock claims all the slots it will pass before running the first (claimAhead).
import { iso, type Clock, type ManualClock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { RunClaims } from './claims.js';
import type { Job } from '../capability.js';

export type { Job };

export interface JobRun {
  job: string;
  at: string;
  ok: boolean;
  error?: string;
  /** A `once` job whose slot another process sharing the database had already taken: not run here. */
  elsewhere?: boolean;
}

export interface JobState {
  name: string;
  intervalSeconds: number;
  nextRunAt: string;
  lastRunAt: string | null;
  running: boolean;
}

interface Entry {
  job: Job;
  next: number;
  last: number | null;
  running: Promise<void> | null;
  timer: NodeJS.Timeout | null;
}

/** A `once` job's slots claimed before an advance, and how those run so far ended. */
interface Ahead {
  taken: Set<number>;
  ended: { slot: number; ok: boolean }[];
}

/** The first multiple of `interval` after `at`. */
const nextBoundary = (at: number, interval: number) => (Math.floor(at / interval) + 1) * interval;

export class Scheduler {
  private readonly entries: Entry[] = [];
  private started = false;
  /** Aborted by stop(): no run starts after it, and runs in progress are asked to end. */
  private readonly stopping = new AbortController();
  /** Serialises advances: two callers moving the manual clock at once take turns. */
  private advancing: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly manual: ManualClock | null,
    /** Who runs the slots of `once` jobs; null runs them here (one process on its own database). */
    private readonly claims: RunClaims | null = null,
    /** Told of every run as it ends (metrics). */
    private readonly onRun: (run: JobRun) => void = () => {},
  ) {}

  register(job: Job): void {
    if (!(job.intervalMs > 0)) throw new Error(`job ${job.name}: interval must be positive`);
    if (this.entries.some((e) => e.job.name === job.name)) throw new Error(`job ${job.name} registered twice`);
    const entry: Entry = {
      job,
      next: nextBoundary(this.clock.now(), job.intervalMs),
      last: null,
      running: null,
      timer: null,
    };
    this.entries.push(entry);
    if (this.started && !this.manual) this.arm(entry);
  }

  /** With the system clock, arms the timers; with the manual clock, runs happen only on advance. */
  start(): void {
    if (this.started) return;
    this.started = true;
    if (!this.manual) for (const entry of this.entries) this.arm(entry);
  }

  /** Stops the timers, asks runs in progress to end at their next safe point, and waits for them. */
  async stop(): Promise<void> {
    this.stopping.abort();
    for (const entry of this.entries) if (entry.timer) clearTimeout(entry.timer);
    await Promise.allSettled(this.entries.map((e) => e.running));
    await this.advancing.catch(() => {});
  }

  private get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  get isManual(): boolean {
    return this.manual !== null;
  }

  state(): JobState[] {
    return this.entries.map((e) => ({
      name: e.job.name,
      intervalSeconds: e.job.intervalMs / 1000,
      nextRunAt: iso(e.next),
      lastRunAt: e.last === null ? null : iso(e.last),
      running: e.running !== null,
    }));
  }

  /**
   * Moves the manual clock to `target`, running every job that falls due on the way in time order
   * (ties in registration order). Throws when the clock is not manual or `target` lies in the past.
   */
  advanceTo(target: number): Promise<JobRun[]> {
    const manual = this.manual;
    if (!manual) return Promise.reject(new Error('the service runs on the system clock'));
    const work = this.advancing.then(async () => {
      if (target < manual.now()) throw new RangeError('the clock never goes back');
      const runs: JobRun[] = [];
      const ahead = await this.claimAhead(target);
      try {
        for (;;) {
          const due = this.entries
            .filter((e) => e.next <= target)
            .reduce<Entry | null>((first, e) => (first === null || e.next < first.next ? e : first), null);
          if (!due || this.stopped) break;
          manual.set(Math.max(manual.now(), due.next));
          runs.push(await this.runOnce(due, due.next, ahead.get(due.job)));
        }
      } finally {
        await this.finishAhead(ahead);
      }
      manual.set(target);
      return runs;
    });
    this.advancing = work.catch(() => {});
    return work;
  }

  /**
   * An advance knows every slot it will pass: each `once` job's are claimed before the first runs, a
   * statement per 500 slots instead of two per slot (a simulated month is about 3,000 of them). What
   * this changes: a process that dies mid-advance leaves the rest of its claimed slots unrun, where
   * claiming one at a time would have lost one; only the manual clock (tests, demos) advances.
   */
  private async claimAhead(target: number): Promise<Map<Job, Ahead>> {
    const ahead = new Map<Job, Ahead>();
    if (!this.claims) return ahead;
    for (const entry of this.entries) {
      if (!entry.job.once) continue;
      const slots: number[] = [];
      for (let at = entry.next; at <= target; at = nextBoundary(at, entry.job.intervalMs)) slots.push(at);
      if (slots.length > 0)
        ahead.set(entry.job, { taken: await this.claims.claimAll(entry.job.name, slots), ended: [] });
    }
    return ahead;
  }

  private async finishAhead(ahead: Map<Job, Ahead>): Promise<void> {
    for (const [job, { ended }] of ahead) {
      // As with finish(): a lost record only leaves the slots looking unfinished to operators.
      await this.claims
        ?.finishAll(job.name, ended)
        .catch((error: unknown) =>
          this.logger.warn({ err: error, job: job.name }, 'could not record the end of job runs'),
        );
    }
  }

  private async runOnce(entry: Entry, at: number, ahead?: Ahead): Promise<JobRun> {
    entry.next = nextBoundary(at, entry.job.intervalMs);
    entry.last = at;
    const run = this.claimAndRun(entry.job, at, ahead);
    entry.running = run.then(
      () => {},
      () => {},
    );
    let result: JobRun;
    try {
      result = (await run)
        ? { job: entry.job.name, at: iso(at), ok: true }
        : { job: entry.job.name, at: iso(at), ok: true, elsewhere: true };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.logger.error({ err: error, job: entry.job.name, at: iso(at) }, 'periodic job failed');
      result = { job: entry.job.name, at: iso(at), ok: false, error: message };
    } finally {
      entry.running = null;
    }
    this.onRun(result);
    return result;
  }

  /** Runs the job unless another process took the slot; false when it did. */
  private async claimAndRun(job: Job, at: number, ahead?: Ahead): Promise<boolean> {
    const claims = job.once ? this.claims : null;
    if (claims && ahead) {
      if (!ahead.taken.has(at)) return false;
    } else if (claims && !(await claims.claim(job.name, at, this.clock.now()))) {
      return false;
    }
    let ok = false;
    try {
      await job.run(at, this.stopping.signal);
      ok = true;
    } finally {
      // A lost record only leaves the slot looking unfinished to operators; the run itself counts.
      if (ahead) ahead.ended.push({ slot: at, ok });
      else
        await claims
          ?.finish(job.name, at, ok, this.clock.now())
          .catch((error: unknown) =>
            this.logger.warn({ err: error, job: job.name }, 'could not record the end of a job run'),
          );
    }
    return true;
  }

  private arm(entry: Entry): void {
    if (this.stopped) return;
    const wait = Math.max(0, entry.next - this.clock.now());
    entry.timer = setTimeout(() => {
      entry.timer = null;
      if (this.stopped) return;
      // A run still going when the next falls due is not doubled: that slot is skipped.
      const at = entry.next;
      void this.runOnce(entry, at).then(() => {
        entry.next = nextBoundary(Math.max(at, this.clock.now()), entry.job.intervalMs);
        this.arm(entry);
      });
    }, wait);
    entry.timer.unref?.();
  }
}
