// What the composition root (app.ts) is asked for and hands back: the services of a built process,
// as the entry point, the CLI's serve command and the tests reach them.
import type { AccountsService } from './accounts/index.js';
import type { AirportCatalogue } from './airports/index.js';
import type { Batches } from './batches/index.js';
import type { BillingService } from './billing/index.js';
import type { BoardPoller } from './boards/index.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Database } from './db/index.js';
import type { FlightResolver } from './flights/index.js';
import type { HttpServer } from './http/server.js';
import type { Logger } from './logger.js';
import type { MailService, MailTransport, Notices } from './mail/index.js';
import type { Gate, MeteringService } from './metering/index.js';
import type { FlightProvider } from './providers/index.js';
import type { Scheduler } from './scheduler/index.js';
import type { SimWorld } from './sim/index.js';
import type { UsersService } from './users/index.js';
import type { DeliveryWorker, WebhookService } from './webhooks/index.js';

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
