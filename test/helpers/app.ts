// A real service on a real, fresh database, driven through HTTP (inject or a real port), on a
// manual clock so tests can move time.
import type { KeyObject } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp, type App } from '../../src/app.js';
import { ManualClock, type Clock } from '../../src/clock.js';
import {
  parseEvidenceKey,
  type BatchConfig,
  type BillingConfig,
  type Config,
  type MailConfig,
  type PdfSigner,
  type ProviderName,
  type Role,
  type SimConfig,
  type UpstreamConfig,
  type WeatherConfig,
  type WebhookConfig,
} from '../../src/config.js';
import type { Seller } from '../../src/billing/index.js';
import type { FlightProvider } from '../../src/providers/index.js';
import type { FlightQuery, FlightResolver, FlightStatusData, Resolution } from '../../src/flights/index.js';
import { createLogger, type Logger } from '../../src/logger.js';
import type { PlanInput } from '../../src/accounts/index.js';
import { createTestDatabase, type DatabaseKind, type TestDatabase } from './databases.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
export const T0 = Date.UTC(2026, 2, 1, 12, 0, 0);
/** FLIGHTSTATUS_WEBHOOK_SECRET_KEY of test services on PostgreSQL. */
export const TEST_SECRET_KEY = Buffer.alloc(32, 0x5e);
/** FLIGHTSTATUS_EVIDENCE_KEY of test services on PostgreSQL (an Ed25519 seed). */
export const TEST_EVIDENCE_KEY = parseEvidenceKey('e7'.repeat(32))!;

