// Signature verification for Node receivers: the one source of the client package's receiver helper
// (clients/node, `@flightstatus/client/webhooks`, compiled from this file) and of this repository's
// own `flight-status-service/webhooks`. No dependencies beyond node:crypto, so it can be copied as is.
//
//   import { verifyWebhook } from '@flightstatus/client/webhooks';
//   const event = verifyWebhook(rawBody, req.headers['x-flight-signature'], process.env.WEBHOOK_SECRET);
//   // during a rotation's overlap, the new secret and the old: either one's signature is accepted
//   const event = verifyWebhook(rawBody, req.headers['x-flight-signature'], [newSecret, oldSecret]);
//
// It checks the timestamp against the receiver's own clock (300 s either way by default), recomputes
// HMAC-SHA256 over "<t>.<raw body>" with each secret and compares it in constant time with every v1
// the header carries; it throws WebhookVerificationError when anything is off and returns the parsed
// payload otherwise.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const DEFAULT_TOLERANCE_SECONDS = 300;

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyOptions {
  /** Largest accepted distance between the signature's timestamp and now, in seconds (default 300); finite, 0 or more. */
  toleranceSeconds?: number;
  /** The receiver's time in milliseconds since the epoch (default Date.now()); a finite number. */
  now?: number;
}

/** The payload of a delivery (docs/webhooks.md, "What a delivery is"); `data` depends on `type`. */
export interface WebhookEvent {
  id: string;
  event: string;
  type: string;
  createdAt: string;
  webhook: { id: string; name: string; airports: string[] };
  /** The endpoint's watches of the event's flight (docs/watches.md); absent when it receives the event for its airports only. */
  watches?: { id: string; reference: string | null }[];
  airport: { iata: string; name: string; city: string; country: string; timezone: string };
  data: Record<string, unknown>;
}

/**
 * The options as numbers that keep the timestamp check on: NaN or an infinite value would make every
 * comparison false (a day-old signature would pass), so such options are refused, not ignored.
 */
function checkedOptions(options: VerifyOptions): { tolerance: number; nowMs: number } {
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance < 0) {
    throw new WebhookVerificationError(
      `options.toleranceSeconds must be a finite number of seconds, 0 or more (got ${String(tolerance)})`,
    );
  }
  const nowMs = options.now ?? Date.now();
  if (typeof nowMs !== 'number' || !Number.isFinite(nowMs)) {
    throw new WebhookVerificationError(
      `options.now must be a finite number of milliseconds since the epoch (got ${String(nowMs)})`,
    );
  }
  return { tolerance, nowMs };
}

/**
 * The secrets to verify with: one, or several (a receiver holding the new and the old secret while a
 * rotation's overlap lasts). An empty string, or anything but a string, among them is refused rather
 * than skipped: an HMAC keyed with "" is one anyone can compute, and an unset variable is a mistake to
 * hear about (leave the old secret out of the list once the overlap is over).
 */
function checkedSecrets(secret: unknown): string[] {
  const secrets: unknown[] = typeof secret === 'string' ? [secret] : Array.isArray(secret) ? [...secret] : [];
  if (secrets.length === 0 || (secrets.length === 1 && secrets[0] === '')) {
    throw new WebhookVerificationError('no secret given to verify with');
  }
  secrets.forEach((s, i) => {
    if (typeof s !== 'string' || s === '') {
      throw new WebhookVerificationError(
        `secret ${i + 1} of ${secrets.length} is ${typeof s === 'string' ? 'empty' : String(s)}: every secret must be a non-empty string`,
      );
    }
  });
  return secrets as string[];
}

/** The body's bytes; anything but a string, Buffer or Uint8Array is refused (a parsed object cannot be verified). */
function bodyBytes(rawBody: unknown): Buffer {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (Buffer.isBuffer(rawBody)) return rawBody;
  if (rawBody instanceof Uint8Array) return Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  throw new WebhookVerificationError(
    `the body must be the raw request body as received (a Buffer, Uint8Array or string), not ${rawBody === null ? 'null' : Array.isArray(rawBody) ? 'an array' : typeof rawBody === 'object' ? 'a parsed object' : typeof rawBody}: ` +
      'read the bytes before any JSON parsing (e.g. express.raw({type: "application/json"}))',
  );
}

/**
 * Verifies a delivery and returns its parsed payload. `rawBody` must be the bytes as received (a
 * Buffer or Uint8Array, or the string decoded from them as UTF-8), never JSON re-serialised by a
 * framework. `secret` is the endpoint's secret, or several secrets (during a rotation: the new one and
 * the old one), any of which may have signed.
 */
export function verifyWebhook(
  rawBody: Buffer | Uint8Array | string,
  signatureHeader: string | string[] | undefined,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): WebhookEvent {
  const secrets = checkedSecrets(secret);
  const body = bodyBytes(rawBody);
  const { tolerance, nowMs } = checkedOptions(options ?? {});
  if (Array.isArray(signatureHeader)) signatureHeader = signatureHeader.join(',');
  if (typeof signatureHeader !== 'string' || signatureHeader === '') {
    throw new WebhookVerificationError('missing X-Flight-Signature header');
  }
  let timestamp: number | null = null;
  const candidates: string[] = [];
  for (const part of signatureHeader.split(',')) {
    const eq = part.indexOf('=');
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (name === 'v1' && /^[0-9a-f]{64}$/.test(value)) candidates.push(value);
  }
  if (timestamp === null) throw new WebhookVerificationError('X-Flight-Signature has no timestamp (t=…)');
  if (candidates.length === 0) throw new WebhookVerificationError('X-Flight-Signature has no v1 signature');

  const now = Math.floor(nowMs / 1000);
  if (Math.abs(now - timestamp) > tolerance) {
    throw new WebhookVerificationError(
      `signature timestamp is ${now - timestamp} s away from now (tolerance ${tolerance} s)`,
    );
  }

  // Every candidate is compared with every secret's HMAC, in constant time, whatever the earlier ones gave.
  let matched = false;
  for (const key of secrets) {
    const expected = createHmac('sha256', key).update(`${timestamp}.`).update(body).digest();
    for (const candidate of candidates) {
      if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) matched = true;
    }
  }
  if (!matched) {
    throw new WebhookVerificationError(
      secrets.length === 1
        ? 'signature does not match the body and the secret'
        : `signature does not match the body and any of the ${secrets.length} secrets`,
    );
  }

  try {
    return JSON.parse(body.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('the signed body is not JSON');
  }
}
