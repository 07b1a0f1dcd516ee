// What the dashboard's pages receive: the services (DashboardDeps) and what every page shares
// (PageContext). Apart from routes.ts so each capability's pages can import it without a cycle.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountsService, AccountView } from '../accounts/index.js';
import type { BillingService, PlansService } from '../billing/index.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/index.js';
import type { UsersService } from '../users/index.js';
import type { AirportCatalogue } from '../airports/index.js';
import type { WebhookService } from '../webhooks/index.js';
import type { Gate, MeteringService, RefusalLog } from '../metering/index.js';
import type { FlightResolver } from '../flights/index.js';
import type { EvidenceService } from '../evidence/index.js';
import type { BatchService } from '../batches/index.js';
import type { WatchService } from '../watches/index.js';
import type { MailService, Notices } from '../mail/index.js';
import type { Html } from '../html.js';
import type { Section } from './layout.js';

export interface DashboardDeps {
  users: UsersService;
  accounts: AccountsService;
  webhooks: WebhookService;
  catalogue: AirportCatalogue;
  gate: Gate;
  metering: MeteringService;
  refusals: RefusalLog;
  resolver: FlightResolver;
  /** Evidence PDFs of the flights looked up. */
  evidence: EvidenceService;
  db: Database;
  clock: Clock;
  billing: BillingService;
  plans: PlansService;
  batches: BatchService;
  /** Watches of flights: the same service as /api/v1/watches. */
  watches: WatchService;
  /** The mail outbox: unsubscribe links, and whether mail is on at all. */
  mail: MailService;
  /** What is told by mail: reset and confirmation links. */
  notices: Notices;
  /** FLIGHTSTATUS_PUBLIC_URL, for the examples pages show; else the request's own host. */
  publicUrl: string | null;
}

/** Renders a page in the frame, for the signed-in user or the visitor. */
export type Render = (
  request: FastifyRequest,
  reply: FastifyReply,
  title: string,
  body: Html,
  o?: { status?: number; section?: Section; accountName?: string; scripts?: readonly string[] },
) => FastifyReply;

/** What the pages of each capability share. */
export interface PageContext {
  render: Render;
  /** A preHandler: sends a visitor who is not signed in to sign-in, and back afterwards. */
  signedIn: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
  /** The signed-in user's account, as it is now. */
  account: (request: FastifyRequest) => Promise<AccountView>;
  accountName: (request: FastifyRequest) => Promise<string>;
}
