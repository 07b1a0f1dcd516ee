// A provider's HTTP answer as its client (upstream.ts) reads it: the body, refused past MAX_BODY_BYTES;
// the wait a 429 asks for; and the messages that tell a failure, in the provider's own words or the
// network's, shortened and with every secret redacted.
import type { Dispatcher } from 'undici';
import { retryAfterMs } from '../retry-after.js';

/** A provider answer larger than this is refused (a board is well under 1 MB). */
const MAX_BODY_BYTES = 8 * 1024 * 1024;
const MESSAGE_CHARS = 200;

export class BodyTooLarge extends Error {}

export async function readCapped(response: Dispatcher.ResponseData): Promise<string> {
  const declared = Number(response.headers['content-length']);
  if (declared > MAX_BODY_BYTES) {
    response.body.destroy();
    throw new BodyTooLarge(`the answer is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += (chunk as Buffer).byteLength;
    if (size > MAX_BODY_BYTES) {
      response.body.destroy();
      throw new BodyTooLarge(`the answer is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** `Retry-After` or OpenSky's `X-Rate-Limit-Retry-After-Seconds`, in ms (src/retry-after.ts reads it). */
export function askedWait(headers: Dispatcher.ResponseData['headers']): number | null {
  return retryAfterMs(headers['x-rate-limit-retry-after-seconds'] ?? headers['retry-after'], Date.now());
}

export function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  if (cause?.code) return `network error (${cause.code})`;
  return `network error (${error instanceof Error ? error.message : String(error)})`;
}

/** The provider's own message from an error body, shortened and without secrets. */
export function said(text: string, secrets: string[]): string {
  let message: unknown;
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const error = body.error as Record<string, unknown> | undefined;
    message = body.message ?? body.detail ?? body.title ?? body.reason ?? error?.message ?? error?.info ?? null;
  } catch {
    message = null;
  }
  return typeof message === 'string' && message.trim() !== '' ? `: ${clean(message, secrets)}` : '';
}

/** A message on one line, without secrets, shortened to MESSAGE_CHARS. */
export function clean(message: string, secrets: string[]): string {
  let out = message.replace(/\s+/g, ' ').trim();
  for (const secret of secrets) {
    if (secret) out = out.split(secret).join('[redacted]');
  }
  return out.length > MESSAGE_CHARS ? `${out.slice(0, MESSAGE_CHARS)}…` : out;
}
