// What each provider was asked and how it answered, per call kind: the operator's view of a quota
// being spent (GET /api/admin/v1/providers, `flightstatus providers check`). In memory, per process:
// the counters start at zero with the process, like the metrics an operator scrapes.
import type { CountedKind, Outcome, ProviderErrorKind } from './types.js';

/** Latencies kept per call kind for the percentiles (the most recent ones). */
const LATENCY_SAMPLES = 512;

export interface KindSnapshot {
  calls: number;
  outcomes: Partial<Record<Exclude<Outcome, 'skipped' | 'error'> | `error:${ProviderErrorKind}`, number>>;
  latencyMs: { p50: number; p99: number; max: number } | null;
}

export interface StatsSnapshot {
  provider: string;
  /** HTTP requests sent to the provider (retries included): what its plan counts. */
  requests: number;
  /** Calls answered without a request because the provider's limit or its circuit said no. */
  refused: number;
  kinds: Partial<Record<CountedKind, KindSnapshot>>;
  lastError: { at: number; kind: ProviderErrorKind; message: string } | null;
}

interface KindCounters {
  calls: number;
  outcomes: Map<string, number>;
  latencies: number[];
  next: number;
}

export class ProviderStats {
  private requestCount = 0;
  private refusedCount = 0;
  private readonly kinds = new Map<CountedKind, KindCounters>();
  private lastError: StatsSnapshot['lastError'] = null;

  constructor(readonly provider: string) {}

  request(): void {
    this.requestCount++;
  }

  refused(): void {
    this.refusedCount++;
  }

  /** One answered call: its outcome (an error by its kind) and how long it took. */
  record(
    kind: CountedKind,
    answer: { outcome: Outcome; error?: { kind: ProviderErrorKind; message: string } },
    ms: number,
    at: number,
  ): void {
    let counters = this.kinds.get(kind);
    if (!counters) {
      counters = { calls: 0, outcomes: new Map(), latencies: [], next: 0 };
      this.kinds.set(kind, counters);
    }
    counters.calls++;
    const key = answer.outcome === 'error' && answer.error ? `error:${answer.error.kind}` : answer.outcome;
    counters.outcomes.set(key, (counters.outcomes.get(key) ?? 0) + 1);
    if (counters.latencies.length < LATENCY_SAMPLES) counters.latencies.push(ms);
    else counters.latencies[counters.next] = ms;
    counters.next = (counters.next + 1) % LATENCY_SAMPLES;
    if (answer.outcome === 'error' && answer.error)
      this.lastError = { at, kind: answer.error.kind, message: answer.error.message };
  }

  snapshot(): StatsSnapshot {
    const kinds: StatsSnapshot['kinds'] = {};
    for (const [kind, counters] of this.kinds) {
      const sorted = [...counters.latencies].sort((a, b) => a - b);
      const at = (p: number) => round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);
      kinds[kind] = {
        calls: counters.calls,
        outcomes: Object.fromEntries(counters.outcomes),
        latencyMs: sorted.length === 0 ? null : { p50: at(50), p99: at(99), max: round(sorted[sorted.length - 1]!) },
      };
    }
    return {
      provider: this.provider,
      requests: this.requestCount,
      refused: this.refusedCount,
      kinds,
      lastError: this.lastError,
    };
  }
}

const round = (ms: number) => Math.round(ms * 100) / 100;
