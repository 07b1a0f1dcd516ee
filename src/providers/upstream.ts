// One HTTP client per real provider, the way a paying customer's quota requires (docs/providers.md,
// "Resilience"):
// - a sliding one-minute limit on requests (FLIGHTSTATUS_<NAME>_REQUESTS_PER_MINUTE, budget.ts): a call
//   that would exceed it waits for a slot within its deadline, else answers `rate_limited` unsent;
// - a 429 closes the provider until its Retry-After (or X-Rate-Limit-Retry-After-Seconds) has passed,
//   at most MAX_RETRY_AFTER_MS (one answer saying "wait 11 days" must not switch a provider off until
//   a restart); then one call probes it: answered, normal again; another 429, closed again;
// - network errors and 5xx are retried with jittered backoff, only while the deadline allows;
// - a circuit breaker: after BREAKER_FAILURES failures in a row the provider is skipped for a
//   cool-down, then one trial call decides;
// - every request counted (stats.ts). Secrets (keys in headers or the query) never appear in an
//   error message: messages name the status and the provider's own message (response.ts), never the URL.
// Time and waiting (the budget's wait for a slot, the backoff between retries, the 429 closure, the
// breaker's cool-down) are `UpstreamSettings.clock` (timer.ts): real monotonic time by default, a
// manual timer in tests, which move it instead of sleeping. The deadline is not kept here: `bounded`
// (call.ts) aborts the call's signal, which cuts any wait short.
// Requests go through a keep-alive undici `Pool` of the provider's own origin (undici is the HTTP
// client Node's own fetch is built on, without the WHATWG layers): measured about five times cheaper
// per call than fetch, and a third cheaper than undici's shared global agent, which looks the origin
// up on every request (docs/performance.md, "Flight data providers").
import { Pool, type Dispatcher } from 'undici';
import { abortError } from './call.js';
import type { CallMeter, ProviderError } from './types.js';
import type { ProviderStats } from './stats.js';
import { monotonic, type Timer } from './timer.js';
import { MinuteBudget } from './budget.js';
import { askedWait, BodyTooLarge, clean, describeNetworkError, readCapped, said } from './response.js';

export const BREAKER_FAILURES = 5;
export const BREAKER_COOL_DOWN_MS = 30_000;
/** Without a Retry-After header a 429 closes the provider for this long. */
const DEFAULT_RETRY_AFTER_MS = 60_000;
/** The longest a 429 closes a provider, whatever its Retry-After asks (docs/providers.md). */
export const MAX_RETRY_AFTER_MS = 15 * 60_000;
const MAX_ATTEMPTS = 3;
const BACKOFF_MS = 100;

export interface UpstreamSettings {
  provider: string;
  /** Base URL without a trailing slash; paths are appended as they are. */
  baseUrl: string;
  requestsPerMinute: number;
  stats: ProviderStats;
  /** Headers sent with every request (API keys). */
  headers?: Record<string, string>;
  /** Query parameters sent with every request (aviationstack's `access_key`). */
  query?: Record<string, string>;
  /** Headers computed per request (an OAuth token); an error answer stops the call. */
  authorize?: (
    signal: AbortSignal,
    deadlineAt: number,
  ) => Promise<{ headers: Record<string, string> } | { error: ProviderError }>;
  /** Called on a 401 when `authorize` is set: the next request fetches a new token. */
  onUnauthorized?: () => void;
  /** Values that must never reach a message (keys, secrets). */
  secrets?: string[];
  /** How an answer's body is read: JSON (the default), or kept as text (IEM's CSV). */
  body?: 'json' | 'text';
  breaker?: { failures: number; coolDownMs: number };
  /** What the budget, the backoff, the 429 closure and the breaker's cool-down are measured and waited on (default `monotonic`). */
  clock?: Timer;
}

export interface CallWindow {
  signal: AbortSignal;
  /** The time on the client's clock (`Upstream.window`) after which nothing more may be sent or awaited. */
  deadlineAt: number;
  /** Counts the requests sent (CallOptions.meter). */
  meter?: CallMeter;
  /** A batch's call: it keeps within the minute's budget less the reserve. */
  background?: boolean;
}

export type Sent = { ok: true; status: number; body: unknown } | { ok: false; error: ProviderError };

type Attempt = Sent & { retry?: boolean; failure?: boolean };

