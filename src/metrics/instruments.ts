// Where the metrics come from: thin wrappers around the parts that do the work, so no capability
// imports the metrics. Request counts from a Fastify hook; admissions from the gate; provider calls
// from each provider; gauges of the shared delivery queue and the database, read when scraped.
import type { IncomingHttpHeaders } from 'node:http';
import type { Database } from '../db/index.js';
import { watchDatabase } from './dialect.js';
import type { HttpServer } from '../http/server.js';
import type { Admission, Gate } from '../metering/index.js';
import type { Answer, CallKind, FlightProvider } from '../providers/index.js';
import type { QueueStats } from '../webhooks/index.js';
import type { WeatherProvider } from '../weather/index.js';
import type { Metrics } from './metrics.js';

/** Every answered request, by route pattern (never the raw URL: ids would make a series each). */
export function installRequestMetrics(http: HttpServer, metrics: Metrics): void {
  http.addHook('onResponse', async (request, reply) => {
    metrics.request(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });
}

/** Why an admission was refused, as the metric's `reason` label. */
const refusal = (a: Exclude<Admission, { kind: 'admitted' }>): string =>
  a.kind === 'unauthenticated'
    ? `unauthenticated_${a.reason}`
    : a.kind === 'exhausted'
      ? 'credits_exhausted'
      : a.reason;

/** The gate, counting each metered admission: a credit taken, or refused and why. */
export function countedGate(gate: Gate, metrics: Metrics): Gate {
  const count = (admission: Admission) => {
    if (admission.kind === 'admitted') metrics.credit('taken', admission.charge ? 'metered' : 'unmetered');
    else metrics.credit('refused', refusal(admission));
    return admission;
  };
  return {
    admit: async (headers: IncomingHttpHeaders, usage) => {
      const admission = await gate.admit(headers, usage);
      return usage ? count(admission) : admission;
    },
    admitPrincipal: async (principal, usage) => count(await gate.admitPrincipal(principal, usage)),
  };
}

/** The provider, counting and timing each call by kind and outcome (`error:KIND` for errors). */
export function countedProvider(provider: FlightProvider, metrics: Metrics): FlightProvider {
  const timed = async <T>(kind: CallKind, call: () => Promise<Answer<T>>): Promise<Answer<T>> => {
    const started = performance.now();
    const answer = await call();
    const outcome = answer.outcome === 'error' ? `error:${answer.error.kind}` : answer.outcome;
    metrics.providerCall(provider.name, kind, outcome, (performance.now() - started) / 1000);
    return answer;
  };
  return {
    name: provider.name,
    ...(provider.corroborates ? { corroborates: true } : {}),
    ...(provider.costs ? { costs: provider.costs } : {}),
    lookupFlight: (lookup, options) => timed('flight', () => provider.lookupFlight(lookup, options)),
    readBoard: (read, options) => timed('board', () => provider.readBoard(read, options)),
    lookupAircraft: (registration, options) => timed('aircraft', () => provider.lookupAircraft(registration, options)),
    ...(provider.lookupRotation
      ? { lookupRotation: (query, options) => timed('rotation', () => provider.lookupRotation!(query, options)) }
      : {}),
    ...(provider.readBoardDay
      ? { readBoardDay: (day, options) => timed('board', () => provider.readBoardDay!(day, options)) }
      : {}),
    ...(provider.status ? { status: () => provider.status!() } : {}),
    ...(provider.check ? { check: (options) => provider.check!(options) } : {}),
  };
}

/** The weather provider, its calls counted like the flight providers' (kind `weather`). */
export function countedWeather(provider: WeatherProvider, metrics: Metrics): WeatherProvider {
  return {
    name: provider.name,
    reports: async (query, options) => {
      const started = performance.now();
      const answer = await provider.reports(query, options);
      const outcome = answer.outcome === 'error' ? `error:${answer.error.kind}` : answer.outcome;
      metrics.providerCall(provider.name, 'weather', outcome, (performance.now() - started) / 1000);
      return answer;
    },
    ...(provider.status ? { status: () => provider.status!() } : {}),
  };
}

/** The gauges read when scraped: the shared delivery queue, and the database pool. */
export function watchShared(
  metrics: Metrics,
  db: Database,
  queueStats: () => Promise<QueueStats>,
  leased: Record<string, () => Promise<{ due: number; held: number }>> = {},
): void {
  // The four queue gauges are collected together in one scrape: one read serves them all.
  let reading: Promise<QueueStats> | null = null;
  const queue = () => (reading ??= queueStats().finally(() => (reading = null)));
  metrics.gauge(
    'flightstatus_webhook_deliveries_due',
    'Pending deliveries due now that no worker holds',
    [],
    async () => [{ value: (await queue()).due }],
  );
  metrics.gauge('flightstatus_webhook_deliveries_in_flight', 'Pending deliveries a worker holds', [], async () => [
    { value: (await queue()).inFlight },
  ]);
  metrics.gauge(
    'flightstatus_webhook_oldest_due_seconds',
    'How long the oldest due delivery has waited (service clock)',
    [],
    async () => [{ value: (await queue()).oldestDueMs / 1000 }],
  );
  metrics.gauge('flightstatus_webhook_endpoints_disabled', 'Webhook endpoints that are off', [], async () => [
    { value: (await queue()).disabledEndpoints },
  ]);
  // The other leased work (leases/), per table: one count of each when scraped.
  metrics.gauge(
    'flightstatus_leased_rows',
    'Leased work due that no process holds (state due), and held (state held), per table',
    ['work', 'state'],
    async () => {
      const counted = await Promise.all(
        Object.entries(leased).map(async ([work, count]) => [work, await count()] as const),
      );
      return counted.flatMap(([work, c]) => [
        { labels: { work, state: 'due' }, value: c.due },
        { labels: { work, state: 'held' }, value: c.held },
      ]);
    },
  );
  watchDatabase(metrics, db);
}
