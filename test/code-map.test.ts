// The README's code map is written from the code (scripts/code-map.mjs): every folder of src/ has an
// index.ts whose header says what it is (config/ its config.ts), every root module a header, and the
// README shows exactly what those headers say. `npm run docs:code-map` rewrites it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { describeSource, firstSentence, headerOf, MAP_END, MAP_START, renderCodeMap } from '../scripts/code-map.mjs';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

describe('the code map', () => {
  it('has a header to describe every folder of src/ and every module at its root', () => {
    expect(describeSource(SRC).missing).toEqual([]);
  });

  it('is in the README as the headers say it (npm run docs:code-map writes it)', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const start = readme.indexOf(MAP_START);
    const end = readme.indexOf(MAP_END);
    expect(start).toBeGreaterThan(0);
    expect(readme.slice(start + MAP_START.length, end).trim()).toBe(renderCodeMap(SRC));
  });

  it('describes each by the first sentence of its header comment', () => {
    expect(headerOf('// One thing: the rest\n// of it. And more.\nexport {};\n// not this')).toBe(
      'One thing: the rest of it. And more.',
    );
    expect(firstSentence('One thing: the rest of it. And more.')).toBe('One thing: the rest of it.');
    expect(firstSentence('The handle: Kysely. and more')).toBe('The handle: Kysely. and more');
    expect(headerOf('export {};\n')).toBe('');
  });
});
