// What this process has done and is doing, in Prometheus' text format (prom-client): GET /metrics.
// Counters start at zero with the process (a scrape per process; Prometheus sums them). Gauges that
// describe shared state (the delivery queue) are read from the database when scraped.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds; from a fast cached answer to a provider timeout. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Process CPU, memory (RSS, heap spaces), file descriptors, GC and the event loop's lag: one set per
 * process however many services it builds (tests build hundreds), since the lag monitor, once
 * started, runs as long as the process does.
 */
let processRegistry: Registry | null = null;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** What the service reports as it works; each capability's door calls the part it knows. */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly requestSeconds: Histogram<'method' | 'route' | 'status'>;
  private readonly credits: Counter<'outcome' | 'reason'>;
  private readonly providerCalls: Counter<'provider' | 'kind' | 'outcome'>;
  private readonly providerSeconds: Histogram<'provider' | 'kind'>;
  private readonly pollSeconds: Histogram;
  private readonly pollRows: Counter;
  private readonly pollEvents: Counter;
  private readonly pollFailedBoards: Counter;
  private readonly attempts: Counter<'outcome'>;
  private readonly jobRuns: Counter<'job' | 'outcome'>;
  private readonly pruned: Counter<'table'>;

  constructor(labels: { role: string }) {
    const registry = this.registry;
    registry.setDefaultLabels({ role: labels.role });
    const counter = <L extends string>(name: string, help: string, labelNames: L[] = []) =>
      new Counter<L>({ name, help, labelNames, registers: [registry] });
    const histogram = <L extends string>(name: string, help: string, labelNames: L[], buckets = LATENCY_BUCKETS) =>
      new Histogram<L>({ name, help, labelNames, buckets, registers: [registry] });

    this.requests = counter('flightstatus_http_requests_total', 'HTTP requests answered, by route pattern and status', [
      'method',
      'route',
      'status',
    ]);
    this.requestSeconds = histogram('flightstatus_http_request_duration_seconds', 'Time to answer an HTTP request', [
      'method',
      'route',
      'status',
    ]);
    this.credits = counter(
      'flightstatus_credits_total',
      'Admissions of metered requests: outcome taken (a credit and its usage row) or refused, with the reason',
      ['outcome', 'reason'],
    );
    this.providerCalls = counter(
      'flightstatus_provider_calls_total',
      'Calls to flight data providers, by outcome (hit, miss, incomplete, error:KIND, skipped)',
      ['provider', 'kind', 'outcome'],
    );
    this.providerSeconds = histogram('flightstatus_provider_call_duration_seconds', 'Time a provider call took', [
      'provider',
      'kind',
    ]);
    // Its _count is the passes this process ran; failed ones are flightstatus_job_runs_total{job="board-poll",outcome="failed"}.
    this.pollSeconds = histogram(
      'flightstatus_board_poll_duration_seconds',
      'Time one board poll pass took',
      [],
      [0.1, 0.25, 0.5, 1, 1.5, 2, 3, 5, 10, 30, 60],
    );
    this.pollRows = counter('flightstatus_board_poll_rows_total', 'Board rows read by poll passes');
    this.pollEvents = counter('flightstatus_board_events_total', 'Board events stored by poll passes');
    this.pollFailedBoards = counter('flightstatus_board_poll_failed_boards_total', 'Boards a poll pass could not read');
    this.attempts = counter(
      'flightstatus_webhook_attempts_total',
      'Delivery attempts by outcome: delivered, retrying, failed (given up)',
      ['outcome'],
    );
    this.jobRuns = counter(
      'flightstatus_job_runs_total',
      'Periodic job runs in this process: ok, failed, or elsewhere (another process took the slot)',
      ['job', 'outcome'],
    );
    this.pruned = counter('flightstatus_pruned_rows_total', 'Rows removed by retention pruning', ['table']);
  }

  request(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.requestSeconds.observe(labels, seconds);
  }

  credit(outcome: 'taken' | 'refused', reason: string): void {
    this.credits.inc({ outcome, reason });
  }

  providerCall(provider: string, kind: string, outcome: string, seconds: number): void {
    this.providerCalls.inc({ provider, kind, outcome });
    this.providerSeconds.observe({ provider, kind }, seconds);
  }

  boardPass(report: { rows: number; events: number; failedBoards: string[] }, seconds: number): void {
    this.pollSeconds.observe(seconds);
    this.pollRows.inc(report.rows);
    this.pollEvents.inc(report.events);
    this.pollFailedBoards.inc(report.failedBoards.length);
  }

  deliveryCycle(report: { delivered: number; retrying: number; failed: number }): void {
    this.attempts.inc({ outcome: 'delivered' }, report.delivered);
    this.attempts.inc({ outcome: 'retrying' }, report.retrying);
    this.attempts.inc({ outcome: 'failed' }, report.failed);
  }

  jobRun(job: string, outcome: 'ok' | 'failed' | 'elsewhere'): void {
    this.jobRuns.inc({ job, outcome });
  }

  prunedRows(table: string, rows: number): void {
    this.pruned.inc({ table }, rows);
  }

  /**
   * A gauge read when scraped: `read` answers its values (one per label set). A failed read leaves
   * the gauge out of that scrape instead of failing the whole answer.
   */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: L[],
    read: () =>
      | Promise<Array<{ labels?: Partial<Record<L, string>>; value: number }>>
      | Array<{ labels?: Partial<Record<L, string>>; value: number }>,
  ): void {
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        try {
          for (const { labels, value } of await read()) {
            if (labels) this.set(labels, value);
            else this.set(value);
          }
        } catch {
          // Left empty for this scrape: the database may be down, which /api/ready reports.
        }
      },
    });
  }

  async text(): Promise<string> {
    const [own, shared] = await Promise.all([this.registry.metrics(), processMetrics().metrics()]);
    return `${own}\n${shared}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
