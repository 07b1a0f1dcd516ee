// The off-loop reader (reader.ts): SELECTs answered by a thread with its own connection to the file,
// seeing what the service committed; errors come back as rejections; a database in memory, or a
// reader that has stopped, reads on the service's own connection.
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/databases.js';
import { openDatabase, type Database } from './index.js';
import { openSqlite } from './sqlite.js';
import { OffLoopReader } from './reader.js';

describe('the off-loop reader', () => {
  let database: TestDatabase | null = null;
  let db: Database | null = null;
  afterEach(async () => {
    await db?.close();
    await database?.drop();
    db = null;
    database = null;
  });

  const open = async () => {
    database = await createTestDatabase('sqlite');
    db = await openDatabase(database.target, { migrate: true });
    if (db.kind !== 'sqlite') throw new Error('expected SQLite');
    db.sqlite.exec('CREATE TABLE reader_rows (id INTEGER PRIMARY KEY, name TEXT NOT NULL)');
    return db;
  };

  it('answers on a thread of its own, with what the service committed and values bound', async () => {
    const sqlite = await open();
    sqlite.sqlite.prepare('INSERT INTO reader_rows (id, name) VALUES (?, ?), (?, ?)').run(1, 'one', 2, 'two');
    // The service's connection holds the write lock mid-transaction; the reader's read does not wait for it.
    sqlite.sqlite.exec('BEGIN IMMEDIATE');
    sqlite.sqlite.prepare('INSERT INTO reader_rows (id, name) VALUES (?, ?)').run(3, 'uncommitted');
    const rows = await sqlite.reader.read<{ id: number; name: string }>(
      'SELECT id, name FROM reader_rows WHERE id >= ? ORDER BY id',
      [1],
    );
    // The service's connection sees its own uncommitted row; the reader, a connection of its own, does not.
    expect(rows).toEqual([
      { id: 1, name: 'one' },
      { id: 2, name: 'two' },
    ]);
    sqlite.sqlite.exec('COMMIT');
    expect(await sqlite.reader.read('SELECT COUNT(*) AS n FROM reader_rows', [])).toEqual([{ n: 3 }]);
  });

  it("rejects with SQLite's message when a statement fails, and goes on answering", async () => {
    const sqlite = await open();
    await expect(sqlite.reader.read('SELECT nope FROM reader_rows', [])).rejects.toThrow(/no such column: nope/);
    // Read-only: a write is refused, not carried out.
    await expect(sqlite.reader.read("INSERT INTO reader_rows (name) VALUES ('x') RETURNING id", [])).rejects.toThrow(
      /readonly/,
    );
    expect(await sqlite.reader.read('SELECT COUNT(*) AS n FROM reader_rows', [])).toEqual([{ n: 0 }]);
  });

  it("reads on the service's connection for a database in memory, and once stopped", async () => {
    const memory = openSqlite(':memory:');
    memory.exec("CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('here')");
    const inMemory = new OffLoopReader(null, memory);
    expect(await inMemory.read('SELECT v FROM t', [])).toEqual([{ v: 'here' }]);
    memory.close();

    const sqlite = await open();
    sqlite.sqlite.exec('BEGIN IMMEDIATE');
    sqlite.sqlite.prepare("INSERT INTO reader_rows (name) VALUES ('mine')").run();
    await sqlite.reader.stop();
    // Stopped: the service's own connection answers, so its uncommitted row shows.
    expect(await sqlite.reader.read('SELECT name FROM reader_rows', [])).toEqual([{ name: 'mine' }]);
    sqlite.sqlite.exec('COMMIT');
  });
});
