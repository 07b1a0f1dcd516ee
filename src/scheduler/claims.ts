// Which process runs a periodic job's slot, when several share one database: the one whose insert of
// (job, slot) into job_runs lands. A unique key decides, on SQLite and PostgreSQL alike, with no lock
// held across the run; a holder that dies mid-run leaves its row unfinished and loses only that slot.
import { hostname } from 'node:os';
import type { Database } from '../db/index.js';

export interface RunClaims {
  /** The name this process records on the slots it takes (host:pid). */
  readonly holder: string;
  /** True when this process takes the job's run at `slot`; false when another process already has. */
  claim(job: string, slot: number, at: number): Promise<boolean>;
  /** Records how the run this process took ended. */
  finish(job: string, slot: number, ok: boolean, at: number): Promise<void>;
  /**
   * The manual clock's way, when an advance knows every slot it will pass: takes those of `slots`
   * no other process has, a few statements in all instead of one per slot, and returns them. Each
   * row starts at its own slot's time, as the run will on the manual clock.
   */
  claimAll(job: string, slots: number[]): Promise<Set<number>>;
  /** Records how runs taken by claimAll ended, each at its own slot's time (the manual clock's). */
  finishAll(job: string, runs: { slot: number; ok: boolean }[]): Promise<void>;
  /** Forgets runs of slots before `before` (a few hundred rows a day: one statement); returns how many. */
  prune(before: number): Promise<number>;
}

class DatabaseRunClaims implements RunClaims {
  readonly holder = `${hostname()}:${process.pid}`;

  constructor(private readonly db: Database) {}

  async claim(job: string, slot: number, at: number): Promise<boolean> {
    const taken = await this.db.kysely
      .insertInto('job_runs')
      .values({ job, slot, holder: this.holder, started_at: at, finished_at: null, ok: null })
      .onConflict((c) => c.columns(['job', 'slot']).doNothing())
      .returning('job')
      .executeTakeFirst();
    return taken !== undefined;
  }

  async finish(job: string, slot: number, ok: boolean, at: number): Promise<void> {
    await this.db.kysely
      .updateTable('job_runs')
      .set({ finished_at: at, ok: ok ? 1 : 0 })
      .where('job', '=', job)
      .where('slot', '=', slot)
      .where('holder', '=', this.holder)
      .execute();
  }

  async claimAll(job: string, slots: number[]): Promise<Set<number>> {
    const taken = new Set<number>();
    for (const part of chunks(slots)) {
      const rows = await this.db.kysely
        .insertInto('job_runs')
        .values(part.map((slot) => ({ job, slot, holder: this.holder, started_at: slot, finished_at: null, ok: null })))
        .onConflict((c) => c.columns(['job', 'slot']).doNothing())
        .returning('slot')
        .execute();
      for (const row of rows) taken.add(Number(row.slot));
    }
    return taken;
  }

  async finishAll(job: string, runs: { slot: number; ok: boolean }[]): Promise<void> {
    for (const ok of [true, false]) {
      for (const part of chunks(runs.filter((r) => r.ok === ok).map((r) => r.slot))) {
        await this.db.kysely
          .updateTable('job_runs')
          .set((eb) => ({ finished_at: eb.ref('slot'), ok: ok ? 1 : 0 }))
          .where('job', '=', job)
          .where('holder', '=', this.holder)
          .where('slot', 'in', part)
          .execute();
      }
    }
  }

  async prune(before: number): Promise<number> {
    const result = await this.db.kysely.deleteFrom('job_runs').where('slot', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** Up to 500 slots a statement: 3,000 parameters, well inside SQLite's and PostgreSQL's limits. */
function chunks<T>(items: T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function createRunClaims(db: Database): RunClaims {
  return new DatabaseRunClaims(db);
}
