import { describe, expect, it } from 'vitest';
import { lruCache } from './lru.js';

describe('lruCache', () => {
  it('keeps at most its bound of entries, dropping the least recently used first', () => {
    const cache = lruCache<string, number>(3);
    for (const [i, key] of ['a', 'b', 'c'].entries()) cache.set(key, i);
    expect(cache.get('a')).toBe(0); // a is now the most recently used
    cache.set('d', 3);
    expect(cache.size).toBe(3);
    expect(cache.has('b')).toBe(false);
    expect([...cache.keys()].sort()).toEqual(['a', 'c', 'd']);
    // Setting a key already held replaces its value and takes no room of another.
    cache.set('c', 30);
    expect(cache.size).toBe(3);
    expect(cache.get('c')).toBe(30);
  });

  it('holds its bound whatever the values are, large or small', () => {
    const cache = lruCache<number, number[]>(100);
    for (let i = 0; i < 1_000; i++)
      cache.set(
        i,
        Array.from({ length: i % 7 }, () => i),
      );
    expect(cache.size).toBe(100);
    expect(cache.has(899)).toBe(false);
    expect(cache.has(900)).toBe(true);
  });
});
