// The receivers' verification function against the signing side, and against every way a delivery
// can be forged, replayed or corrupted.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signatureHeader } from './signature.js';
import { verifyWebhook, WebhookVerificationError } from './verify.js';

const secret = 'whsec_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';
const body = JSON.stringify({
  id: 'dlv_1',
  event: 'evt_1',
  type: 'flight.delayed',
  data: { flight: { flightNumber: 'W63101' } },
});
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

  describe('with several secrets (a receiver during a rotation holds the new and the old)', () => {
    const fresh = 'whsec_fresh0123456789abcdefghijklmnopqrstuvwxyzABC';
    // What the service sends while the overlap lasts: a v1 for the new secret, then one for the old.
    const rotating = signatureHeader([fresh, secret], t, body);

    it('accepts a delivery signed by any one of them, in either order', () => {
      expect(rotating).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
      for (const secrets of [[fresh, secret], [secret, fresh], [fresh], [secret]]) {
        expect(verifyWebhook(body, rotating, secrets, { now }).id, secrets.join(' ')).toBe('dlv_1');
      }
      // A receiver already holding both while the service still signs with the old secret alone, or
      // already with the new one alone (after the overlap).
      expect(verifyWebhook(body, signatureHeader(secret, t, body), [fresh, secret], { now }).id).toBe('dlv_1');
      expect(verifyWebhook(body, signatureHeader(fresh, t, body), [fresh, secret], { now }).id).toBe('dlv_1');
      // A readonly list, as a configuration object would hold it.
      const held: readonly string[] = Object.freeze([fresh, secret]);
      expect(verifyWebhook(Buffer.from(body), rotating, held, { now }).type).toBe('flight.delayed');
    });

    it('refuses a delivery none of them signed, and a changed body, saying how many secrets were tried', () => {
      const other = signatureHeader(['whsec_a', 'whsec_b'], t, body);
      expect(() => verifyWebhook(body, other, [fresh, secret], { now })).toThrow(WebhookVerificationError);
      expect(() => verifyWebhook(body, other, [fresh, secret], { now })).toThrow(
        /does not match the body and any of the 2 secrets/,
      );
      expect(() => verifyWebhook(body.replace('W63101', 'W63102'), rotating, [fresh, secret], { now })).toThrow(
        /does not match/,
      );
      // Still stale when old, whichever secret signed.
      expect(() =>
        verifyWebhook(body, signatureHeader([fresh, secret], t - 301, body), [fresh, secret], { now }),
      ).toThrow(/301 s away/);
    });

    it('refuses an empty list, and an empty or missing secret among them rather than skipping it', () => {
      const cases: [string, unknown, RegExp][] = [
        ['an empty list', [], /no secret given/],
        ['a list of one empty secret', [''], /no secret given/],
        ['an empty secret beside a good one', [secret, ''], /secret 2 of 2 is empty/],
        ['an unset variable beside a good one', [undefined, secret], /secret 1 of 2 is undefined/],
        ['a number', [secret, 42], /secret 2 of 2 is 42/],
        ['no secret at all', undefined, /no secret given/],
        ['an object', { secret }, /no secret given/],
      ];
      for (const [what, secrets, message] of cases) {
        const attempt = () => verifyWebhook(body, rotating, secrets as never, { now });
        expect(attempt, what).toThrow(WebhookVerificationError);
        expect(attempt, what).toThrow(message);
      }
    });
  });

  const refusals: [string, () => unknown, RegExp][] = [
    [
      'a changed body',
      () => verifyWebhook(body.replace('W63101', 'W63102'), signatureHeader(secret, t, body), secret, { now }),
      /does not match/,
    ],
    [
      're-serialised JSON',
      () => verifyWebhook(JSON.stringify(JSON.parse(body), null, 2), signatureHeader(secret, t, body), secret, { now }),
      /does not match/,
    ],
    [
      'another secret',
      () => verifyWebhook(body, signatureHeader('whsec_other', t, body), secret, { now }),
      /does not match/,
    ],
    [
      'a timestamp 301 s old',
      () => verifyWebhook(body, signatureHeader(secret, t - 301, body), secret, { now }),
      /301 s away/,
    ],
    [
      'a timestamp 301 s ahead',
      () => verifyWebhook(body, signatureHeader(secret, t + 301, body), secret, { now }),
      /-301 s away/,
    ],
    [
      'a timestamp swapped after signing',
      () =>
        verifyWebhook(body, signatureHeader(secret, t - 10, body).replace(`t=${t - 10}`, `t=${t}`), secret, { now }),
      /does not match/,
    ],
    ['no header', () => verifyWebhook(body, undefined, secret, { now }), /missing X-Flight-Signature/],
    ['no timestamp', () => verifyWebhook(body, `v1=${'a'.repeat(64)}`, secret, { now }), /no timestamp/],
    ['no v1', () => verifyWebhook(body, `t=${t},v0=abc`, secret, { now }), /no v1 signature/],
    ['an empty secret', () => verifyWebhook(body, signatureHeader(secret, t, body), '', { now }), /no secret/],
    [
      'a body that is not JSON',
      () => verifyWebhook('not json', signatureHeader(secret, t, 'not json'), secret, { now }),
      /not JSON/,
    ],
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

  it("accepts the body as a Uint8Array, as Stripe's verifier does", () => {
    const bytes = new TextEncoder().encode(body);
    expect(bytes).not.toBeInstanceOf(Buffer);
    expect(verifyWebhook(bytes, signatureHeader(secret, t, body), secret, { now }).id).toBe('dlv_1');
    // A view into a larger buffer: only its own bytes are verified.
    const padded = new Uint8Array(bytes.length + 8);
    padded.set(bytes, 4);
    expect(
      verifyWebhook(padded.subarray(4, 4 + bytes.length), signatureHeader(secret, t, body), secret, { now }).type,
    ).toBe('flight.delayed');
  });

  it('refuses an already-parsed body with WebhookVerificationError saying to pass the raw body', () => {
    const attempt = () => verifyWebhook(JSON.parse(body) as never, signatureHeader(secret, t, body), secret, { now });
    expect(attempt).toThrow(WebhookVerificationError);
    expect(attempt).toThrow(/raw request body/);
    for (const wrong of [null, undefined, 42, [1, 2]]) {
      expect(() => verifyWebhook(wrong as never, signatureHeader(secret, t, body), secret, { now })).toThrow(
        WebhookVerificationError,
      );
    }
  });

  it('refuses a tolerance or now that would switch the timestamp check off (NaN, infinite, negative)', () => {
    const dayOld = signatureHeader(secret, t - 86_400, body);
    const bad: [string, object, RegExp][] = [
      ['NaN tolerance', { now, toleranceSeconds: Number.NaN }, /toleranceSeconds must be a finite number/],
      [
        'infinite tolerance',
        { now, toleranceSeconds: Number.POSITIVE_INFINITY },
        /toleranceSeconds must be a finite number/,
      ],
      ['negative tolerance', { now, toleranceSeconds: -1 }, /toleranceSeconds must be a finite number/],
      ['tolerance as text', { now, toleranceSeconds: '300' }, /toleranceSeconds must be a finite number/],
      ['NaN now', { now: Number.NaN }, /now must be a finite number/],
      ['infinite now', { now: Number.NEGATIVE_INFINITY }, /now must be a finite number/],
      ['now as a Date', { now: new Date(now) }, /now must be a finite number/],
    ];
    for (const [what, options, message] of bad) {
      const attempt = () => verifyWebhook(body, dayOld, secret, options as never);
      expect(attempt, what).toThrow(WebhookVerificationError);
      expect(attempt, what).toThrow(message);
    }
    // The same signature a day later, with sound options: refused as stale.
    expect(() => verifyWebhook(body, dayOld, secret, { now })).toThrow(/86400 s away/);
  });
});
