import { describe, expect, it } from 'vitest';
import { keyParametersIn, readCredential, redactKeyParameters } from './credential.js';
import { digestsEqual, generateKeyMaterial, hashKey, isWellFormedKey, secretsEqual } from './keys.js';

describe('key material', () => {
  it('makes flt_ keys with 256 bits of base62 randomness, a display prefix and a SHA-256 hash', () => {
    const { plaintext, prefix, hash } = generateKeyMaterial();
    expect(plaintext).toMatch(/^flt_[0-9A-Za-z]{43}$/);
    expect(43 * Math.log2(62)).toBeGreaterThan(256);
    expect(prefix).toBe(plaintext.slice(0, 12));
    expect(hash).toBe(hashKey(plaintext));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(isWellFormedKey(plaintext)).toBe(true);
  });

  it('never repeats', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateKeyMaterial().plaintext));
    expect(keys.size).toBe(2000);
  });

  it('hashes with SHA-256', () => {
    expect(hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('rejects malformed keys before any lookup', () => {
    for (const bad of [
      '',
      'flt_',
      'flt_short',
      'FLT_abcdefghijklmnopqrstuvwxyz',
      'sk_abcdefghijklmnopqrstuvwxyz',
      `flt_${'a'.repeat(129)}`,
      'flt_abcdefghijklmnop-q',
    ]) {
      expect(isWellFormedKey(bad)).toBe(false);
    }
  });

  it('compares digests and secrets in constant time, refusing unequal lengths', () => {
    expect(digestsEqual(hashKey('a'), hashKey('a'))).toBe(true);
    expect(digestsEqual(hashKey('a'), hashKey('b'))).toBe(false);
    expect(digestsEqual(hashKey('a'), hashKey('a').slice(0, 10))).toBe(false);
    expect(digestsEqual('', '')).toBe(false);
    expect(secretsEqual('token-1', 'token-1')).toBe(true);
    expect(secretsEqual('token-1', 'token-12')).toBe(false);
  });
});

describe('readCredential', () => {
  it('prefers Authorization: Bearer, then X-Api-Key, then the legacy X-Service-Api-Key', () => {
    expect(
      readCredential({ authorization: 'Bearer flt_a', 'x-api-key': 'flt_b', 'x-service-api-key': 'flt_c' }),
    ).toEqual({
      kind: 'present',
      key: 'flt_a',
      header: 'authorization',
    });
    expect(readCredential({ 'x-api-key': 'flt_b', 'x-service-api-key': 'flt_c' })).toMatchObject({
      key: 'flt_b',
      header: 'x-api-key',
    });
    expect(readCredential({ 'x-service-api-key': ' flt_c ' })).toMatchObject({
      key: 'flt_c',
      header: 'x-service-api-key',
    });
  });

  it('accepts the Bearer scheme in any case', () => {
    expect(readCredential({ authorization: 'bearer   flt_a' })).toMatchObject({ key: 'flt_a' });
  });

  it('ignores another Authorization scheme and falls through to the key headers', () => {
    expect(readCredential({ authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': 'flt_b' })).toMatchObject({
      key: 'flt_b',
    });
    expect(readCredential({ authorization: 'Basic dXNlcjpwYXNz' })).toEqual({ kind: 'missing' });
  });

  it('treats empty headers as absent', () => {
    expect(readCredential({ 'x-api-key': '  ' })).toEqual({ kind: 'missing' });
    expect(readCredential({})).toEqual({ kind: 'missing' });
  });

  it('does not let a later header rescue a bad Bearer value', () => {
    expect(readCredential({ authorization: 'Bearer nonsense', 'x-api-key': 'flt_good' })).toMatchObject({
      key: 'nonsense',
    });
  });
});

describe('a key in a URL, however it is written', () => {
  const key = generateKeyMaterial().plaintext;
  const secret = key.slice(4);
  const pct = (text: string) => [...text].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');

  it.each([
    [`/x?q=${key}`, ['q']],
    [`/x?q=FLT_${secret}`, ['q']],
    [`/x?q=Flt_${secret}`, ['q']],
    [`/x?q=${secret}`, ['q']],
    [`/x?${secret}`, ['flt_…']],
    [`/x?${secret}=1`, ['flt_…']],
    [`/x?a=b;${secret}`, ['flt_…']],
    [`/x?a=b;c=${secret}`, ['c']],
    [`/x?q=${pct(secret)}`, ['q']],
    [`/x?q=${encodeURIComponent(pct(secret))}`, ['q']],
    [`/x?q=${encodeURIComponent(encodeURIComponent(`FLT_${secret}`))}`, ['q']],
    [`/x?q=Bearer+${secret}`, ['q']],
    [`/x?q=a,${secret},b`, ['q']],
    [`/x?q=flt-${secret}`, ['q']],
    [`/x?q=flt${secret}`, ['q']],
    [`/x?q=whsec_${secret}`, ['q']],
    [`/x?_csrf=FLT_${secret}`, ['_csrf']],
    [`/x?next=/dashboard/${key}`, ['next']],
  ])('recognises %s', (url, names) => {
    expect(keyParametersIn(url)).toEqual(names);
    const logged = redactKeyParameters(url);
    expect(logged).toContain('[redacted]');
    expect(logged).not.toContain(secret.slice(0, 12));
    expect(logged).not.toContain(secret.slice(-12));
  });

  it.each([
    '/x?flightNumber=W6%203101&flightDate=2026-02-20T07:15:00Z',
    '/x?after=bat_0123456789ABCDEFGHIJ&before=dlv_abcdefghijABCDEFGHIJ',
    `/x?q=${secret.slice(0, 42)}`, // one short of the secret
    `/x?q=${secret}A`, // one over: part of a longer run
    `/x?q=${'a'.repeat(13)}_${secret}`, // a longer prefix than a key's
    '/x?d=flt-x&e=FLT&f=flt',
  ])('lets %s through', (url) => {
    expect(keyParametersIn(url)).toEqual([]);
    expect(redactKeyParameters(url)).toBe(url);
  });

  it("lets the dashboard's own tokens through but keeps them out of the logs", () => {
    const token = 'Ab-_'.repeat(10) + 'xyz'; // 43 characters of base64url
    for (const url of [
      `/dashboard/evidence?flightNumber=W63101&_csrf=${token}`,
      `/dashboard/sign-in?next=%2Fdashboard%2Freset-password%2F${token}`,
    ]) {
      expect(keyParametersIn(url)).toEqual([]);
      expect(redactKeyParameters(url)).not.toContain(token);
    }
    expect(redactKeyParameters(`/dashboard/reset-password/${token}`)).toBe('/dashboard/reset-password/[redacted]');
    expect(redactKeyParameters(`/api/v1/webhooks/FLT_${secret}/deliveries`)).toBe(
      '/api/v1/webhooks/[redacted]/deliveries',
    );
  });
});
