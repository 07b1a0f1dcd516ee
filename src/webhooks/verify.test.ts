// The receivers' verification function against the signing side, and against every way a delivery
// can be forged, replayed or corrupted.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signatureHeader } from './signature.js';
import { verifyWebhook, WebhookVerificationError } from './verify.js';

const secret = 'whsec_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';
const body = JSON.stringify({ id: 'dlv_1', event: 'evt_1', type: 'flight.delayed', data: { flight: { flightNumber: 'W63101' } } });
const now = Date.UTC(2026, 10, 21, 10, 0, 0);
const t = Math.floor(now / 1000);

describe('verifyWebhook', () => {
  it('accepts what the service signs, from a Buffer or a string, and returns the payload', () => {
    const header = signatureHeader(secret, t, body);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifyWebhook(Buffer.from(body), header, secret, { now }).type).toBe('flight.delayed');
    expect(verifyWebhook(body, header, secret, { now }).id).toBe('dlv_1');
    // The scheme, spelled out: HMAC-SHA256 over "<t>.<raw body>" with the whole secret as the key.
    expect(header).toBe(`t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`);
  });

  it('accepts a header carrying several v1 values when one matches', () => {
    const good = signatureHeader(secret, t, body).split(',')[1]!;
    expect(() => verifyWebhook(body, `t=${t},v1=${'0'.repeat(64)},${good}`, secret, { now })).not.toThrow();
  });

  const refusals: [string, () => unknown, RegExp][] = [
    ['a changed body', () => verifyWebhook(body.replace('W63101', 'W63102'), signatureHeader(secret, t, body), secret, { now }), /does not match/],
    ['re-serialised JSON', () => verifyWebhook(JSON.stringify(JSON.parse(body), null, 2), signatureHeader(secret, t, body), secret, { now }), /does not match/],
    ['another secret', () => verifyWebhook(body, signatureHeader('whsec_other', t, body), secret, { now }), /does not match/],
    ['a timestamp 301 s old', () => verifyWebhook(body, signatureHeader(secret, t - 301, body), secret, { now }), /301 s away/],
    ['a timestamp 301 s ahead', () => verifyWebhook(body, signatureHeader(secret, t + 301, body), secret, { now }), /-301 s away/],
    ['a timestamp swapped after signing', () => verifyWebhook(body, signatureHeader(secret, t - 10, body).replace(`t=${t - 10}`, `t=${t}`), secret, { now }), /does not match/],
    ['no header', () => verifyWebhook(body, undefined, secret, { now }), /missing X-Flight-Signature/],
    ['no timestamp', () => verifyWebhook(body, `v1=${'a'.repeat(64)}`, secret, { now }), /no timestamp/],
    ['no v1', () => verifyWebhook(body, `t=${t},v0=abc`, secret, { now }), /no v1 signature/],
    ['an empty secret', () => verifyWebhook(body, signatureHeader(secret, t, body), '', { now }), /no secret/],
    ['a body that is not JSON', () => verifyWebhook('not json', signatureHeader(secret, t, 'not json'), secret, { now }), /not JSON/],
  ];
  for (const [what, attempt, message] of refusals) {
    it(`refuses ${what}`, () => {
      expect(attempt).toThrow(WebhookVerificationError);
      expect(attempt).toThrow(message);
    });
  }

  it('honours the tolerance given', () => {
    const header = signatureHeader(secret, t - 400, body);
    expect(() => verifyWebhook(body, header, secret, { now, toleranceSeconds: 500 })).not.toThrow();
    expect(() => verifyWebhook(body, signatureHeader(secret, t - 300, body), secret, { now })).not.toThrow();
  });
});
