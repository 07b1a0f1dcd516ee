// Deadlines and cancellation for provider calls, shared by every provider: a call that outlives its
// timeout or whose caller goes away answers `error` at once instead of hanging the lookup or the poll.
// Timeouts are wall-clock (they bound real waiting on a network), not the service clock.
import type { Answer, CallOptions } from './types.js';

export async function withDeadline<T>(
  options: CallOptions | undefined,
  call: (signal: AbortSignal) => Promise<Answer<T>>,
): Promise<Answer<T>> {
  const outer = options?.signal;
  if (outer?.aborted) return { outcome: 'error', error: { kind: 'aborted', message: 'the call was cancelled' } };
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<Answer<T>>((resolve) => {
    onAbort = () => {
      controller.abort(outer?.reason);
      resolve({ outcome: 'error', error: { kind: 'aborted', message: 'the call was cancelled' } });
    };
    outer?.addEventListener('abort', onAbort, { once: true });
    const timeoutMs = options?.timeoutMs;
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        controller.abort(new Error('timeout'));
        resolve({ outcome: 'error', error: { kind: 'timeout', message: `no answer within ${timeoutMs} ms` } });
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
