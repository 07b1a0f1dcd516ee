// The composition root: builds what every capability stands on once (clock, database, logger,
// metrics, scheduler, secrets, mail, providers, the HTTP front), then the capabilities, each of which
// builds its own services (its `capability.ts`), and plugs them in by the process's role: routes where
// it serves, jobs where it works. What modules may keep at module level: docs/architecture.md.
import type { App, AppOptions } from './app-shape.js';
import type { Capability } from './capability.js';
import type { Config } from './config.js';
import { clockFor, ManualClock, systemClock, type Clock } from './clock.js';
import { openDatabase, type Database } from './db/index.js';
import { createLogger } from './logger.js';
import { createMetering } from './metering/index.js';
import { AccountsService, accountRoutes } from './accounts/index.js';
import { airportsCapability } from './airports/index.js';
import { flightsCapability } from './flights/index.js';
import { compensationRoutes } from './compensation/index.js';
import { boardsCapability } from './boards/index.js';
import { creditNotices, mailCapability } from './mail/index.js';
import { billingCapability, BuyerDetails, PlansService } from './billing/index.js';
import { deliveryQueueStats, prepareSecrets, reportSecretKey, webhooksCapability } from './webhooks/index.js';
import { createBatches } from './batches/index.js';
import { createWatches } from './watches/index.js';
import { createRunClaims, pruneJob, Scheduler, schedulerCapability } from './scheduler/index.js';
import { countedGate, countedProvider, countedWeather, Metrics, watchShared } from './metrics/index.js';
import { bounded, type FlightProvider } from './providers/index.js';
import { buildProviders } from './providers/build.js';
import { createSimProvider, SimProvider, SimWeatherProvider } from './sim/index.js';
import { buildWeather } from './weather/build.js';
import { named, type HttpServer } from './http/index.js';
import { buildFront } from './system/index.js';
import { UsersService } from './users/index.js';
import { dashboardRoutes } from './dashboard/index.js';
import { createEvidence, evidenceRoutes } from './evidence/index.js';
import { operatorCapability } from './admin/index.js';
import { VERSION } from './version.js';

/** Services over an open database, without HTTP: what the CLI uses. */
export function buildServices(db: Database, clock: Clock, dashboard: Config['dashboard']) {
  const { metering, gate } = createMetering(db, clock);
  const plans = new PlansService(db, clock);
  const accounts = new AccountsService(db, metering, clock, plans);
  const { signupPlan, signupLimits, passwordCost } = dashboard;
  const users = new UsersService({ db, clock, accounts, signupPlan, signupLimits, passwordCost });
  return { metering, gate, accounts, users, plans };
}