export interface TestApp {
  app: App;
  clock: ManualClock;
  database: TestDatabase;
  config: Config;
  /** Creates an account (and one key) through the service layer; returns the plaintext key. */
  account(options?: AccountOptions): Promise<{ accountId: string; slug: string; keyId: string; key: string }>;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  admin(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface AccountOptions {
  slug?: string;
  plan?: PlanInput | null;
  unlimited?: boolean;
}

export interface TestAppOptions {
  adminToken?: string | null;
  /** Replaces the real flight lookup (only for tests of metering that must not depend on providers). */
  resolver?: FlightResolver;
  bodyLimit?: number;
  /** FLIGHTSTATUS_PUBLIC_URL (default unset). */
  publicUrl?: string;
  /** Defaults to a manual clock at T0; pass systemClock to test system-clock behaviour. */
  clock?: Clock;
  /** Fault injection of the simulated world (FLIGHTSTATUS_SIM_LATENCY / _FAILURES). */
  sim?: Partial<Pick<SimConfig, 'latency' | 'failures'>>;
  providerTimeoutMs?: number;
  /** Board poll interval (default 30 minutes); tests of delivery alone set it out of reach. */
  pollIntervalMs?: number;
  /** Webhook settings over the test defaults (http and private targets allowed, for local receivers). */
  webhooks?: Partial<WebhookConfig>;
  /** FLIGHTSTATUS_PROVIDERS (default sim), and the real providers' settings (fixture servers' URLs). */
  providerNames?: ProviderName[];
  upstream?: Partial<UpstreamConfig>;
  /** Providers in place of the configured one (several, or wrapped ones), built on the test's clock. */
  providers?: (clock: ManualClock) => FlightProvider[];
  /** FLIGHTSTATUS_SIGNUP_PLAN (default 1,000 included requests; null: sign-up off). */
  signupPlan?: { included: number; overage: boolean } | null;
  /** The service's logger (default: silent); tests of what reaches the logs pass one writing to memory. */
  logger?: Logger;
  /** Billing settings over the defaults (hourly job, 1 h grace, retries after 1, 3 and 5 days, manual gateway). */
  billing?: Partial<BillingConfig>;
  /** The seller on invoices (default: not VAT-registered, 14 days to pay). */
  seller?: Partial<Seller>;
  /** What the process does (default all). */
  role?: Role;
  /** Another test app's database, shared (several processes on one database); its owner drops it. */
  database?: TestDatabase;
  /** FLIGHTSTATUS_RETENTION_DAYS (default 30). */
  retentionDays?: number;
  /**
   * FLIGHTSTATUS_SIGNUPS_PER_ADDRESS_PER_HOUR / _PER_HOUR. Default 1,000 each: tests sign up many
   * visitors from inject's one address; the tests of the limits pass the service's defaults.
   */
  signupLimits?: { perAddress: number; overall: number };
  /** FLIGHTSTATUS_TRUST_PROXY (default off). */
  trustProxy?: false | string[];
  /** FLIGHTSTATUS_WEATHER and the IEM archive (default auto). */
  weather?: Partial<WeatherConfig>;
  /** FLIGHTSTATUS_DB_POOL_SIZE (PostgreSQL; default 10). */
  poolSize?: number;
  /** Batch settings over the defaults (32 lookups in flight, 16 per batch, 5-minute leases, 30 days kept). */
  batches?: Partial<BatchConfig>;
  /** The budgets of following watched flights through the providers (default 600 an hour, 120 per account). */
  follow?: Partial<Config['follow']>;
  /** log2(N) of new password hashes (default 12, for speed). */
  passwordCost?: number;
  /** FLIGHTSTATUS_SMTP_URL and FLIGHTSTATUS_MAIL_FROM (default unset: no mail); tests pass a local SMTP server's. */
  mail?: MailConfig | null;
  /** FLIGHTSTATUS_EVIDENCE_KEY (default: TEST_EVIDENCE_KEY on PostgreSQL, unset on SQLite: a key file). */
  evidenceKey?: KeyObject | null;
  /** The PDF signature's signer (FLIGHTSTATUS_EVIDENCE_CERT); unset: self-signed from the evidence key. */
  evidenceCertificate?: PdfSigner;
}

let counter = 0;

export async function startTestApp(kind: DatabaseKind, options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase(kind, { migrated: true }));
  // A database another app shares stays for its owner to drop.
  const drop = options.database ? async () => {} : () => database.drop();
  const clock = options.clock ?? new ManualClock(T0);
  const config: Config = {
    port: 0,
    host: '127.0.0.1',
    database:
      database.target.kind === 'postgres' && options.poolSize !== undefined
        ? { ...database.target, poolSize: options.poolSize }
        : database.target,
    adminToken: options.adminToken === undefined ? ADMIN_TOKEN : options.adminToken,
    logLevel: 'silent',
    bodyLimit: options.bodyLimit ?? 65536,
    publicUrl: options.publicUrl ?? null,
    trustProxy: options.trustProxy ?? false,
    clock: { kind: 'manual', start: null },
    providers: options.providerNames ?? ['sim'],
    upstream: {
      aerodatabox: { key: '', url: 'https://aerodatabox.p.rapidapi.com', requestsPerMinute: 30 },
      aeroapi: { key: '', url: 'https://aeroapi.flightaware.com/aeroapi', requestsPerMinute: 10 },
      aviationstack: { key: '', url: 'https://api.aviationstack.com/v1', requestsPerMinute: 10 },
      opensky: {
        clientId: '',
        clientSecret: '',
        url: 'https://opensky-network.org/api',
        authUrl: 'https://auth.opensky-network.org/auth/realms/opensky-network/protocol/openid-connect/token',
        requestsPerMinute: 5,
      },
      ...options.upstream,
    },
    providerTimeoutMs: options.providerTimeoutMs ?? 8000,
    weather: {
      source: 'auto',
      iem: { url: 'https://mesonet.agron.iastate.edu', requestsPerMinute: 20 },
      ...options.weather,
    },
    pollIntervalMs: options.pollIntervalMs ?? 30 * 60_000,
    observedRetentionMs: 30 * 86_400_000,
    webhooks: {
      intervalMs: 2 * 60_000,
      timeoutMs: 10_000,
      allowHttp: true,
      allowPrivate: true,
      // PostgreSQL needs the key configured (the start refuses otherwise); SQLite makes its key file.
      secretKey: database.kind === 'postgres' ? TEST_SECRET_KEY : null,
      concurrency: 64,
      perEndpoint: 8,
      ...options.webhooks,
    },
    // PostgreSQL without the key would answer the evidence routes 503; SQLite makes its key file.
    evidence: {
      key:
        options.evidenceKey !== undefined
          ? options.evidenceKey
          : database.kind === 'postgres'
            ? TEST_EVIDENCE_KEY
            : null,
      certificate: options.evidenceCertificate ?? null,
    },
    batches: { concurrency: 32, perBatch: 16, leaseMs: 300_000, retentionMs: 30 * 86_400_000, ...options.batches },
    follow: { intervalMs: 5 * 60_000, requestsPerHour: 600, accountRequestsPerHour: 120, ...options.follow },
    sim: { seed: 'test', latency: options.sim?.latency ?? {}, failures: options.sim?.failures ?? {} },
    // Password hashes at N = 2^12 (verification reads each hash's own parameters): the suite signs up
    // and in many times, and OWASP's 2^17 takes half a second each.
    dashboard: {
      signupPlan: options.signupPlan === undefined ? { included: 1000, overage: false } : options.signupPlan,
      passwordCost: options.passwordCost ?? 12,
      signupLimits: options.signupLimits ?? { perAddress: 1000, overall: 1000 },
    },
    billing: {
      intervalMs: 60 * 60_000,
      graceMs: 60 * 60_000,
      retryDelaysMs: [1, 3, 5].map((d) => d * 86_400_000),
      gateway: options.billing?.stripe ? 'stripe' : (options.billing?.gateway ?? 'manual'),
      stripe: null,
      ...options.billing,
    },
    seller: {
      name: 'Flight Status Service',
      address: [],
      country: null,
      vatId: null,
      email: null,
      paymentDetails: null,
      paymentTermsDays: 14,
      ...options.seller,
    },
    mail: options.mail ?? null,
    role: options.role ?? 'all',
    retentionMs: (options.retentionDays ?? 30) * 86_400_000,
    warnings: [],
  };
  let app: App;
  try {
    app = await buildApp({
      config,
      clock,
      logger: options.logger ?? createLogger('silent'),
      resolver: options.resolver,
      providers: options.providers?.(clock as ManualClock),
    });
  } catch (error) {
    await drop();
    throw error;
  }

  return {
    app,
    clock: clock as ManualClock, // a system clock only where a test asked for one
    database,
    config,
    async account(o = {}) {
      const slug = o.slug ?? `acct-${process.pid}-${++counter}`;
      const plan = o.plan === undefined ? { included: 1000, overage: false } : (o.plan ?? undefined);
      const created = await app.accounts.createAccount({ slug, plan, unlimited: o.unlimited ?? false });
      if (created.kind !== 'ok') throw new Error(created.message);
      const key = await app.accounts.createKey(created.value.id, 'test');
      if (key.kind !== 'ok') throw new Error(key.message);
      return { accountId: created.value.id, slug, keyId: key.value.keyId, key: key.value.key };
    },
    get: (url, headers = {}) => app.http.inject({ method: 'GET', url, headers }),
    admin: (method, url, body) =>
      app.http.inject({
        method,
        url,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        ...(body === undefined ? {} : { payload: body as object }),
      }),
    async close() {
      await app.close();
      await drop();
    },
  };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

export function json<T = any>(response: LightMyRequestResponse): T {
  return JSON.parse(response.body) as T;
}

export const STATUS_URL = '/api/v1/flights/status?flightNumber=W63101&flightDate=2026-02-20';

/** The not-found answer to a query, for tests that need a resolver to answer something. */
export function notFoundAnswer(query: FlightQuery): Resolution {
  return { kind: 'answered', data: notFoundData(query) };
}

function notFoundData(query: FlightQuery): FlightStatusData {
  return {
    flightNumber: query.flightNumber,
    flightDate: query.flightDate,
    originIata: query.origin,
    destinationIata: query.destination,
    selected: null,
    flightDelay: null,
    compensation: null,
    meta: {
      durationMs: 0,
      startedAt: '2026-01-01T00:00:00.000Z',
      finishedAt: '2026-01-01T00:00:00.000Z',
      cached: false,
      persisted: false,
      recordId: null,
      source: null,
    },
    sources: [],
  };
}

/** Every route with its methods, read from Fastify's route tree (a line's indentation says which route it extends). */
export function routesOf(t: TestApp): { path: string; methods: string[] }[] {
  const routes: { path: string; methods: string[] }[] = [];
  const stack: { indent: number; path: string }[] = [];
  for (const line of t.app.http.printRoutes({ commonPrefix: false }).split('\n')) {
    // A segment extends its parent's path as written: "/:id" under "/api/v1/webhooks", "api/health" under "/".
    const match = /^([\s│]*[├└]── )(\S+) \(([A-Z, ]+)\)/.exec(line);
    if (!match) continue;
    const indent = match[1]!.length;
    while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    const path = (stack[stack.length - 1]?.path ?? '') + match[2]!;
    stack.push({ indent, path });
    routes.push({ path, methods: match[3]!.split(', ') });
  }
  return routes;
}
