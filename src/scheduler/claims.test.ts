// Slots of once-only jobs on a real database, as processes sharing it take them: one at a time on the
// system clock, all of an advance at once on the manual clock.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../../test/helpers/databases.js';
import { HOUR, ManualClock, MINUTE } from '../clock.js';
import { openDatabase, type Database } from '../db/index.js';
import { createLogger } from '../logger.js';
import { createRunClaims } from './claims.js';
import { Scheduler } from './scheduler.js';

const T0 = Date.UTC(2026, 2, 1, 0, 0, 0);
const SLOT = 30 * MINUTE;
const logger = createLogger('silent');

describeEachDatabase('run claims', (kind) => {
  let database: TestDatabase;
  let db: Database;
  beforeEach(async () => {
    database = await createTestDatabase(kind, { migrated: true });
    db = await openDatabase(database.target);
  });
  afterEach(async () => {
    await db.close();
    await database.drop();
  });

  const rows = () => db.kysely.selectFrom('job_runs').selectAll().where('job', '=', 'poll').orderBy('slot').execute();

  it('takes at once the slots no one holds, and records how each ended at its own time, touching no one else’s', async () => {
    const claims = createRunClaims(db);
    // Slot 1 taken one at a time (this process, on the system clock); slot 3 by another process.
    expect(await claims.claim('poll', T0 + SLOT, T0 + SLOT + 5)).toBe(true);
    await db.kysely
      .insertInto('job_runs')
      .values({
        job: 'poll',
        slot: T0 + 3 * SLOT,
        holder: 'other:1',
        started_at: T0 + 3 * SLOT,
        finished_at: null,
        ok: null,
      })
      .execute();
    // More slots than one statement carries.
    const slots = Array.from({ length: 1_200 }, (_, i) => T0 + (i + 1) * SLOT);
    const taken = await claims.claimAll('poll', slots);
    expect(taken.size).toBe(1_198);
    expect(taken.has(T0 + SLOT) || taken.has(T0 + 3 * SLOT)).toBe(false);
    expect(await claims.claimAll('poll', slots)).toEqual(new Set());

    // Slot 3 is passed too, wrongly: another process's row is not this one's to finish.
    await claims.finishAll(
      'poll',
      [...taken, T0 + 3 * SLOT].map((slot) => ({ slot, ok: slot !== T0 + 2 * SLOT })),
    );
    const stored = (await rows()).map((r) => ({
      ...r,
      slot: Number(r.slot),
      started_at: Number(r.started_at),
      finished_at: r.finished_at === null ? null : Number(r.finished_at),
    }));
    expect(stored).toHaveLength(1_200);
    expect(stored.slice(0, 3)).toEqual([
      { job: 'poll', slot: T0 + SLOT, holder: claims.holder, started_at: T0 + SLOT + 5, finished_at: null, ok: null },
      {
        job: 'poll',
        slot: T0 + 2 * SLOT,
        holder: claims.holder,
        started_at: T0 + 2 * SLOT,
        finished_at: T0 + 2 * SLOT,
        ok: 0,
      },
      { job: 'poll', slot: T0 + 3 * SLOT, holder: 'other:1', started_at: T0 + 3 * SLOT, finished_at: null, ok: null },
    ]);
    expect(
      stored
        .slice(3)
        .every((r) => r.holder === claims.holder && r.started_at === r.slot && r.finished_at === r.slot && r.ok === 1),
    ).toBe(true);
  });

  it('runs each slot an advance passes in one of the schedulers racing through it, and records it finished', async () => {
    const calls: string[] = [];
    const [a, b] = [0, 1].map(() => {
      const clock = new ManualClock(T0);
      const claims = createRunClaims(db);
      // The real claims, with each call to the database noted.
      const counted = new Proxy(claims, {
        get: (target, name) => {
          const value = Reflect.get(target, name) as unknown;
          return typeof value === 'function'
            ? (...args: unknown[]) => (calls.push(String(name)), value.apply(target, args))
            : value;
        },
      });
      const scheduler = new Scheduler(clock, logger, clock, counted);
      const ran: number[] = [];
      scheduler.register({ name: 'poll', intervalMs: SLOT, once: true, run: async (at) => void ran.push(at) });
      // Not once-only: runs in both.
      scheduler.register({ name: 'deliver', intervalMs: HOUR, run: async () => {} });
      scheduler.start();
      return { scheduler, ran };
    });
    const [runsA, runsB] = await Promise.all([a!, b!].map(({ scheduler }) => scheduler.advanceTo(T0 + 24 * HOUR)));
    const polls = [...runsA!, ...runsB!].filter((r) => r.job === 'poll');
    expect(polls.filter((r) => !r.elsewhere)).toHaveLength(48);
    expect(polls.filter((r) => r.elsewhere)).toHaveLength(48);
    expect([...a!.ran, ...b!.ran].sort((x, y) => x - y)).toEqual(
      Array.from({ length: 48 }, (_, i) => T0 + (i + 1) * SLOT),
    );
    expect([...runsA!, ...runsB!].filter((r) => r.job === 'deliver')).toHaveLength(48);
    // A claim and a record of the ends per scheduler for the whole day, not two per slot.
    expect(calls.sort()).toEqual(['claimAll', 'claimAll', 'finishAll', 'finishAll']);
    const stored = await rows();
    expect(stored).toHaveLength(48);
    expect(stored.every((r) => Number(r.finished_at) === Number(r.slot) && r.ok === 1)).toBe(true);
    // The next advance goes on where this one stopped.
    await a!.scheduler.advanceTo(T0 + 25 * HOUR);
    expect(a!.ran.filter((at) => at > T0 + 24 * HOUR)).toEqual([T0 + 24 * HOUR + SLOT, T0 + 25 * HOUR]);
    await Promise.all([a!.scheduler.stop(), b!.scheduler.stop()]);
  });
});
