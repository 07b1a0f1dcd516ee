import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';
import type { Checkpointer } from './checkpointer.js';
import { openDatabase } from './index.js';

/** Resolves at the worker's next report of the WAL's size. */
const nextReport = (checkpointer: Checkpointer) =>
  new Promise<void>((resolve) => {
    const off = checkpointer.onWalFrames(() => (off(), resolve()));
  });

/** Resolves at the worker's first report that passes `test` (at once when its last one does). */
const reported = (checkpointer: Checkpointer, test: (frames: number) => boolean) =>
  new Promise<void>((resolve) => {
    if (test(checkpointer.walFrames)) return resolve();
    const off = checkpointer.onWalFrames((frames) => test(frames) && (off(), resolve()));
  });

it('keeps the WAL bounded from a worker thread while the service connection never checkpoints', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ckpt-'));
  const path = join(dir, 'c.db');
  const errors: string[] = [];
  const db = await openDatabase(
    { kind: 'sqlite', path, url: `sqlite:${path}` },
    { backgroundCheckpoints: true, onBackgroundError: (m) => errors.push(m) },
  );
  try {
    if (db.kind !== 'sqlite' || !db.checkpointer) throw new Error('sqlite with a checkpointer expected');
    expect(db.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    db.sqlite.exec('CREATE TABLE blob (id INTEGER PRIMARY KEY, data BLOB NOT NULL)');
    const insert = db.sqlite.prepare('INSERT INTO blob (data) VALUES (?)');
    const chunk = Buffer.alloc(64 * 1024, 7);
    const wal = `${path}-wal`;
    let largest = 0;
    // About 24 MB in 12 group transactions (several times the usage log's rate at full load), as the
    // service writes. Each waits for the worker's pass over the one before (its report of the WAL's
    // size; at most its quiet interval, 250 ms): the worker has its chance after every write however busy the machine, where a writer
    // timed by the wall clock let a starved worker fall behind. Rounds of 32 and 31 chunks in turn, so
    // each round leaves the WAL a size the worker has not reported yet, and it reports again.
    let written = 0;
    for (let round = 0; round < 12; round++) {
      const passed = nextReport(db.checkpointer!);
      const chunks = round % 2 === 0 ? 32 : 31;
      await Promise.all(Array.from({ length: chunks }, () => db.group.run(() => insert.run(chunk))));
      written += chunks * chunk.length;
      await passed;
      if (existsSync(wal)) largest = Math.max(largest, statSync(wal).size);
    }
    // Without checkpoints the WAL would hold everything written; the worker, given its turn, starts
    // it over at the next write, so it never holds more than a few rounds.
    expect(largest).toBeLessThan(written * 0.3);
    expect(errors).toEqual([]);
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

it('reports the WAL size to the service thread; a catch-up resolves once every frame is in the database file, and a long writer waits for one past 4,096 frames', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ckpt-'));
  const path = join(dir, 'c.db');
  const db = await openDatabase({ kind: 'sqlite', path, url: `sqlite:${path}` }, { backgroundCheckpoints: true });
  try {
    if (db.kind !== 'sqlite' || !db.checkpointer) throw new Error('sqlite with a checkpointer expected');
    const checkpointer = db.checkpointer;
    db.sqlite.exec('CREATE TABLE blob (id INTEGER PRIMARY KEY, data BLOB NOT NULL)');
    const insert = db.sqlite.prepare('INSERT INTO blob (data) VALUES (?)');
    // 8 MB in one transaction: the worker's next pass reports about 2,000 frames.
    await db.group.run(() => {
      for (let i = 0; i < 128; i++) insert.run(Buffer.alloc(64 * 1024, i));
    });
    await reported(checkpointer, (frames) => frames > 1500);

    await checkpointer.catchUp();
    expect(statSync(path).size).toBeGreaterThan(8 * 1024 * 1024);
    await db.group.run(() => insert.run(Buffer.alloc(100, 1)));
    // The write after the catch-up began a new WAL: a few frames, not 2,000 more.
    await reported(checkpointer, (frames) => frames > 0 && frames < 10);

    // A long writer (board pass, fan-out) below 4,096 frames goes on at once; past them it waits for
    // a catch-up, so that its next write starts the WAL over. 20 MB: about 5,000 frames.
    const catchUps = vi.spyOn(checkpointer, 'catchUp');
    await checkpointer.beforeLongWrite();
    expect(catchUps).not.toHaveBeenCalled();
    await db.group.run(() => {
      for (let i = 0; i < 320; i++) insert.run(Buffer.alloc(64 * 1024, i));
    });
    await reported(checkpointer, (frames) => frames > 4096);
    await checkpointer.beforeLongWrite();
    expect(catchUps).toHaveBeenCalledTimes(1);
    expect(statSync(path).size).toBeGreaterThan(28 * 1024 * 1024);
    await db.group.run(() => insert.run(Buffer.alloc(100, 1)));
    await reported(checkpointer, (frames) => frames > 0 && frames < 10);
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  // Once the worker is gone a catch-up has nothing to wait for.
  if (db.kind === 'sqlite') await expect(db.checkpointer!.catchUp()).resolves.toBeUndefined();
});
