// Deterministic randomness for the simulated world. Every draw comes from a generator seeded by a
// hash of (world seed, what is being decided, which thing, which day), so the same question gets the
// same answer on any machine and in any order of asking; nothing is stored. Integer hashing uses
// Math.imul (exact everywhere); the float helpers use Math.log/Math.sqrt/Math.cos, which V8
// implements identically on every platform (fdlibm ports).

/** FNV-1a over the UTF-16 code units, finished with a murmur3 mix. */
export function hashString(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return finalise(h);
}

/**
 * Combines four numbers (seed, draw stream, id, day) into one well-mixed 32-bit value. A fixed arity
 * rather than rest parameters: it seeds every simulated rotation and leg, tens of thousands per board
 * pass, and a rest array would be allocated for each.
 */
export function hashNumbers(a: number, b: number, c: number, d: number): number {
  return finalise(mixIn(mixIn(mixIn(mixIn(0x9e3779b9, a), b), c), d));
}

function mixIn(h: number, part: number): number {
  h ^= finalise((part | 0) ^ Math.imul((part / 0x100000000) | 0, 0x85ebca6b));
  return Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
}

function finalise(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const TWO_TO_32 = 4294967296;

/**
 * mulberry32: small, fast, good enough statistically for a simulation.
 *
 * Every draw reads `bits()`, a 32-bit integer, and scales it itself rather than calling `next()`:
 * when V8 does not inline a call (a leg's simulation makes about twenty, more than its inlining
 * budget), a double returned from it is boxed in a new heap number, while an int32 or a boolean is
 * not. That was a quarter of the garbage of simulating a leg. The values drawn are the same.
 */
export class Rng {
  private state: number;

  constructor(seed: number) {
    // As an int32 (a small integer to V8); `next` adds to it modulo 2^32 either way.
    this.state = seed | 0;
  }

  /** The next 32 random bits, as an int32. */
  private bits(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return t ^ (t >>> 14);
  }

  /** Uniform in [0, 1). */
  next(): number {
    return (this.bits() >>> 0) / TWO_TO_32;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(((this.bits() >>> 0) / TWO_TO_32) * n);
  }

  /** Integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return (this.bits() >>> 0) / TWO_TO_32 < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** Picks by weight; `weights` parallels `items` and sums to more than zero. */
  weighted<T>(items: readonly T[], weights: readonly number[], total?: number): T {
    let left = this.next() * (total ?? weights.reduce((a, b) => a + b, 0));
    for (let i = 0; i < items.length; i++) {
      left -= weights[i]!;
      if (left < 0) return items[i]!;
    }
    return items[items.length - 1]!;
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    const u = 1 - (this.bits() >>> 0) / TWO_TO_32;
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * ((this.bits() >>> 0) / TWO_TO_32));
  }

  exponential(mean: number): number {
    return -Math.log(1 - (this.bits() >>> 0) / TWO_TO_32) * mean;
  }

  /** Fisher–Yates permutation of 0..n-1. */
  permutation(n: number): number[] {
    const out = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
}