export class Upstream {
  /** The per-minute limit on requests (budget.ts). */
  private readonly budget: MinuteBudget;
  private closedUntil = 0;
  /** A 429 closed the provider: once `closedUntil` has passed, one call probes before the others go. */
  private rateLimited = false;
  /** That probe is in flight. */
  private probing = false;
  private readonly clock: Timer;
  private failures = 0;
  private openUntil = 0;
  private trial = false;
  private readonly breaker: { failures: number; coolDownMs: number };
  /** Keep-alive connections to the provider's origin; idle ones do not hold the process open. */
  private readonly pool: Pool;
  /** The base URL's path ("/aeroapi"), prefixed to every request's path. */
  private readonly prefix: string;
  /** `s.query`, encoded once. */
  private readonly fixedQuery: string;

  constructor(private readonly s: UpstreamSettings) {
    this.breaker = s.breaker ?? { failures: BREAKER_FAILURES, coolDownMs: BREAKER_COOL_DOWN_MS };
    this.clock = s.clock ?? monotonic;
    this.budget = new MinuteBudget(s.provider, s.requestsPerMinute, this.clock);
    const base = new URL(s.baseUrl);
    this.pool = new Pool(base.origin);
    this.prefix = base.pathname.replace(/\/+$/, '');
    this.fixedQuery = encodeQuery(s.query ?? {});
  }

  /** The counters every request of this client is counted in. */
  get stats(): ProviderStats {
    return this.s.stats;
  }

  /** A call's window: `timeoutMs` from now on this client's clock, on the call's signal. */
  window(signal: AbortSignal, timeoutMs: number, extra: Pick<CallWindow, 'meter' | 'background'> = {}): CallWindow {
    return { signal, deadlineAt: this.clock.now() + timeoutMs, ...extra };
  }

  /** Values that must never reach a message: the settings' secrets and the query's values (keys). */
  private get secrets(): string[] {
    return [...(this.s.secrets ?? []), ...Object.values(this.s.query ?? {})];
  }

  /** The provider's state for the operator. */
  state(): { circuit: 'closed' | 'open' | 'half-open'; retryAfterMs: number } {
    const now = this.clock.now();
    const circuit = this.failures < this.breaker.failures ? 'closed' : now < this.openUntil ? 'open' : 'half-open';
    return { circuit, retryAfterMs: Math.max(0, Math.ceil(this.closedUntil - now)) };
  }

