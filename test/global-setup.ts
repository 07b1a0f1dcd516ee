// Once per run, before any test file: build the service (dist/) that process tests run, exactly what
// `npm start` runs; and migrate one template database per kind, which test apps copy instead of
// running the 14 migrations each (on PostgreSQL a fresh database took ~300 ms to create and ~500 ms
// to migrate, a copy of the template ~150 ms; the suite makes hundreds).
import { spawn, type SpawnOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { createTemplates } from './helpers/databases.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  // The two are independent: the build runs in its own process while the templates migrate.
  const built = run(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  const [templates, build] = await Promise.allSettled([createTemplates(), built]);
  if (build.status === 'rejected') {
    if (templates.status === 'fulfilled') await templates.value.drop();
    throw build.reason;
  }
  if (templates.status === 'rejected') throw templates.reason;
  project.provide('databaseTemplates', templates.value.names);
  return templates.value.drop;
}

/** Runs a command to its end; rejects when it fails. */
function run(command: string, args: string[], options: SpawnOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, options);
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${args.join(' ')} ended with ${signal ?? `exit code ${code}`}`)),
    );
  });
}
