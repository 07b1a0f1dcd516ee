// API key material: generation, hashing and constant-time comparison.
import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../ids.js';

export const KEY_PREFIX = 'flt_';
/** 43 base62 characters after `flt_`: 256 bits of entropy. */
export const KEY_SECRET_LENGTH = 43;
/** `flt_` plus this many characters are kept in clear to tell keys apart (`flt_Ab3x9Q2m`). */
const DISPLAY_PREFIX_LENGTH = KEY_PREFIX.length + 8;
/** Anything else is rejected before touching the database. */
const KEY_SHAPE = /^flt_[0-9A-Za-z]{16,128}$/;

export interface NewKeyMaterial {
  plaintext: string;
  prefix: string;
  hash: string;
}

export function generateKeyMaterial(): NewKeyMaterial {
  const plaintext = KEY_PREFIX + randomBase62(KEY_SECRET_LENGTH);
  return { plaintext, prefix: plaintext.slice(0, DISPLAY_PREFIX_LENGTH), hash: hashKey(plaintext) };
}

export function isWellFormedKey(candidate: string): boolean {
  return KEY_SHAPE.test(candidate);
}

/** SHA-256, lower-case hex: what is stored and indexed. */
export function hashKey(plaintext: string): string {
  return createHash('sha256').update(plaintext, 'utf8').digest('hex');
}

/** Constant-time equality of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

/** Constant-time comparison of two secrets of any length (hashing first hides the length). */
export function secretsEqual(candidate: string, expected: string): boolean {
  return digestsEqual(hashKey(candidate), hashKey(expected));
}