  /**
   * GETs `path` with `query`. `answers` are the statuses the adapter reads as an answer (200, and
   * 204 or 404 where the provider says "nothing" that way); other statuses are errors.
   */
  async get(path: string, query: Query, call: CallWindow, answers: number[] = [200]): Promise<Sent> {
    const refusal = this.admit();
    if (refusal) {
      this.s.stats.refused();
      return { ok: false, error: refusal };
    }
    const halfOpen = this.failures >= this.breaker.failures;
    if (halfOpen) this.trial = true;
    // The first call after a 429's wait is the probe; the others wait for its answer (admit()).
    const probe = this.rateLimited;
    if (probe) this.probing = true;
    let last: Attempt | null = null;
    try {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        if (attempt > 0) {
          const backoff = BACKOFF_MS * 2 ** (attempt - 1) * (0.5 + Math.random());
          if (this.clock.now() + backoff >= call.deadlineAt) break;
          await this.clock.wait(backoff, call.signal);
        }
        const slot = await this.budget.slot(call);
        if (slot) {
          this.s.stats.refused();
          return last && !last.ok ? last : { ok: false, error: slot };
        }
        last = await this.send(path, query, call, answers);
        if (!last.retry || halfOpen) break;
      }
    } catch {
      // A wait rejects when the call is cancelled or its deadline passes (call.ts says which)
      last = { ok: false, error: abortError(call.signal) };
    } finally {
      if (halfOpen) this.trial = false;
      if (probe) this.probing = false;
    }
    const result = last!;
    if (result.failure) {
      this.failures++;
      if (this.failures >= this.breaker.failures) this.openUntil = this.clock.now() + this.breaker.coolDownMs;
    } else if (result.ok) {
      this.failures = 0;
    }
    return result.ok ? { ok: true, status: result.status, body: result.body } : { ok: false, error: result.error };
  }

  /** Why no request may be sent now, or null. */
  private admit(): ProviderError | null {
    const now = this.clock.now();
    if (now < this.closedUntil) {
      return {
        kind: 'rate_limited',
        message: `${this.s.provider} asked to wait ${Math.ceil((this.closedUntil - now) / 1000)} s more (429 Retry-After)`,
      };
    }
    if (this.probing)
      return {
        kind: 'rate_limited',
        message: `${this.s.provider} is being asked again after a 429; other calls wait for its answer`,
      };
    if (this.failures >= this.breaker.failures && (now < this.openUntil || this.trial)) {
      return {
        kind: 'unavailable',
        message: `${this.s.provider} is skipped after ${this.failures} failures in a row; tried again in ${Math.max(1, Math.ceil((this.openUntil - now) / 1000))} s`,
      };
    }
    return null;
  }

  private async send(path: string, query: Query, call: CallWindow, answers: number[]): Promise<Attempt> {
    const search = [encodeQuery(query), this.fixedQuery].filter(Boolean).join('&');
    const target = this.prefix + path + (search ? `?${search}` : '');
    const headers: Record<string, string> = {
      accept: this.s.body === 'text' ? 'text/csv, text/plain' : 'application/json',
      ...this.s.headers,
    };
    if (this.s.authorize) {
      const auth = await this.s.authorize(call.signal, call.deadlineAt);
      if ('error' in auth)
        return {
          ok: false,
          error: auth.error,
          failure: auth.error.kind !== 'aborted' && auth.error.kind !== 'timeout',
        };
      Object.assign(headers, auth.headers);
    }
    this.s.stats.request();
    if (call.meter) call.meter.requests++;
    let status: number;
    let responseHeaders: Dispatcher.ResponseData['headers'];
    let text: string;
    try {
      // No redirects are followed: a provider that redirects answers a status the adapter refuses.
      const response = await this.pool.request({ path: target, method: 'GET', headers, signal: call.signal });
      status = response.statusCode;
      responseHeaders = response.headers;
      text = await readCapped(response);
    } catch (error) {
      if (call.signal.aborted) {
        // The deadline (call.ts aborts with DeadlineExceeded) counts against the provider; a caller
        // that went away does not.
        const stopped = abortError(call.signal);
        return { ok: false, error: stopped, failure: stopped.kind === 'timeout' };
      }
      const reason = error instanceof BodyTooLarge ? error.message : clean(describeNetworkError(error), this.secrets);
      const tooLarge = error instanceof BodyTooLarge;
      return {
        ok: false,
        error: { kind: tooLarge ? 'bad_response' : 'unavailable', message: reason },
        retry: !tooLarge,
        failure: true,
      };
    }
    if (status === 429) {
      const asked = askedWait(responseHeaders) ?? DEFAULT_RETRY_AFTER_MS;
      const wait = Math.min(asked, MAX_RETRY_AFTER_MS);
      // Not max() with an earlier closure: a probe's 429 replaces the wait that led to it.
      this.closedUntil = this.clock.now() + wait;
      this.rateLimited = true;
      const capped =
        asked > wait
          ? ` (it asked for ${Math.ceil(asked / 1000)} s; ${MAX_RETRY_AFTER_MS / 60_000} minutes at most, then one call probes it)`
          : '';
      return {
        ok: false,
        error: {
          kind: 'rate_limited',
          message: `${this.s.provider} answered 429; no call before ${Math.ceil(wait / 1000)} s${capped}${said(text, this.secrets)}`,
        },
      };
    }
    // Any other answer: the provider is taking calls again.
    this.rateLimited = false;
    if (answers.includes(status)) {
      if (this.s.body === 'text') return { ok: true, status, body: text };
      if (text.trim() === '') return { ok: true, status, body: null };
      try {
        return { ok: true, status, body: JSON.parse(text) as unknown };
      } catch {
        return {
          ok: false,
          error: {
            kind: 'bad_response',
            message: `${this.s.provider} answered ${status} with a body that is not JSON`,
          },
          failure: true,
        };
      }
    }
    if (status === 401 || status === 403) {
      if (status === 401) this.s.onUnauthorized?.();
      return {
        ok: false,
        error: {
          kind: 'unavailable',
          message: `${this.s.provider} refused the credentials (HTTP ${status})${said(text, this.secrets)}`,
        },
        failure: true,
      };
    }
    if (status >= 500) {
      return {
        ok: false,
        error: {
          kind: 'unavailable',
          message: `${this.s.provider} answered HTTP ${status}${said(text, this.secrets)}`,
        },
        retry: true,
        failure: true,
      };
    }
    return {
      ok: false,
      error: { kind: 'bad_response', message: `${this.s.provider} answered HTTP ${status}${said(text, this.secrets)}` },
    };
  }
}

/** `name=value&…` of the defined values, encoded as a URL's query (URLSearchParams' form); a list repeats its name. */
function encodeQuery(query: Query): string {
  const parts: string[] = [];
  for (const name in query) {
    const value = query[name];
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value])
      parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(one))}`);
  }
  return parts.join('&');
}

export type Query = Record<string, string | number | boolean | readonly string[] | undefined>;
