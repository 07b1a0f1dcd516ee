// The dashboard's scripts as the browser receives them: written inside template literals, where a
// backslash is the literal's own escape, so `/\s+/` in the source reached the browser as `/s+/`.
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ASSETS } from './assets.js';

describe("the dashboard's scripts", () => {
  it('parse as JavaScript, and the list filter splits what is typed on white space', () => {
    for (const name of ['dashboard.js', 'batches.js'])
      expect(() => new Function(ASSETS[name]!.body), name).not.toThrow();
    const split = /search\.value\.toLowerCase\(\)\.split\((\/[^/]+\/)\)/.exec(ASSETS['dashboard.js']!.body)?.[1];
    expect(split).toBeDefined();
    expect(runInNewContext(`'frankfurt main airports'.split(${split}).filter(Boolean)`)).toEqual([
      'frankfurt',
      'main',
      'airports',
    ]);
  });
});
