// The frame of every real provider's call: the deadline (call.ts), the window the HTTP client may
// spend (upstream.ts), and the call counted by kind and outcome (stats.ts).
import type { Clock } from '../clock.js';
import { withDeadline } from './call.js';
import type { ProviderStats } from './stats.js';
import type { Answer, CallKind, CallOptions, ProviderError } from './types.js';
import type { CallWindow, Sent } from './upstream.js';

/** Used when the caller sets no timeout (the service always does: FLIGHTSTATUS_PROVIDER_TIMEOUT_MS). */
const DEFAULT_TIMEOUT_MS = 8000;

export async function measured<T>(
  stats: ProviderStats,
  clock: Clock,
  kind: CallKind,
  options: CallOptions | undefined,
  call: (window: CallWindow) => Promise<Answer<T>>,
): Promise<Answer<T>> {
  const began = performance.now();
  const timeoutMs = options?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const answer = await withDeadline<T>({ signal: options?.signal, timeoutMs }, (signal) => call({ signal, deadlineAt: began + timeoutMs }));
  stats.record(kind, answer, performance.now() - began, clock.now());
  return answer;
}

/** An error answer from a failed request. */
export const failed = (sent: Extract<Sent, { ok: false }>): { outcome: 'error'; error: ProviderError } => ({ outcome: 'error', error: sent.error });

/** An error answer for a body that does not have the documented shape. */
export const malformed = (provider: string, what: string): { outcome: 'error'; error: ProviderError } => ({
  outcome: 'error',
  error: { kind: 'bad_response', message: `${provider} answered ${what} in an undocumented shape` },
});

/** Upper-case letters and digits only: `KL 1395` → `KL1395`. */
export const normaliseDesignator = (text: string): string => text.replace(/[^0-9A-Za-z]/g, '').toUpperCase();

export const str = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
