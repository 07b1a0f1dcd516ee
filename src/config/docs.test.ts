// The README's table, .env.example and the docs name exactly the variables the schema declares, and
// the generated text is what is committed (`npm run config:docs` rewrites it).
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { README_END, README_START, renderEnvExample, renderReadmeTable } from './docs.js';
import { SETTINGS } from './schema.js';

const root = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');
const envExample = readFileSync(new URL('.env.example', root), 'utf8');
const declared = Object.keys(SETTINGS).sort();
const STALE = 'run `npm run config:docs` and commit the result';

describe('configuration docs', () => {
  it('.env.example assigns every declared variable and nothing else', () => {
    const assigned = [...envExample.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!);
    expect([...assigned].sort()).toEqual(declared);
    expect(new Set(assigned).size, 'a variable assigned twice').toBe(assigned.length);
  });

  it("the README's table has one row per declared variable and nothing else", () => {
    const table = readme.slice(readme.indexOf(README_START), readme.indexOf(README_END));
    const rows = [...table.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]!);
    expect(rows.sort()).toEqual(declared);
  });

  it('the committed .env.example and README table are what the schema writes', () => {
    expect(envExample, STALE).toBe(renderEnvExample());
    expect(readme, STALE).toContain(renderReadmeTable());
  });

  it('the docs and deployment files name only variables the schema declares', () => {
    const files = [
      'README.md',
      ...readdirSync(new URL('docs/', root))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
      ...readdirSync(new URL('deploy/', root)).map((f) => `deploy/${f}`),
    ];
    for (const file of files) {
      const text = readFileSync(new URL(file, root), 'utf8');
      // A name ending in "_" is a family (FLIGHTSTATUS_BILLING_…), not a variable.
      const named = [...text.matchAll(/\bFLIGHTSTATUS_[A-Z0-9_]*[A-Z0-9]\b(?!_)/g)].map((m) => m[0]);
      for (const name of named) expect(declared, `${file} names ${name}`).toContain(name);
    }
  });
});
