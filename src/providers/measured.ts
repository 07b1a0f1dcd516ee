// The frame of every real provider's call: the caller's signal (call.ts; the deadline that aborts it is
// `bounded`'s), the window the HTTP client may spend (upstream.ts), and the call counted by kind and
// outcome (stats.ts).
import type { Clock } from '../clock.js';
import { onSignal, withDeadline } from './call.js';
import { ProviderStats } from './stats.js';
import type { Timer } from './timer.js';
import type { Answer, CallOptions, CheckResult, CountedKind, ProviderError, ProviderStatus } from './types.js';
import { Upstream, type CallWindow, type Sent, type UpstreamSettings } from './upstream.js';

/** Used when the caller sets no timeout (the service always does: FLIGHTSTATUS_PROVIDER_TIMEOUT_MS). */
const DEFAULT_TIMEOUT_MS = 8000;

export async function measured<T>(
  upstream: Upstream,
  clock: Clock,
  kind: CountedKind,
  options: CallOptions | undefined,
  call: (window: CallWindow) => Promise<Answer<T>>,
): Promise<Answer<T>> {
  const began = performance.now();
  const timeoutMs = options?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // The deadline is `bounded`'s (call.ts): here it only budgets the retries, on the client's clock.
  const extra = {
    ...(options?.meter ? { meter: options.meter } : {}),
    ...(options?.background ? { background: true } : {}),
  };
  const answer = await onSignal<T>(options?.signal, (signal) => call(upstream.window(signal, timeoutMs, extra)));
  upstream.stats.record(kind, answer, performance.now() - began, clock.now());
  return answer;
}

/** An error answer from a failed request. */
export const failed = (sent: Extract<Sent, { ok: false }>): { outcome: 'error'; error: ProviderError } => ({
  outcome: 'error',
  error: sent.error,
});

/** An error answer for a body that does not have the documented shape. */
export const malformed = (provider: string, what: string): { outcome: 'error'; error: ProviderError } => ({
  outcome: 'error',
  error: { kind: 'bad_response', message: `${provider} answered ${what} in an undocumented shape` },
});

/** Upper-case letters and digits only: `KL 1395` → `KL1395`. */
/** Every designator a record or board row gives a flight (IATA, ICAO, callsign), without spaces and upper-cased, once each. */
export const designatorsOf = (f: {
  flightIata: string | null;
  flightIcao: string | null;
  callsign: string | null;
}): string[] => [
  ...new Set(
    [f.flightIata, f.flightIcao, f.callsign]
      .filter((d): d is string => !!d)
      .map((d) => d.replace(/\s+/g, '').toUpperCase()),
  ),
];

export const normaliseDesignator = (text: string): string => text.replace(/[^0-9A-Za-z]/g, '').toUpperCase();

export const str = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : null;

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** One request to `path` that proves the address and the key (`flightstatus providers check`). */
export async function checkCall(
  upstream: Upstream,
  path: string,
  query: Record<string, string>,
  options: CallOptions | undefined,
): Promise<CheckResult> {
  const began = performance.now();
  const timeoutMs = options?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const answer = await withDeadline<null>({ signal: options?.signal, timeoutMs }, async (signal) => {
    const sent = await upstream.get(path, query, upstream.window(signal, timeoutMs), [200, 204]);
    return sent.ok ? { outcome: 'hit', value: null } : failed(sent);
  });
  const durationMs = Math.round(performance.now() - began);
  return answer.outcome === 'error'
    ? { ok: false, message: answer.error.message, durationMs }
    : { ok: true, message: `answered in ${durationMs} ms; the key works`, durationMs };
}

/** The operator's view of a provider that calls out. */
export function statusOf(
  name: string,
  url: string,
  requestsPerMinute: number,
  upstream: Upstream,
  stats: ProviderStats,
): ProviderStatus {
  return { name, url, requestsPerMinute, ...upstream.state(), stats: stats.snapshot() };
}

/** What a provider that calls out with a key is configured with. */
export interface KeyedSettings {
  key: string;
  url: string;
  requestsPerMinute: number;
}

/**
 * What every provider that calls out with a key (AeroDataBox, AeroAPI, aviationstack) has alike: its
 * counters, its one HTTP client on the configured address carrying the key where the provider wants
 * it (never in a message), the operator's view of it, and the cheapest call that proves the address
 * and the key.
 */
export abstract class KeyedProvider {
  readonly stats: ProviderStats;
  readonly upstream: Upstream;

  constructor(
    readonly name: string,
    protected readonly settings: KeyedSettings,
    key: Pick<UpstreamSettings, 'headers' | 'query'>,
    private readonly probe: { path: string; query?: Record<string, string> },
    timer?: Timer,
  ) {
    this.stats = new ProviderStats(name);
    this.upstream = new Upstream({
      provider: name,
      baseUrl: settings.url.replace(/\/+$/, ''),
      requestsPerMinute: settings.requestsPerMinute,
      stats: this.stats,
      ...key,
      secrets: [settings.key],
      ...(timer ? { clock: timer } : {}),
    });
  }

  status(): ProviderStatus {
    return statusOf(this.name, this.settings.url, this.settings.requestsPerMinute, this.upstream, this.stats);
  }

  check(options?: CallOptions): Promise<CheckResult> {
    return checkCall(this.upstream, this.probe.path, this.probe.query ?? {}, options);
  }
}
