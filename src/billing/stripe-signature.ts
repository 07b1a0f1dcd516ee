// Stripe webhook signatures (https://docs.stripe.com/webhooks#verify-manually): Stripe sends
// `Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…][,v0=<hex>]`, where each v1 is the hex
// HMAC-SHA256 of "<t>.<raw body>" keyed with the endpoint's signing secret (the whole `whsec_…`
// string as UTF-8). Several v1 entries appear while a secret is being rolled; v0 is a test-mode
// scheme and never accepted. The timestamp bounds replays: a signature older (or newer) than the
// tolerance is refused even when it matches. Expected refusals are values; nothing here throws.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Stripe's own libraries accept five minutes either way. */
export const STRIPE_SIGNATURE_TOLERANCE_SECONDS = 300;

export type StripeSignatureCheck = { ok: true } | { ok: false; reason: string };

/** The hex v1 signature of `rawBody` at `timestampSeconds`. */
function v1(rawBody: string | Buffer, secret: string, timestampSeconds: number): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.`).update(rawBody).digest('hex');
}

/** A `Stripe-Signature` header value for `rawBody` as Stripe would send it at `timestampSeconds`. */
export function signStripePayload(rawBody: string | Buffer, secret: string, timestampSeconds: number): string {
  return `t=${timestampSeconds},v1=${v1(rawBody, secret, timestampSeconds)}`;
}

/**
 * Checks a webhook's `Stripe-Signature` header against the raw body as received (never JSON
 * re-serialised: one changed byte fails it) at `nowSeconds`, the caller's clock.
 */
export function verifyStripeSignature(
  rawBody: string | Buffer,
  header: string | undefined,
  secret: string,
  nowSeconds: number,
  toleranceSeconds = STRIPE_SIGNATURE_TOLERANCE_SECONDS,
): StripeSignatureCheck {
  if (!secret) return { ok: false, reason: 'no webhook signing secret is configured' };
  // NaN or Infinity would make the age check pass whatever the timestamp: fail closed.
  if (!Number.isFinite(nowSeconds) || !Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) {
    return { ok: false, reason: 'the clock or the tolerance is not a finite number of seconds' };
  }
  if (!header) return { ok: false, reason: 'missing Stripe-Signature header' };

  let timestamp: number | null = null;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 1) return { ok: false, reason: 'malformed Stripe-Signature header' };
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === 't') {
      // Two timestamps would leave it open which one was signed.
      if (timestamp !== null || !/^\d{1,12}$/.test(value))
        return { ok: false, reason: 'malformed timestamp in Stripe-Signature header' };
      timestamp = Number(value);
    } else if (name === 'v1' && /^[0-9a-f]{64}$/.test(value)) {
      candidates.push(value);
    }
    // Other schemes (v0) and unknown entries are ignored, as Stripe's libraries do.
  }
  if (timestamp === null) return { ok: false, reason: 'Stripe-Signature header has no timestamp (t=…)' };
  if (candidates.length === 0) return { ok: false, reason: 'Stripe-Signature header has no v1 signature' };

  const expected = Buffer.from(v1(rawBody, secret, timestamp), 'hex');
  // Every candidate is compared in constant time, whatever the earlier ones gave; all are 32 bytes.
  let matched = false;
  for (const candidate of candidates) {
    if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) matched = true;
  }
  if (!matched) return { ok: false, reason: 'no v1 signature matches the body and the secret' };

  const age = nowSeconds - timestamp;
  if (Math.abs(age) > toleranceSeconds) {
    return { ok: false, reason: `signature timestamp is ${age} s away from now (tolerance ${toleranceSeconds} s)` };
  }
  return { ok: true };
}
