// The five X-Credits-* headers (docs/metering.md, "Headers").
import { iso } from '../clock.js';
import type { CreditPosition } from './window.js';

export const UNLIMITED = 'unlimited';

export function creditHeaders(position: CreditPosition): Record<string, string> {
  return {
    'x-credits-included': position.included === null ? UNLIMITED : String(position.included),
    'x-credits-used': String(position.used),
    'x-credits-remaining': position.remaining === null ? UNLIMITED : String(position.remaining),
    'x-credits-overage': String(position.overage),
    'x-credits-period-end': iso(position.window.end),
  };
}

/** Retry-After of a 429: whole seconds until the window ends, rounded up (never earlier than the reset). */
export function retryAfter(position: CreditPosition, now: number): string {
  return String(Math.max(1, Math.ceil((position.window.end - now) / 1000)));
}
