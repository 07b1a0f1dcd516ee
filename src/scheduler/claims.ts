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

  async prune(before: number): Promise<number> {
    const result = await this.db.kysely.deleteFrom('job_runs').where('slot', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

export function createRunClaims(db: Database): RunClaims {
  return new DatabaseRunClaims(db);
}
