// The service's metrics (GET /metrics, docs/operator.md "Metrics"): a registry per process, fed by
// wrappers around the gate, the providers and the HTTP server, and by the jobs' reports.
export { Metrics } from './metrics.js';
export { countedGate, countedProvider, countedWeather, installRequestMetrics, watchShared } from './instruments.js';
