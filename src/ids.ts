// Type-prefixed random identifiers (`acct_…`, `key_…`): the prefix tells a reader what an id names.
import { randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` characters drawn uniformly from [0-9A-Za-z] by the CSPRNG (5.95 bits each). */
export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

export type IdPrefix = 'acct' | 'key' | 'fl' | 'evt' | 'wh';

/** 20 base62 characters: 119 bits, enough to never collide and never be guessed. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(20)}`;
}
