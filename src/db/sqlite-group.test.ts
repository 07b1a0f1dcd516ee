import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type BetterSqlite3 from 'better-sqlite3';
import { openSqlite } from './sqlite.js';
import { SqliteGroup } from './sqlite-group.js';

let dir: string;
let db: BetterSqlite3.Database;
let group: SqliteGroup;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'group-'));
  db = openSqlite(join(dir, 'g.db'));
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)');
  group = new SqliteGroup(db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

it('runs everything queued in one turn in one transaction, each caller getting its own result', async () => {
  const insert = db.prepare('INSERT INTO t (v) VALUES (?) RETURNING id');
  // Another connection sees only committed rows: while the group runs, it must see none of them.
  const observer = openSqlite(join(dir, 'g.db'));
  const count = observer.prepare('SELECT count(*) FROM t').pluck();
  const seenByOthers: number[] = [];
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      group.run(() => {
        seenByOthers.push(count.get() as number);
        return (insert.get(`v${i}`) as { id: number }).id;
      }),
    ),
  );
  expect(results).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  expect(new Set(seenByOthers)).toEqual(new Set([0]));
  expect(count.get()).toBe(50);
  observer.close();
});

it('fails only the statement that failed; the rest of the group commits', async () => {
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  const outcomes = await Promise.allSettled(['a', 'b', 'a', 'c'].map((v) => group.run(() => insert.run(v))));
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
  expect(db.prepare('SELECT v FROM t ORDER BY id').pluck().all()).toEqual(['a', 'b', 'c']);
});

it('waits for a transaction someone else holds open on the connection instead of joining it', async () => {
  db.exec('BEGIN');
  db.prepare("INSERT INTO t (v) VALUES ('held')").run();
  const queued = group.run(() => db.prepare('SELECT count(*) FROM t').pluck().get());
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  db.exec('ROLLBACK');
  expect(await queued).toBe(0);
});

it('fails the whole group, running nothing in autocommit, when an error rolls back the transaction', async () => {
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  const outcomes = await Promise.allSettled([
    group.run(() => insert.run('kept?')),
    group.run(() => {
      db.exec('ROLLBACK'); // what SQLite does by itself on a full disk or an I/O error
      throw new Error('disk I/O error');
    }),
    group.run(() => insert.run('after')),
  ]);
  expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
  expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0);
});

it('reports idle once the queue has drained', async () => {
  const pending = group.run(() => 1);
  const idle = group.idle();
  expect(await pending).toBe(1);
  await idle;
  await group.idle();
});
