// Type-prefixed random identifiers (`acct_…`, `key_…`): the prefix tells a reader what an id names.
import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Bytes from 248 up are dropped so that every character stays equally likely (248 = 4 × 62). */
const UNBIASED_LIMIT = 248;

// Random bytes are drawn from the CSPRNG in blocks and used once each: a board pass fans out
// thousands of delivery ids at once, and one call per id cost more than the rest of the id.
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

function nextByte(): number {
  if (offset >= pool.length) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  return pool[offset++]!;
}

/** `length` characters drawn uniformly from [0-9A-Za-z] by the CSPRNG (5.95 bits each). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextByte();
    if (byte < UNBIASED_LIMIT) out += BASE62[byte % 62];
  }
  return out;
}

export type IdPrefix =
  'acct' | 'key' | 'fl' | 'evt' | 'wh' | 'dlv' | 'usr' | 'inv' | 'cn' | 'bat' | 'mail' | 'invite' | 'wch';

/** 20 base62 characters: 119 bits, enough to never collide and never be guessed. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(20)}`;
}
