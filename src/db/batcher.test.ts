import { describe, expect, it } from 'vitest';
import { TurnBatcher } from './batcher.js';

describe('TurnBatcher', () => {
  it('answers the asks of one turn with one read of their distinct keys', async () => {
    const reads: string[][] = [];
    const batcher = new TurnBatcher<string, number>(async (keys) => {
      reads.push(keys);
      return new Map(keys.filter((k) => k !== 'gone').map((k) => [k, k.length]));
    });
    const answers = await Promise.all(['a', 'bb', 'a', 'gone'].map((k) => batcher.get(k)));
    expect(answers).toEqual([1, 2, 1, undefined]);
    expect(reads).toEqual([['a', 'bb', 'gone']]);
  });

  it('gathers asks made while a read runs into the next one, at most `parallel` at once', async () => {
    const reads: string[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let running = 0;
    let most = 0;
    const batcher = new TurnBatcher<string, string>(async (keys) => {
      running++;
      most = Math.max(most, running);
      reads.push(keys);
      await gate;
      running--;
      return new Map(keys.map((k) => [k, k.toUpperCase()]));
    }, 1);
    const first = batcher.get('a');
    await new Promise((resolve) => setImmediate(resolve));
    const later = ['b', 'c'].map((k) => batcher.get(k));
    await new Promise((resolve) => setImmediate(resolve));
    release();
    expect(await Promise.all([first, ...later])).toEqual(['A', 'B', 'C']);
    expect(reads).toEqual([['a'], ['b', 'c']]);
    expect(most).toBe(1);
  });

  it('fails every ask of a read that fails, and reads again afterwards', async () => {
    let fail = true;
    const batcher = new TurnBatcher<string, number>(async (keys) => {
      if (fail) throw new Error('connection lost');
      return new Map(keys.map((k) => [k, 1]));
    });
    const failed = await Promise.allSettled([batcher.get('a'), batcher.get('b')]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await batcher.get('a')).toBe(1);
  });
});