export type { App, AppOptions };

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
    const { metering, accounts, users, plans, ...services } = buildServices(db, clock, config.dashboard);
    const airportsPart = await airportsCapability({ db, clock, logger, selectedBy: (iata) => hooks.selecting(iata) });
    const { catalogue, reference: airports } = airportsPart;
    const { retentionMs, providerTimeoutMs, adminToken, publicUrl } = config;
    const claims = createRunClaims(db);
    const scheduler = new Scheduler(clock, logger, clock instanceof ManualClock ? clock : null, claims, (run) =>
      metrics.jobRun(run.job, run.elsewhere ? 'elsewhere' : run.ok ? 'ok' : 'failed'),
    );
    // Webhook secrets' key: it seals endpoint secrets, the stored idempotent answers (which hold a
    // secret when they answer a create or a rotation) and queued mails (a reset link is a credential).
    const { box: secrets, choice, sealed } = await prepareSecrets(db, config.database, config.webhooks.secretKey);
    reportSecretKey(logger, choice, sealed);
    const buyers = new BuyerDetails({ db, clock });
    // Links sent outside a request (mail, flight.settled's evidence URL): the public URL, else where the service listens.
    const baseUrl =
      publicUrl ??
      `http://${/^(127\.0\.0\.1|0\.0\.0\.0|::1?)$/.test(config.host) ? 'localhost' : config.host}:${config.port}`;
    const mailing = mailCapability({
      db,
      clock,
      logger,
      config: config.mail,
      transport: options.mailTransport,
      recipients: async (id, category) =>
        (category === 'billing' ? await buyers.email(id) : null) ?? users.ownerEmail(id),
      seal: secrets,
      publicUrlSet: publicUrl !== null,
      baseUrl,
    });
    const { mail, notices } = mailing;
    const gate = creditNotices(countedGate(services.gate, metrics), notices);
    const configured: FlightProvider[] =
      options.providers ?? buildProviders(config, clock, () => createSimProvider(config.sim, clock));
    const sim = configured.find((p): p is SimProvider => p instanceof SimProvider);
    // Every provider call is bounded by its deadline here, once (call.ts), and counted.
    const providers = configured.map((p) => countedProvider(bounded(p, providerTimeoutMs), metrics));
    const weather = countedWeather(
      buildWeather(config.weather, clock, sim ? new SimWeatherProvider(sim.world, airports) : null),
      metrics,
    );

    const serves = config.role !== 'worker'; // `api` answers the public HTTP API, `worker` runs the periodic jobs, `all` both
    const front = await buildFront({
      http: { bodyLimit: config.bodyLimit, trustProxy: config.trustProxy },
      logger,
      db,
      clock,
      gate,
      metering,
      metrics,
      seal: secrets,
      publicUrl,
      documents: serves,
    });
    const { http, refusals } = front;

    const hooks = webhooksCapability({
      db,
      clock,
      logger,
      config: config.webhooks,
      retentionMs,
      catalogue,
      secrets,
      notices,
      cycled: (report) => metrics.deliveryCycle(report),
    });
    const boards = boardsCapability({
      db,
      clock,
      logger,
      providers,
      airports,
      subscribers: hooks.fanOut,
      config,
      passed: (report, seconds) => metrics.boardPass(report, seconds),
    });
    const flights = flightsCapability({
      db,
      clock,
      logger,
      providers,
      airports,
      weather,
      boards: boards.store,
      past: boards.days,
      config,
      resolver: options.resolver,
    });
    // Evidence PDFs: the key from FLIGHTSTATUS_EVIDENCE_KEY, a key file beside SQLite, or none (503) on PostgreSQL.
    const evidence = createEvidence(config.database, config.evidence.key, {
      clock,
      logger,
      proof: flights.proof,
      airports,
      version: VERSION,
      publicUrl,
      certificate: config.evidence.certificate,
    });
    const batches = createBatches({
      db,
      clock,
      wallClock: systemClock,
      logger,
      gate,
      metering,
      resolver: flights.resolver,
      accounts,
      providers,
      observed: boards.observed,
      airportDays: boards.days,
      publish: (e) => hooks.webhooks.publish(e),
      config: config.batches,
      publicUrl,
    });
    const watched = { db, clock, logger, metering, refusals, hooks, flights, boards, baseUrl };
    const watches = createWatches({ ...watched, providers, airports, config });
    const { billing, ...invoicing } = billingCapability(
      { db, clock, accounts, metering, plans, logger, notices, seller: config.seller, buyers },
      config.billing,
    );

    // The capabilities, each plugged in by what this process does (FLIGHTSTATUS_ROLE). Jobs due at one
    // instant run in this order: mail, the board poll, the watches' following and settling, then the
    // deliveries of what they saw (at once, not a cycle later), billing.
    const capabilities: Capability<HttpServer>[] = [
      { routes: (scope) => accountRoutes(scope, { metering, plans }) },
      airportsPart,
      flights,
      { routes: (scope) => compensationRoutes(scope, { airports }) },
      { routes: (scope) => evidenceRoutes(scope, { resolver: flights.resolver, evidence }) },
      mailing,
      boards,
      watches,
      hooks,
      batches,
      invoicing,
      {
        routes: (scope) =>
          dashboardRoutes(scope, {
            users,
            accounts,
            webhooks: hooks.webhooks,
            catalogue,
            gate,
            metering,
            refusals,
            resolver: flights.resolver,
            evidence,
            db,
            clock,
            billing,
            plans,
            batches: batches.service,
            watches: watches.service,
            mail,
            notices,
            publicUrl,
          }),
      },
      operatorCapability({
        adminToken,
        role: config.role,
        clock,
        db,
        metrics,
        scheduler,
        holder: claims.holder,
        accounts,
        metering,
        billing,
        plans,
        mail,
        providers,
        weather,
        providerTimeoutMs,
        additions: airportsPart.additions,
        world: sim?.world ?? null,
      }),
      schedulerCapability(claims, retentionMs),
      { prune: front.prune },
    ];
    const works = config.role !== 'api';
    for (const capability of capabilities) {
      const { everyRole, routes } = capability;
      if (everyRole) await http.register(named('every role', async (scope: HttpServer) => everyRole(scope)));
      if (routes && serves) await http.register(named('routes', async (scope: HttpServer) => routes(scope)));
      if (works) for (const job of capability.jobs ?? []) scheduler.register(job);
    }
    if (works) scheduler.register(pruneJob(capabilities, logger, (table, rows) => metrics.prunedRows(table, rows)));
    watchShared(
      metrics,
      db,
      () => deliveryQueueStats(db, clock.now()),
      Object.assign({}, ...capabilities.map((capability) => capability.leased)),
    );
    await http.ready();
    scheduler.start();
    if (works) for (const capability of capabilities) capability.start?.();

    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        // Stop taking work everywhere at once: new requests get 503 while those in flight finish, the
        // delivery cycle gives back what it claimed but did not start, a poll pass ends after its airport.
        await Promise.all([http.close(), scheduler.stop(), ...capabilities.map((capability) => capability.stop?.())]);
        for (const capability of capabilities) capability.close?.();
        await metering.drain();
        await refusals.stop();
        await db.close();
      })());
    return {
      http,
      db,
      clock,
      logger,
      metering,
      gate,
      accounts,
      users,
      catalogue,
      scheduler,
      poller: boards.poller,
      webhooks: hooks.webhooks,
      deliveries: hooks.deliveries,
      billing,
      providers,
      sim: sim?.world ?? null,
      batches,
      mail,
      notices,
      close,
    };
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
}
