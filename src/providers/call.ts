// Deadlines and cancellation for provider calls: a call that outlives its timeout or whose caller goes
// away answers `error` at once instead of hanging the lookup or the poll. Timeouts are wall-clock
// (they bound real waiting on a network), not the service clock.
//
// The deadline is enforced once, by `bounded`, which the service puts around every provider it calls
// (app.ts). It aborts the call's signal with a `DeadlineExceeded` reason, so every layer below (the
// HTTP client, a retry's pause, a token fetch) can tell "the deadline passed" (`timeout`, the
// provider's fault) from "the caller went away" (`aborted`) by type, and the provider's own counters
// say `timeout` as the lookup's answer does. Providers set no timer of their own: they run on the
// signal (`onSignal`) and budget their retries by `timeoutMs`.
import type { Answer, CallOptions, FlightProvider, ProviderError } from './types.js';

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
      call(controller.signal).catch((error: unknown): Answer<T> => ({
        outcome: 'error',
        error: { kind: 'unavailable', message: error instanceof Error ? error.message : String(error) },
      })),
      stop,
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) outer?.removeEventListener('abort', onAbort);
  }
}

/**
 * The provider as the service calls it: each call bounded by its deadline (`options.timeoutMs`, else
 * `timeoutMs`) and its caller's signal, and a provider that throws, or ignores both, answered `error`
 * all the same.
 */
export function bounded(provider: FlightProvider, timeoutMs: number): FlightProvider {
  const call = <T>(
    options: CallOptions | undefined,
    run: (options: CallOptions) => Promise<Answer<T>>,
  ): Promise<Answer<T>> => {
    const ms = options?.timeoutMs ?? timeoutMs;
    return withDeadline<T>({ signal: options?.signal, timeoutMs: ms }, (signal) =>
      run({ ...options, signal, timeoutMs: ms }),
    );
  };
  return {
    name: provider.name,
    ...(provider.corroborates ? { corroborates: true } : {}),
    ...(provider.costs ? { costs: provider.costs } : {}),
    lookupFlight: (lookup, options) => call(options, (o) => provider.lookupFlight(lookup, o)),
    readBoard: (read, options) => call(options, (o) => provider.readBoard(read, o)),
    lookupAircraft: (registration, options) => call(options, (o) => provider.lookupAircraft(registration, o)),
    ...(provider.lookupRotation
      ? { lookupRotation: (query, options) => call(options, (o) => provider.lookupRotation!(query, o)) }
      : {}),
    ...(provider.readBoardDay
      ? { readBoardDay: (day, options) => call(options, (o) => provider.readBoardDay!(day, o)) }
      : {}),
    ...(provider.status ? { status: () => provider.status!() } : {}),
    ...(provider.check ? { check: (options) => provider.check!(options) } : {}),
  };
}

/**
 * A provider's call run on its caller's signal, with no timer of its own (`bounded` holds the
 * deadline): answered `error` at once when the signal has already aborted, and a throw (a pause the
 * signal cut short, a bug) turned into an `error` answer that says why.
 */
export async function onSignal<T>(
  signal: AbortSignal | undefined,
  call: (signal: AbortSignal) => Promise<Answer<T>>,
): Promise<Answer<T>> {
  const on = signal ?? new AbortController().signal;
  if (on.aborted) return { outcome: 'error', error: abortError(on) };
  try {
    return await call(on);
  } catch (error) {
    return {
      outcome: 'error',
      error: on.aborted
        ? abortError(on)
        : { kind: 'unavailable', message: error instanceof Error ? error.message : String(error) },
    };
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
