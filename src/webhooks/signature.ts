// The delivery signature (docs/webhooks.md, "The signature"): X-Flight-Signature = t=<unix seconds>,v1=<hex HMAC-SHA256 of
// "<t>.<raw body>"> keyed with the endpoint secret (the whole `whsec_…` string as UTF-8 bytes).
// Verification for receivers lives in verify.ts, which the package exports on its own.
import { createHmac } from 'node:crypto';

/**
 * The header value for `body` sent at `unixSeconds`: one v1 per secret, the current one first (while
 * a rotated secret's overlap lasts, both sign, docs/webhooks.md "Rotating the secret").
 */
export function signatureHeader(
  secret: string | readonly string[],
  unixSeconds: number,
  body: string | Buffer,
): string {
  const v1 = (typeof secret === 'string' ? [secret] : secret).map(
    (s) => `v1=${createHmac('sha256', s).update(`${unixSeconds}.`).update(body).digest('hex')}`,
  );
  return `t=${unixSeconds},${v1.join(',')}`;
}
