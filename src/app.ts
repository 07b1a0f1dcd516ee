// The composition root: builds config-driven parts once (clock, database, services, HTTP) and hands
// them down. Nothing else constructs a service, and no service, connection or setting lives at
// module level. What modules do keep is shared by every service of a process and safe to share,
// because none of it depends on which service asked or changes what another sees:
// - caches of pure functions of their key: time-zone formatters and offsets (providers/zones.ts),
//   the reference airports and carriers (airports/reference.ts, compensation/), prepared statements
//   per connection (db/sqlite.ts, in WeakMaps keyed by the connection);
// - the pool of random bytes ids are drawn from (ids.ts: each byte used once, whoever asks);
// - the process metrics registry (metrics/metrics.ts: CPU, memory and the event loop are the
//   process's, one set however many services it builds);
// - pg's type parsers for INT8 and NUMERIC (db/postgres.ts: the same for every pool);
// - the route schemas' compiled validators and serializers (http/compilers.ts, kept under the
//   schema's text: the same schema compiles to the same function whichever server asks).
import { setTimeout as delay } from 'node:timers/promises';
import type { Config } from './config.js';
import { clockFor, ManualClock, systemClock, type Clock } from './clock.js';
import { openDatabase, readiness, WriteOutcome, type Database } from './db/index.js';
import { createLogger, type Logger } from './logger.js';
import { createMetering, RefusalLog, type Gate, type MeteringService } from './metering/index.js';
import { AccountsService, accountRoutes } from './accounts/index.js';
import { airportRoutes, loadCatalogue, loadReferenceAirports, type AirportCatalogue } from './airports/index.js';
import { createRecordStore, FlightLookupService, flightRoutes, LocalDateResolver, ProofRenderer, type FlightResolver } from './flights/index.js';
import { adminRoutes } from './admin/routes.js';
import { compensationRoutes } from './compensation/index.js';
import { AirportDays, BoardPoller, createBoardStore, ObservedFlightStore } from './boards/index.js';
import { clockRoutes } from './admin/clock-routes.js';
import { serviceRoutes } from './admin/service-routes.js';
import { providerRoutes } from './admin/provider-routes.js';
import { mailRoutes } from './admin/mail-routes.js';
import { createMail, creditNotices, type MailService, type MailTransport, type Notices } from './mail/index.js';
import { planRoutes } from './admin/plan-routes.js';
import { BillingService, BuyerDetails, gatewayFor, invoiceRoutes, PlansService, stripeEventRoutes } from './billing/index.js';
import { invoiceAdminRoutes } from './admin/invoice-routes.js';
import { createDeliveryQueue, deliveryQueueStats, DeliveryWorker, FanOut, Retention, prepareSecrets, reportSecretKey, Sender, WebhookService, webhookRoutes } from './webhooks/index.js';
import { batchRoutes, createBatches, type Batches } from './batches/index.js';
import { Scheduler, createRunClaims } from './scheduler/index.js';
import { countedGate, countedProvider, countedWeather, installRequestMetrics, Metrics, watchShared } from './metrics/index.js';
import { metricsRoutes } from './admin/metrics-routes.js';
import { bounded, type FlightProvider } from './providers/index.js';
import { buildProviders } from './providers/build.js';
import { createSimProvider, SimProvider, SimWeatherProvider, type SimWorld } from './sim/index.js';
import { buildWeather } from './weather/build.js';
import { CircumstancesService } from './circumstances/index.js';
import { simRoutes } from './admin/sim-routes.js';
import { installIdempotency } from './idempotency/index.js';
import { registerCompression } from './http/compression.js';
import { createHttpServer, type HttpServer } from './http/server.js';
import { installGuard } from './http/guard.js';
import { registerOpenApi, systemRoutes } from './system/routes.js';
import { UsersService } from './users/index.js';
import { dashboardRoutes } from './dashboard/index.js';
import { createEvidence, evidenceRoutes } from './evidence/index.js';
import { VERSION } from './version.js';

export interface AppOptions {
  config: Config;
  /** Overrides the clock the configuration asks for (tests pass their own manual clock). */
  clock?: Clock;
  logger?: Logger;
  /** Replaces the flight lookup service (tests of metering that must not depend on providers). */
  resolver?: FlightResolver;
  /** Replaces the configured providers (tests that need several, or a slow or partial one). */
  providers?: FlightProvider[];
  /** Replaces SMTP (tests of a failing mail server). */
  mailTransport?: MailTransport;
}

