// Passwords, stored with scrypt from node:crypto (memory-hard; no native addon to build): OWASP's
// parameters N = 2^17, r = 8, p = 1 (128 MiB, about half a second on these machines, on libuv's
// thread pool so the event loop stays free). Stored in PHC form with its parameters, so a hash made
// with other parameters (the test suite's cheaper ones, or stronger ones later) still verifies.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** log2(N) of the stored hashes: OWASP's Password Storage Cheat Sheet for scrypt. */
export const PASSWORD_COST = 17;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
/** Stored hashes with a cost above this are refused rather than tried (a hostile row must not take gigabytes). */
const MAX_COST = 20;

function derive(password: string, salt: Buffer, options: { ln: number; r: number; p: number }): Promise<Buffer> {
  const scryptOptions: ScryptOptions = {
    N: 2 ** options.ln,
    r: options.r,
    p: options.p,
    maxmem: 2 * 128 * options.r * 2 ** options.ln + 1024 * 1024,
  };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_BYTES, scryptOptions, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string, ln = PASSWORD_COST): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, { ln, r: R, p: P });
  return `$scrypt$ln=${ln},r=${R},p=${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/;

/** Whether `password` matches `stored`; a malformed stored hash never matches. Compared in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = PHC.exec(stored);
  if (!match) return false;
  const [ln, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (ln < 10 || ln > MAX_COST || r < 1 || p < 1) return false;
  const expected = Buffer.from(match[5]!, 'base64');
  const actual = await derive(password, Buffer.from(match[4]!, 'base64'), { ln, r, p });
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
