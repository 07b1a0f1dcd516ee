// The delivery signature (docs/webhooks.md, "The signature"): X-Flight-Signature = t=<unix seconds>,v1=<hex HMAC-SHA256 of
// "<t>.<raw body>"> keyed with the endpoint secret (the whole `whsec_…` string as UTF-8 bytes).
// Verification for receivers lives in verify.ts, which the package exports on its own.
import { createHmac } from 'node:crypto';

/** The header value for `body` sent at `unixSeconds`. */
export function signatureHeader(secret: string, unixSeconds: number, body: string | Buffer): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.`).update(body).digest('hex')}`;
}