export interface App {
  http: HttpServer;
  db: Database;
  clock: Clock;
  logger: Logger;
  metering: MeteringService;
  /** Admission: authentication and credit, decided together. */
  gate: Gate;
  accounts: AccountsService;
  /** Dashboard users, sessions and invitations. */
  users: UsersService;
  catalogue: AirportCatalogue;
  /** Periodic jobs on the service clock. */
  scheduler: Scheduler;
  /** The board poll pass (also run by the scheduler). */
  poller: BoardPoller;
  /** Webhook endpoints, as the REST routes manage them. */
  webhooks: WebhookService;
  /** The delivery cycle (also run by the scheduler). */
  deliveries: DeliveryWorker;
  /** Invoices, charging and dunning (its job also run by the scheduler). */
  billing: BillingService;
  /** Flight data providers in the configured order. */
  providers: FlightProvider[];
  /** The simulated world, when it is a configured provider. */
  sim: SimWorld | null;
  /** Batches of flights (their runner works in the worker role). */
  batches: Batches;
  /** The mail outbox, and the notices the capabilities report to it. */
  mail: MailService;
  notices: Notices;
  /** Stops accepting requests, lets in-flight ones finish, commits queued usage, closes the database. */
  close(): Promise<void>;
}

/** How often retention pruning runs. */
const PRUNE_INTERVAL_MS = 60 * 60_000;

/** Services over an open database, without HTTP: what the CLI uses. */
export function buildServices(db: Database, clock: Clock, dashboard: Config['dashboard']) {
  const { metering, gate } = createMetering(db, clock);
  const plans = new PlansService(db, clock);
  const accounts = new AccountsService(db, metering, clock, plans);
  const users = new UsersService({ db, clock, accounts, signupPlan: dashboard.signupPlan, signupLimits: dashboard.signupLimits, passwordCost: dashboard.passwordCost });
  return { metering, gate, accounts, users, plans };
}

