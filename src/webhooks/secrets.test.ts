import { describe, expect, it } from 'vitest';
import { parseSecretKey } from '../config.js';
import { newSecret, SecretBox, SecretKeyError } from './secrets.js';

describe('SecretBox', () => {
  const key = parseSecretKey('ab'.repeat(32))!;

  it('seals a secret so that only its own endpoint row opens it, with the key', () => {
    const box = new SecretBox(key);
    const secret = newSecret();
    const sealed = box.seal('wh_a', secret);
    expect(sealed).toMatch(/^sealed:v1:/);
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open('wh_a', sealed)).toBe(secret);
    expect(() => box.open('wh_b', sealed)).toThrow(SecretKeyError);
    expect(() => new SecretBox(parseSecretKey('cd'.repeat(32))).open('wh_a', sealed)).toThrow(/does not open/);
    expect(() => new SecretBox(null).open('wh_a', sealed)).toThrow(/FLIGHTSTATUS_WEBHOOK_SECRET_KEY is not set/);
  });

  it('without a key stores secrets as issued, and still reads them once a key is configured', () => {
    const secret = newSecret();
    expect(new SecretBox(null).seal('wh_a', secret)).toBe(secret);
    expect(new SecretBox(key).open('wh_a', secret)).toBe(secret);
  });

  it('takes the key as 64 hex digits or base64 of 32 bytes, nothing else', () => {
    expect(parseSecretKey(Buffer.alloc(32, 7).toString('base64'))).toEqual(Buffer.alloc(32, 7));
    expect(parseSecretKey('ab'.repeat(31))).toBeNull();
    expect(parseSecretKey('not a key')).toBeNull();
  });
});
