// Caches bounded by their number of entries (lru-cache), the bound given as `maxSize` with each entry
// counting one rather than as `max`: with `max`, lru-cache allocates and fills every slot when the
// cache is made (arrays of the bound's length for keys, values and the list: 3 ms for 20,000 slots,
// 7 ms for 50,000). Seven such caches cost every service start 30–50 ms before any entry was kept,
// and every one of the test suite's ~2,000 app builds with it (a third of a build's CPU). With
// `maxSize` they grow as they fill, to the same bound, evicting the least recently used the same way.
import { LRUCache } from 'lru-cache';

/** An LRU cache of at most `entries` entries, allocated as it fills. */
export function lruCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  entries: number,
): LRUCache<K, V> {
  return new LRUCache<K, V>({ maxSize: entries, sizeCalculation: () => 1 });
}