export async function buildApp(options: AppOptions): Promise<App> {
  const { config } = options;
  const clock = options.clock ?? clockFor(config.clock);
  const logger = options.logger ?? createLogger(config.logLevel);
  for (const warning of config.warnings) logger.warn(warning);

  const db = await openDatabase(config.database, {
    requireWritable: true,
    migrate: true,
    backgroundCheckpoints: true,
    onIdleError: (error) => logger.warn({ err: error }, 'idle database connection lost'),
    onBackgroundError: (message) => logger.warn({ reason: message }, 'WAL checkpoint failed; retrying'),
  });
  try {
    const metrics = new Metrics({ role: config.role });
    const services = buildServices(db, clock, config.dashboard);
    const { metering, accounts, users, plans } = services;
    const catalogue = loadCatalogue();
    // What this process does: `api` answers the public HTTP API, `worker` runs the periodic jobs, `all` both.
    const serves = config.role !== 'worker';
    const works = config.role !== 'api';
    const claims = createRunClaims(db);
    const scheduler = new Scheduler(clock, logger, clock instanceof ManualClock ? clock : null, claims, (run) =>
      metrics.jobRun(run.job, run.elsewhere ? 'elsewhere' : run.ok ? 'ok' : 'failed'),
    );
    // Webhook secrets' key: it seals endpoint secrets and the stored idempotent answers (which hold a
    // secret when they answer a create or a rotation), and queued mails (a reset link is a credential).
    const { box: secrets, choice, sealed } = await prepareSecrets(db, config.database, config.webhooks.secretKey);
    // Mail (docs/mail.md): queued by the capabilities, sent by the worker's job.
    const buyers = new BuyerDetails({ db, clock });
    const { mail, notices } = createMail({
      db, clock, logger, config: config.mail, transport: options.mailTransport, recipients: async (id, category) => (category === 'billing' ? await buyers.email(id) : null) ?? users.ownerEmail(id), seal: secrets,
      baseUrl: config.publicUrl ?? `http://${/^(127\.0\.0\.1|0\.0\.0\.0|::1?)$/.test(config.host) ? 'localhost' : config.host}:${config.port}`,
      register: works ? (job) => scheduler.register(job) : null,
    });
    const gate = creditNotices(countedGate(services.gate, metrics), notices);
    const configured: FlightProvider[] = options.providers ?? buildProviders(config, clock, () => createSimProvider(config.sim, clock));
    const sim = configured.find((p): p is SimProvider => p instanceof SimProvider);
    // Every provider call is bounded by its deadline here, once (call.ts), and counted.
    const providers = configured.map((p) => countedProvider(bounded(p, config.providerTimeoutMs), metrics));

    const http = createHttpServer({ logger, bodyLimit: config.bodyLimit, trustProxy: config.trustProxy });
    installRequestMetrics(http, metrics);
    const refusals = new RefusalLog(db);
    refusals.start((error) => logger.warn({ err: error }, 'refused-request counts could not be written; kept for the next try'));
    // Readiness follows the metered writes' last outcome (db/probe.ts).
    const writes = new WriteOutcome();
    installGuard(http, { gate, metering, clock, refusals, writes });
    const idempotency = installIdempotency(http, { db, clock, seal: secrets });
    await registerCompression(http);
    if (serves) await registerOpenApi(http, { publicUrl: config.publicUrl });
    await systemRoutes(http, { publicUrl: config.publicUrl, readiness: () => readiness(db, { outcome: writes, retry: () => metering.probeWrite() }), documents: serves });
    if (serves) {
      accountRoutes(http, { metering, plans });
      airportRoutes(http, { catalogue });
    }
    const airports = loadReferenceAirports();
    // Board watching reads the first configured provider's boards.
    // One fan-out per process: the board store starts it after each board's save, the delivery worker
    // at the start of each cycle (to finish one a crash cut short).
    const fanOut = new FanOut(db, { keepSkippedMs: config.retentionMs });
    const boardStore = createBoardStore(db, fanOut);
    const weather = countedWeather(buildWeather(config.weather, clock, sim ? new SimWeatherProvider(sim.world, airports) : null), metrics);
    const proof = new ProofRenderer(airports);
    // Final board rows: kept by the poll and by days read after the fact (src/boards/days.ts), answered from by batches.
    const observed = new ObservedFlightStore(db);
    const past = new AirportDays({ providers, observed, airports, clock, timeoutMs: config.providerTimeoutMs });
    const circumstances = new CircumstancesService({ providers, weather, boards: boardStore, airports, timeoutMs: config.providerTimeoutMs, clock, boardsKeptMs: config.retentionMs, past });
    const lookup = options.resolver ?? new FlightLookupService({ providers, clock, records: createRecordStore(db), logger, providerTimeoutMs: config.providerTimeoutMs, proof, airports, circumstances });
    const resolver = new LocalDateResolver(lookup, airports, (d) => (lookup instanceof FlightLookupService ? lookup.withProof({ screenshot: true }, d) : Promise.resolve(d))); // dateBasis=local (flights/local.ts)
    if (serves) {
      flightRoutes(http, { resolver });
      compensationRoutes(http, { airports });
    }

    const poller = new BoardPoller({ store: boardStore, providers, airports, logger, providerTimeoutMs: config.providerTimeoutMs, intervalMs: config.pollIntervalMs, observed: { store: observed, retentionMs: config.observedRetentionMs } });
    if (works) {
      scheduler.register({
        name: 'board-poll',
        intervalMs: config.pollIntervalMs,
        once: true,
        run: async (at, stopping) => {
          const started = performance.now();
          const report = await poller.pass(at, stopping);
          metrics.boardPass(report, (performance.now() - started) / 1000);
          logger.info(report, 'board poll pass');
        },
      });
    }

    reportSecretKey(logger, choice, sealed);
    // Evidence PDFs: the key from FLIGHTSTATUS_EVIDENCE_KEY, a key file beside SQLite, or none (503) on PostgreSQL.
    const evidence = createEvidence(config.database, config.evidence.key, { clock, logger, proof, airports, version: VERSION, publicUrl: config.publicUrl, certificate: config.evidence.certificate });
    if (serves) evidenceRoutes(http, { resolver, evidence });
    const sealedAnswers = await idempotency.sealStored();
    if (sealedAnswers > 0) logger.info({ sealed: sealedAnswers }, `sealed ${sealedAnswers} idempotent answers stored in clear by an earlier version`);
    const policy = { allowHttp: config.webhooks.allowHttp, allowPrivate: config.webhooks.allowPrivate };
    const sender = new Sender({ policy, timeoutMs: config.webhooks.timeoutMs, socketsPerHost: config.webhooks.concurrency });
    const webhooks = new WebhookService({ db, clock, wallClock: systemClock, catalogue, secrets, sender, policy, notices });
    if (serves) webhookRoutes(http, { webhooks });
    const batches = createBatches({ db, clock, wallClock: systemClock, logger, gate, metering, resolver, accounts, providers, observed, airportDays: past, publish: (e) => webhooks.publish(e), config: config.batches });
    if (serves) batchRoutes(http, { batches: batches.service });
    const deliveries = new DeliveryWorker({
      queue: createDeliveryQueue(db, { cycleMs: config.webhooks.intervalMs }),
      fanOut,
      sender,
      secrets,
      catalogue,
      clock,
      wallClock: systemClock,
      logger,
      concurrency: config.webhooks.concurrency,
      perEndpoint: config.webhooks.perEndpoint,
      cycleMs: config.webhooks.intervalMs,
      endpointDisabled: (id, at) => webhooks.reportDisabled(id, at),
      sleep: clock instanceof ManualClock ? null : (ms, signal) => delay(ms, undefined, { signal }).catch(() => {}),
    });
    // Not `once`: every worker takes deliveries from the shared queue (its claims keep each to one).
    if (works) {
      scheduler.register({
        name: 'webhook-deliver',
        intervalMs: config.webhooks.intervalMs,
        run: async () => {
          const report = await deliveries.cycle();
          metrics.deliveryCycle(report);
          if (report.attempted > 0) logger.info(report, 'webhook delivery cycle');
        },
      });
    }

    const { stripe } = config.billing;
    const billing = new BillingService({
      db,
      clock,
      accounts,
      metering,
      plans,
      logger,
      gateway: gatewayFor(config.billing),
      notices,
      seller: config.seller,
      buyers,
      options: { graceMs: config.billing.graceMs, retryDelaysMs: config.billing.retryDelaysMs },
    });
    if (serves) {
      invoiceRoutes(http, { billing });
      await dashboardRoutes(http, { users, accounts, webhooks, catalogue, gate, metering, refusals, resolver, evidence, db, clock, billing, plans, batches: batches.service, mail, notices, publicUrl: config.publicUrl });
      if (stripe?.webhookSecret) stripeEventRoutes(http, { billing, signingSecret: stripe.webhookSecret, wallClock: systemClock });
    }
    if (works) {
      // `once`: invoices are unique per account and period anyway; one process doing the month's
      // work spares the others from racing it.
      scheduler.register({
        name: 'billing',
        intervalMs: config.billing.intervalMs,
        once: true,
        run: async (at, stopping) => {
          const report = await billing.run(at, stopping);
          const c = report.charged;
          if (report.monthsClosed.length + report.feeInvoices + report.opened + c.succeeded + c.declined + c.unavailable > 0) logger.info(report, 'billing run');
        },
      });
    }

    if (works) {
      // Retention: settled deliveries and their events after FLIGHTSTATUS_RETENTION_DAYS, and the
      // job-run records; hourly, in bounded batches, by one process.
      const retention = new Retention(db);
      scheduler.register({
        name: 'prune',
        intervalMs: PRUNE_INTERVAL_MS,
        once: true,
        run: async (at, stopping) => {
          const report = await retention.prune(at - config.retentionMs, stopping);
          const jobRuns = await claims.prune(at - config.retentionMs);
          const answers = await idempotency.prune(at);
          metrics.prunedRows('batches', await batches.prune(at, stopping));
          metrics.prunedRows('idempotency_keys', answers);
          metrics.prunedRows('mail_outbox', await mail.prune(at));
          metrics.prunedRows('board_events', report.events);
          metrics.prunedRows('deliveries', report.deliveries);
          metrics.prunedRows('delivery_attempts', report.attempts);
          metrics.prunedRows('job_runs', jobRuns);
          if (report.events + jobRuns + answers > 0) logger.info({ ...report, jobRuns, idempotencyKeys: answers }, 'pruned');
        },
      });
    }

    watchShared(metrics, db, () => deliveryQueueStats(db, clock.now()));

    if (config.adminToken) {
      metricsRoutes(http, { adminToken: config.adminToken, metrics });
      // Every role keeps the clock and the service report (how a multi-process deployment is driven
      // and checked); the rest of the operator API is the API processes'.
      clockRoutes(http, { adminToken: config.adminToken, clock, scheduler });
      serviceRoutes(http, { adminToken: config.adminToken, clock, db, scheduler, role: config.role, holder: claims.holder });
      if (serves) {
        adminRoutes(http, { adminToken: config.adminToken, accounts, metering, clock, billing });
        providerRoutes(http, { adminToken: config.adminToken, providers, weather, providerTimeoutMs: config.providerTimeoutMs });
        planRoutes(http, { adminToken: config.adminToken, plans });
        invoiceAdminRoutes(http, { adminToken: config.adminToken, billing, accounts, clock });
        mailRoutes(http, { adminToken: config.adminToken, mail, accounts });
        if (sim) simRoutes(http, { adminToken: config.adminToken, world: sim.world, catalogue });
      }
    }
    await http.ready();
    scheduler.start();
    if (works) batches.runner.start();

    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        // Stop taking work everywhere at once: new requests get 503 while those in flight finish, the
        // delivery cycle gives back what it claimed but did not start, a poll pass ends after its airport.
        await Promise.all([http.close(), deliveries.stop(), scheduler.stop(), batches.runner.stop()]);
        sender.close();
        mail.close();
        await metering.drain();
        await refusals.stop();
        await db.close();
      })());
    return {
      http, db, clock, logger, metering, gate, accounts, users, catalogue, scheduler, poller, webhooks,
      deliveries, billing, providers, sim: sim?.world ?? null, batches, mail, notices, close,
    };
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
}
