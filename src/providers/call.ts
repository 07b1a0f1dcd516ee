// Deadlines and cancellation for provider calls, shared by every provider: a call that outlives its
// timeout or whose caller goes away answers `error` at once instead of hanging the lookup or the poll.
// Timeouts are wall-clock (they bound real waiting on a network), not the service clock.
//
// A deadline aborts the call's signal with a `DeadlineExceeded` reason, so every layer below (a
// nested withDeadline, the HTTP client, a token fetch) can tell "the deadline passed" (`timeout`,
// the provider's fault) from "the caller went away" (`aborted`) by type. The lookup wraps each
// provider in its own deadline of the same length, which fires first: the provider's own counters
// must still say `timeout`, as the lookup's answer does.
import type { Answer, CallOptions, ProviderError } from './types.js';

/** The abort reason of a call whose deadline passed. */
export class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/** Why an aborted signal stopped the call: its deadline (`timeout`), or a caller that went away (`aborted`). */
export function abortError(signal: AbortSignal): ProviderError {
  return signal.reason instanceof DeadlineExceeded
    ? { kind: 'timeout', message: signal.reason.message }
    : { kind: 'aborted', message: 'the call was cancelled' };
}

export async function withDeadline<T>(
  options: CallOptions | undefined,
  call: (signal: AbortSignal) => Promise<Answer<T>>,
): Promise<Answer<T>> {
  const outer = options?.signal;
  if (outer?.aborted) return { outcome: 'error', error: abortError(outer) };
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<Answer<T>>((resolve) => {
    onAbort = () => {
      controller.abort(outer?.reason);
      resolve({ outcome: 'error', error: abortError(outer!) });
    };
    outer?.addEventListener('abort', onAbort, { once: true });
    const timeoutMs = options?.timeoutMs;
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        controller.abort(new DeadlineExceeded(timeoutMs));
        resolve({ outcome: 'error', error: abortError(controller.signal) });
      }, timeoutMs);
    }
  });
  try {
    return await Promise.race([
      call(controller.signal).catch(
        (error: unknown): Answer<T> => ({
          outcome: 'error',
          error: { kind: 'unavailable', message: error instanceof Error ? error.message : String(error) },
        }),
      ),
      stop,
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) outer?.removeEventListener('abort', onAbort);
  }
}

/** Resolves after `ms`, or early (rejecting) when the signal aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', abort, { once: true });
  });
}
