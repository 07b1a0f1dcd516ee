import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openDatabase } from './index.js';

it('keeps the WAL bounded from a worker thread while the service connection never checkpoints', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ckpt-'));
  const path = join(dir, 'c.db');
  const errors: string[] = [];
  const db = await openDatabase({ kind: 'sqlite', path, url: `sqlite:${path}` }, { backgroundCheckpoints: true, onBackgroundError: (m) => errors.push(m) });
  try {
    if (db.kind !== 'sqlite') throw new Error('sqlite expected');
    expect(db.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    db.sqlite.exec('CREATE TABLE blob (id INTEGER PRIMARY KEY, data BLOB NOT NULL)');
    const insert = db.sqlite.prepare('INSERT INTO blob (data) VALUES (?)');
    const chunk = Buffer.alloc(64 * 1024, 7);
    const wal = `${path}-wal`;
    let largest = 0;
    // About 24 MB over two seconds (several times the usage log's rate at full load), in group
    // transactions, as the service writes.
    const until = Date.now() + 2000;
    let written = 0;
    while (Date.now() < until) {
      await Promise.all(Array.from({ length: 8 }, () => db.group.run(() => insert.run(chunk))));
      written += 8 * chunk.length;
      if (existsSync(wal)) largest = Math.max(largest, statSync(wal).size);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Without checkpoints the WAL would hold everything written; the worker keeps resetting it. How
    // often it manages to depends on the machine's load (a third of what was written on a quiet one,
    // 42 % with two test files running beside it on two busy cores): the bound is that it did.
    expect(largest).toBeLessThan(written * 0.6);
    expect(errors).toEqual([]);
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

it('reports the WAL size to the service thread; a catch-up resolves once every frame is in the database file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ckpt-'));
  const path = join(dir, 'c.db');
  const db = await openDatabase({ kind: 'sqlite', path, url: `sqlite:${path}` }, { backgroundCheckpoints: true });
  try {
    if (db.kind !== 'sqlite' || !db.checkpointer) throw new Error('sqlite with a checkpointer expected');
    const checkpointer = db.checkpointer;
    db.sqlite.exec('CREATE TABLE blob (id INTEGER PRIMARY KEY, data BLOB NOT NULL)');
    const insert = db.sqlite.prepare('INSERT INTO blob (data) VALUES (?)');
    const until = async (test: () => boolean) => {
      for (let i = 0; i < 400 && !test(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
      return test();
    };
    // 8 MB in one transaction: the worker's next pass reports about 2,000 frames.
    await db.group.run(() => {
      for (let i = 0; i < 128; i++) insert.run(Buffer.alloc(64 * 1024, i));
    });
    expect(await until(() => checkpointer.walFrames > 1500)).toBe(true);

    await checkpointer.catchUp();
    expect(statSync(path).size).toBeGreaterThan(8 * 1024 * 1024);
    await db.group.run(() => insert.run(Buffer.alloc(100, 1)));
    // The write after the catch-up began a new WAL: a few frames, not 2,000 more.
    expect(await until(() => checkpointer.walFrames > 0 && checkpointer.walFrames < 10)).toBe(true);
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  // Once the worker is gone a catch-up has nothing to wait for.
  if (db.kind === 'sqlite') await expect(db.checkpointer!.catchUp()).resolves.toBeUndefined();
});
