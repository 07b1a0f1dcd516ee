// Once per run, before any test file: build the service (dist/) that process tests run, exactly what
// `npm start` runs; and migrate one template database per kind, which test apps copy instead of
// running the 14 migrations each (on PostgreSQL a fresh database took ~300 ms to create and ~500 ms
// to migrate, a copy of the template ~150 ms; the suite makes hundreds).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { createTemplates } from './helpers/databases.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  const templates = await createTemplates();
  project.provide('databaseTemplates', templates.names);
  return templates.drop;
}
