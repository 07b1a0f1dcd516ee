import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SQLITE_DRIVER, SQLITE_DRIVER_PATH } from './sqlite-driver.js';

const require = createRequire(import.meta.url);
/** The built module (test/global-setup.ts builds dist/ before the tests), as the service loads it. */
const BUILT_DRIVER = new URL('../../dist/db/sqlite-driver.js', import.meta.url).href;
const major = Number(process.versions.node.split('.')[0]);

/** The package.json above the resolved entry point. */
function driverVersion(): string {
  let dir = dirname(SQLITE_DRIVER_PATH);
  while (!require('node:fs').existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return (require(join(dir, 'package.json')) as { version: string }).version;
}

describe('the SQLite driver', () => {
  it(`is better-sqlite3 ${major >= 22 ? '13 (Node-API)' : '12'} on Node ${major}`, () => {
    expect(SQLITE_DRIVER).toBe(major >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3');
    expect(driverVersion().split('.')[0]).toBe(major >= 22 ? '13' : '12');
  });

  it('survives the garbage collector finalising hundreds of thousands of statements', () => {
    // better-sqlite3 12 built against Node 24.19+ headers aborts here (SIGABRT) on the first
    // collection that finalises a statement outside a JavaScript context.
    const script = `
      const { Database } = await import(${JSON.stringify(BUILT_DRIVER)});
      const db = new Database(':memory:');
      for (let i = 0; i < 200000; i++) db.prepare('SELECT ' + (i % 97) + ' AS x').get();
      globalThis.gc();
      await new Promise((resolve) => setTimeout(resolve, 200));
      globalThis.gc();
      db.close();
      console.log('done');`;
    const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).not.toContain('Assertion failed');
    expect(run.signal).toBeNull();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('done');
  });

  it('is the only module that loads better-sqlite3 (a direct import would load 12 on Node 24)', () => {
    const root = new URL('../../', import.meta.url);
    const offenders: string[] = [];
    for (const folder of ['src', 'test', 'bench', 'scripts', 'examples']) {
      for (const entry of readdirSync(new URL(folder, root), { recursive: true, withFileTypes: true })) {
        if (!entry.isFile() || !/\.(ts|mts|js|mjs)$/.test(entry.name)) continue;
        const file = join(entry.parentPath, entry.name);
        if (file.endsWith(join('db', 'sqlite-driver.ts'))) continue;
        const text = readFileSync(file, 'utf8');
        if (
          /^import (?!type )[^;]*from 'better-sqlite3'|require\('better-sqlite3'\)|import\('better-sqlite3'\)/m.test(
            text,
          )
        )
          offenders.push(file);
      }
    }
    expect(offenders).toEqual([]);
  });
});
