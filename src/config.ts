// One typed, validated reading of the environment. Every setting is checked once at start-up;
// a bad value stops the start with one line per problem, saying what to fix.
import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { CALL_KINDS, type CallKind } from './providers/types.js';
import { parseInstant } from './clock.js';
import { parseSecretKey } from './webhooks/secrets.js';

export type DatabaseTarget =
  | { kind: 'sqlite'; path: string; url: string }
  | { kind: 'postgres'; url: string };

export interface DashboardConfig {
  /** FLIGHTSTATUS_SIGNUP_PLAN: the plan of accounts made by sign-up; null when sign-up is off (invitations only). */
  signupPlan: { included: number; overage: boolean } | null;
  /** log2(N) of new password hashes: OWASP's 17; only tests ask for less (verification reads each hash's own). */
  passwordCost?: number;
  /**
   * FLIGHTSTATUS_SIGNUPS_PER_ADDRESS_PER_HOUR and FLIGHTSTATUS_SIGNUPS_PER_HOUR: sign-ups per client
   * address (an IPv6 address counts by its /64) and in all, per clock hour (docs/dashboard.md).
   */
  signupLimits?: { perAddress: number; overall: number };
}

export interface Config {
  port: number;
  host: string;
  database: DatabaseTarget;
  /** Unset: the operator API answers 404 as if it did not exist. */
  adminToken: string | null;
  logLevel: LogLevel;
  /** Largest accepted request body in bytes. */
  bodyLimit: number;
  /**
   * Where clients reach the service (`https://api.example.com`), without a trailing slash: the
   * `servers` entry of the OpenAPI document and the /docs CSP. Null: relative (`/`).
   */
  publicUrl: string | null;
  /**
   * FLIGHTSTATUS_TRUST_PROXY: which peers' X-Forwarded-For (and -Proto, -Host) to believe: false (none:
   * the client is the TCP peer) or the proxies' addresses and CIDR ranges (docs/deploy.md).
   */
  trustProxy?: false | string[];
  /** The service clock: the system's, or a manual one that moves only when told (tests, demos). */
  clock: { kind: 'system' } | { kind: 'manual'; start: number | null };
  /** Flight data providers, asked in this order. */
  providers: ProviderName[];
  /** Each real provider's key, address and request budget (docs/providers.md); used when listed. */
  upstream: UpstreamConfig;
  /** How long one provider call may take before it counts as an error (wall clock). */
  providerTimeoutMs: number;
  /** How often the boards of watched airports are polled (spec 8: 30 minutes). */
  pollIntervalMs: number;
  webhooks: WebhookConfig;
  sim: SimConfig;
  /** The dashboard (docs/dashboard.md). */
  dashboard: DashboardConfig;
  /** Invoicing and charging (docs/billing.md). */
  billing: BillingConfig;
  /** What this process does (docs/deploy.md): `api` answers HTTP, `worker` runs the periodic jobs, `all` both. */
  role: Role;
  /** How long delivered and given-up webhook deliveries, and board events without pending deliveries, are kept. */
  retentionMs: number;
  /** Settings that work but should be changed; logged at start-up. */
  warnings: string[];
}

export interface BillingConfig {
  /** The name invoices are issued under. */
  sellerName: string;
  /** How often the invoicing job runs. */
  intervalMs: number;
  /** How long after a month ends its overage is invoiced (late requests land in it first). */
  graceMs: number;
  /** Retries of a declined charge, as delays after the invoice opened. */
  retryDelaysMs: number[];
  /**
   * manual: nothing is charged, invoices stay open until the operator marks them paid; simulated:
   * Stripe's test payment methods answered locally (demos); stripe: Stripe charges (needs `stripe`).
   */
  gateway: 'manual' | 'simulated' | 'stripe';
  stripe: { key: string; url: string; webhookSecret: string | null } | null;
}

export interface WebhookConfig {
  /** How often the delivery cycle runs (spec 8: 2 minutes). */
  intervalMs: number;
  /** How long a receiver has to answer (spec 8: 10 seconds; lower only for tests). */
  timeoutMs: number;
  /** Accept http:// targets (local demos). */
  allowHttp: boolean;
  /** Accept and send to private, loopback and link-local addresses (tests, local demos). */
  allowPrivate: boolean;
  /** AES-256-GCM key for the signing secrets at rest; null: a key file beside SQLite, refused on PostgreSQL (webhooks/keyfile.ts). */
  secretKey: Buffer | null;
  /** Attempts in flight at once per process, and per endpoint. */
  concurrency: number;
  perEndpoint: number;
}

export const ROLES = ['all', 'api', 'worker'] as const;
export type Role = (typeof ROLES)[number];

/** Reads a role name (FLIGHTSTATUS_ROLE, `serve --role`); null when it is none of them. */
export function parseRole(text: string): Role | null {
  return (ROLES as readonly string[]).includes(text) ? (text as Role) : null;
}

export const PROVIDER_NAMES = ['sim', 'aerodatabox', 'aeroapi', 'aviationstack', 'opensky'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export interface UpstreamProviderConfig {
  /** Empty when the provider is not listed in FLIGHTSTATUS_PROVIDERS. */
  key: string;
  /** Base URL without a trailing slash. */
  url: string;
  requestsPerMinute: number;
}

export interface UpstreamConfig {
  aerodatabox: UpstreamProviderConfig;
  aeroapi: UpstreamProviderConfig;
  aviationstack: UpstreamProviderConfig;
  opensky: OpenSkyConfig;
}

export interface OpenSkyConfig {
  clientId: string;
  clientSecret: string;
  url: string;
  /** The OAuth2 token endpoint. */
  authUrl: string;
  requestsPerMinute: number;
}

export interface SimConfig {
  seed: string;
  /** Artificial latency per call kind, a uniform range in milliseconds. */
  latency: Partial<Record<CallKind, { min: number; max: number }>>;
  /** Share of calls per kind that fail with a provider error. */
  failures: Partial<Record<CallKind, number>>;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_DATABASE_URL = 'sqlite:./data/flightstatus.db';

/** Every variable the service reads, with its default (mirrored by .env.example, checked by a test). */
export const ENVIRONMENT = {
  PORT: '8080',
  HOST: '127.0.0.1',
  DATABASE_URL: DEFAULT_DATABASE_URL,
  FLIGHTSTATUS_ADMIN_TOKEN: '',
  LOG_LEVEL: 'info',
  FLIGHTSTATUS_BODY_LIMIT: '65536',
  FLIGHTSTATUS_ROLE: 'all',
  FLIGHTSTATUS_PUBLIC_URL: '',
  FLIGHTSTATUS_SIGNUP_PLAN: '1000',
  FLIGHTSTATUS_SIGNUPS_PER_ADDRESS_PER_HOUR: '5',
  FLIGHTSTATUS_SIGNUPS_PER_HOUR: '100',
  FLIGHTSTATUS_TRUST_PROXY: 'off',
  FLIGHTSTATUS_CLOCK: 'system',
  FLIGHTSTATUS_CLOCK_START: '',
  FLIGHTSTATUS_PROVIDERS: 'sim',
  FLIGHTSTATUS_PROVIDER_TIMEOUT_MS: '8000',
  FLIGHTSTATUS_AERODATABOX_KEY: '',
  FLIGHTSTATUS_AERODATABOX_URL: 'https://aerodatabox.p.rapidapi.com',
  FLIGHTSTATUS_AERODATABOX_REQUESTS_PER_MINUTE: '30',
  FLIGHTSTATUS_AEROAPI_KEY: '',
  FLIGHTSTATUS_AEROAPI_URL: 'https://aeroapi.flightaware.com/aeroapi',
  FLIGHTSTATUS_AEROAPI_REQUESTS_PER_MINUTE: '10',
  FLIGHTSTATUS_AVIATIONSTACK_KEY: '',
  FLIGHTSTATUS_AVIATIONSTACK_URL: 'https://api.aviationstack.com/v1',
  FLIGHTSTATUS_AVIATIONSTACK_REQUESTS_PER_MINUTE: '10',
  FLIGHTSTATUS_OPENSKY_CLIENT_ID: '',
  FLIGHTSTATUS_OPENSKY_CLIENT_SECRET: '',
  FLIGHTSTATUS_OPENSKY_URL: 'https://opensky-network.org/api',
  FLIGHTSTATUS_OPENSKY_AUTH_URL: 'https://auth.opensky-network.org/auth/realms/opensky-network/protocol/openid-connect/token',
  FLIGHTSTATUS_OPENSKY_REQUESTS_PER_MINUTE: '5',
  FLIGHTSTATUS_POLL_INTERVAL_MINUTES: '30',
  FLIGHTSTATUS_DELIVERY_INTERVAL_SECONDS: '120',
  FLIGHTSTATUS_WEBHOOK_TIMEOUT_MS: '10000',
  FLIGHTSTATUS_WEBHOOK_ALLOW_HTTP: '0',
  FLIGHTSTATUS_WEBHOOK_ALLOW_PRIVATE: '0',
  FLIGHTSTATUS_WEBHOOK_SECRET_KEY: '',
  FLIGHTSTATUS_WEBHOOK_CONCURRENCY: '64',
  FLIGHTSTATUS_WEBHOOK_ENDPOINT_CONCURRENCY: '8',
  FLIGHTSTATUS_RETENTION_DAYS: '30',
  FLIGHTSTATUS_SIM_SEED: 'flightstatus',
  FLIGHTSTATUS_SIM_LATENCY: '',
  FLIGHTSTATUS_SIM_FAILURES: '',
  FLIGHTSTATUS_SELLER_NAME: 'Flight Status Service',
  FLIGHTSTATUS_BILLING_INTERVAL_MINUTES: '60',
  FLIGHTSTATUS_BILLING_GRACE_MINUTES: '60',
  FLIGHTSTATUS_BILLING_RETRY_DAYS: '1,3,5',
  FLIGHTSTATUS_PAYMENT_GATEWAY: 'manual',
  FLIGHTSTATUS_STRIPE_KEY: '',
  FLIGHTSTATUS_STRIPE_URL: 'https://api.stripe.com',
  FLIGHTSTATUS_STRIPE_WEBHOOK_SECRET: '',
} as const;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Admin tokens shorter than this draw a warning: the operator API can create keys. */
const MIN_ADMIN_TOKEN_LENGTH = 16;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const warnings: string[] = [];
  const read = (name: keyof typeof ENVIRONMENT): string => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? ENVIRONMENT[name] : value.trim();
  };

  const port = parseInteger(read('PORT'), 0, 65535);
  if (port === null) problems.push(`PORT must be an integer from 0 to 65535 (got "${read('PORT')}")`);

  const host = read('HOST');

  const database = parseDatabaseUrl(read('DATABASE_URL'));
  if (typeof database === 'string') problems.push(database);

  const token = read('FLIGHTSTATUS_ADMIN_TOKEN');
  if (token !== '' && token.length < MIN_ADMIN_TOKEN_LENGTH) {
    warnings.push(
      `FLIGHTSTATUS_ADMIN_TOKEN is only ${token.length} characters; anyone who guesses it can create keys. ` +
        'Use at least 16 random characters: openssl rand -hex 32',
    );
  }

  const logLevel = read('LOG_LEVEL').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${read('LOG_LEVEL')}")`);
  }

  const bodyLimit = parseInteger(read('FLIGHTSTATUS_BODY_LIMIT'), 1024, 10 * 1024 * 1024);
  if (bodyLimit === null) {
    problems.push(
      `FLIGHTSTATUS_BODY_LIMIT must be a byte count from 1024 to 10485760 (got "${read('FLIGHTSTATUS_BODY_LIMIT')}")`,
    );
  }

  const publicUrl = parsePublicUrl(read('FLIGHTSTATUS_PUBLIC_URL'));
  if (typeof publicUrl === 'object' && publicUrl !== null) problems.push(publicUrl.problem);

  const clockKind = read('FLIGHTSTATUS_CLOCK').toLowerCase();
  const clockStartText = read('FLIGHTSTATUS_CLOCK_START');
  let clock: Config['clock'] = { kind: 'system' };
  if (clockKind === 'manual') {
    const start = clockStartText === '' ? null : parseInstant(clockStartText);
    if (clockStartText !== '' && start === null) {
      problems.push(`FLIGHTSTATUS_CLOCK_START must be an ISO 8601 time with its zone, such as 2026-03-01T06:00:00Z (got "${clockStartText}")`);
    }
    clock = { kind: 'manual', start };
  } else if (clockKind !== 'system') {
    problems.push(`FLIGHTSTATUS_CLOCK must be system or manual (got "${read('FLIGHTSTATUS_CLOCK')}")`);
  } else if (clockStartText !== '') {
    problems.push('FLIGHTSTATUS_CLOCK_START only applies to the manual clock; also set FLIGHTSTATUS_CLOCK=manual');
  }

  const providers = read('FLIGHTSTATUS_PROVIDERS')
    .split(',')
    .map((p) => p.trim().toLowerCase())
    .filter((p) => p !== '');
  for (const name of providers) {
    if (!(PROVIDER_NAMES as readonly string[]).includes(name)) {
      problems.push(`FLIGHTSTATUS_PROVIDERS names an unknown provider "${name}" (known: ${PROVIDER_NAMES.join(', ')})`);
    }
  }
  if (new Set(providers).size !== providers.length) problems.push('FLIGHTSTATUS_PROVIDERS names a provider twice');
  if (providers.length === 0) problems.push('FLIGHTSTATUS_PROVIDERS must name at least one provider, e.g. sim');

  const providerUrl = (variable: keyof typeof ENVIRONMENT): string => {
    const text = read(variable);
    const url = parseProviderUrl(text);
    // A URL carrying credentials is refused without being repeated: the message reaches logs.
    const shown = /\/\/[^/@]*@/.test(text) ? 'a URL with credentials' : `"${text}"`;
    if (url === null) problems.push(`${variable} must be an http:// or https:// URL without credentials, query or fragment (got ${shown})`);
    return url ?? '';
  };
  const budget = (variable: keyof typeof ENVIRONMENT): number => {
    const value = parseInteger(read(variable), 1, 100_000);
    if (value === null) problems.push(`${variable} must be an integer from 1 to 100000 (got "${read(variable)}")`);
    return value ?? 1;
  };
  const required = (name: ProviderName, variable: keyof typeof ENVIRONMENT): string => {
    const value = read(variable);
    if (providers.includes(name) && value === '') problems.push(`${variable} must be set: FLIGHTSTATUS_PROVIDERS lists ${name}`);
    return value;
  };
  const upstreamProvider = (name: Exclude<keyof UpstreamConfig, 'opensky'>, keyVariable: keyof typeof ENVIRONMENT): UpstreamProviderConfig => {
    const prefix = `FLIGHTSTATUS_${name.toUpperCase()}`;
    const key = required(name, keyVariable);
    const url = providerUrl(`${prefix}_URL` as keyof typeof ENVIRONMENT);
    return { key, url, requestsPerMinute: budget(`${prefix}_REQUESTS_PER_MINUTE` as keyof typeof ENVIRONMENT) };
  };
  const upstream: UpstreamConfig = {
    aerodatabox: upstreamProvider('aerodatabox', 'FLIGHTSTATUS_AERODATABOX_KEY'),
    aeroapi: upstreamProvider('aeroapi', 'FLIGHTSTATUS_AEROAPI_KEY'),
    aviationstack: upstreamProvider('aviationstack', 'FLIGHTSTATUS_AVIATIONSTACK_KEY'),
    opensky: {
      clientId: required('opensky', 'FLIGHTSTATUS_OPENSKY_CLIENT_ID'),
      clientSecret: required('opensky', 'FLIGHTSTATUS_OPENSKY_CLIENT_SECRET'),
      url: providerUrl('FLIGHTSTATUS_OPENSKY_URL'),
      authUrl: providerUrl('FLIGHTSTATUS_OPENSKY_AUTH_URL'),
      requestsPerMinute: budget('FLIGHTSTATUS_OPENSKY_REQUESTS_PER_MINUTE'),
    },
  };

  const seed = read('FLIGHTSTATUS_SIM_SEED');
  if (seed.length > 200) problems.push('FLIGHTSTATUS_SIM_SEED must be at most 200 characters');
  const latency = parsePerKind('FLIGHTSTATUS_SIM_LATENCY', read('FLIGHTSTATUS_SIM_LATENCY'), problems, (value) => {
    const match = /^(\d{1,6})(?:-(\d{1,6}))?$/.exec(value);
    if (!match) return null;
    const min = Number(match[1]);
    const max = Number(match[2] ?? match[1]);
    return max >= min ? { min, max } : null;
  }, 'milliseconds or a range such as 50-200');
  const failures = parsePerKind('FLIGHTSTATUS_SIM_FAILURES', read('FLIGHTSTATUS_SIM_FAILURES'), problems, (value) => {
    const rate = /^(0(\.\d+)?|1(\.0+)?)$/.test(value) ? Number(value) : null;
    return rate;
  }, 'a share from 0 to 1');

  const providerTimeoutMs = parseInteger(read('FLIGHTSTATUS_PROVIDER_TIMEOUT_MS'), 10, 60_000);
  if (providerTimeoutMs === null) {
    problems.push(`FLIGHTSTATUS_PROVIDER_TIMEOUT_MS must be milliseconds from 10 to 60000 (got "${read('FLIGHTSTATUS_PROVIDER_TIMEOUT_MS')}")`);
  }

  const pollMinutes = parseInteger(read('FLIGHTSTATUS_POLL_INTERVAL_MINUTES'), 1, 24 * 60);
  if (pollMinutes === null) {
    problems.push(`FLIGHTSTATUS_POLL_INTERVAL_MINUTES must be minutes from 1 to 1440 (got "${read('FLIGHTSTATUS_POLL_INTERVAL_MINUTES')}")`);
  }

  const deliverySeconds = parseInteger(read('FLIGHTSTATUS_DELIVERY_INTERVAL_SECONDS'), 1, 3600);
  if (deliverySeconds === null) {
    problems.push(`FLIGHTSTATUS_DELIVERY_INTERVAL_SECONDS must be seconds from 1 to 3600 (got "${read('FLIGHTSTATUS_DELIVERY_INTERVAL_SECONDS')}")`);
  }
  const webhookTimeout = parseInteger(read('FLIGHTSTATUS_WEBHOOK_TIMEOUT_MS'), 50, 10_000);
  if (webhookTimeout === null) {
    problems.push(`FLIGHTSTATUS_WEBHOOK_TIMEOUT_MS must be milliseconds from 50 to 10000 (got "${read('FLIGHTSTATUS_WEBHOOK_TIMEOUT_MS')}")`);
  }
  const flag = (name: 'FLIGHTSTATUS_WEBHOOK_ALLOW_HTTP' | 'FLIGHTSTATUS_WEBHOOK_ALLOW_PRIVATE'): boolean => {
    const value = read(name);
    if (value !== '0' && value !== '1') problems.push(`${name} must be 0 or 1 (got "${value}")`);
    return value === '1';
  };
  const allowHttp = flag('FLIGHTSTATUS_WEBHOOK_ALLOW_HTTP');
  const allowPrivate = flag('FLIGHTSTATUS_WEBHOOK_ALLOW_PRIVATE');
  if (allowPrivate) warnings.push('FLIGHTSTATUS_WEBHOOK_ALLOW_PRIVATE=1: webhooks may target private and loopback addresses (tests and local demos only)');
  const keyText = read('FLIGHTSTATUS_WEBHOOK_SECRET_KEY');
  const secretKey = keyText === '' ? null : parseSecretKey(keyText);
  if (keyText !== '' && secretKey === null) {
    problems.push('FLIGHTSTATUS_WEBHOOK_SECRET_KEY must be 32 bytes as 64 hex digits or base64 (make one with: openssl rand -hex 32)');
  }
  const concurrency = parseInteger(read('FLIGHTSTATUS_WEBHOOK_CONCURRENCY'), 1, 1024);
  if (concurrency === null) problems.push(`FLIGHTSTATUS_WEBHOOK_CONCURRENCY must be an integer from 1 to 1024 (got "${read('FLIGHTSTATUS_WEBHOOK_CONCURRENCY')}")`);
  const perEndpoint = parseInteger(read('FLIGHTSTATUS_WEBHOOK_ENDPOINT_CONCURRENCY'), 1, 64);
  if (perEndpoint === null) {
    problems.push(`FLIGHTSTATUS_WEBHOOK_ENDPOINT_CONCURRENCY must be an integer from 1 to 64 (got "${read('FLIGHTSTATUS_WEBHOOK_ENDPOINT_CONCURRENCY')}")`);
  }

  const signupPlan = parseSignupPlan(read('FLIGHTSTATUS_SIGNUP_PLAN'));
  if (signupPlan === undefined) {
    problems.push(`FLIGHTSTATUS_SIGNUP_PLAN must be "off", a number of included requests per window such as "1000", or that with "+overage" (got "${read('FLIGHTSTATUS_SIGNUP_PLAN').slice(0, 40)}")`);
  }

  const signupsPerAddress = parseInteger(read('FLIGHTSTATUS_SIGNUPS_PER_ADDRESS_PER_HOUR'), 1, 1_000_000);
  if (signupsPerAddress === null) {
    problems.push(`FLIGHTSTATUS_SIGNUPS_PER_ADDRESS_PER_HOUR must be an integer from 1 to 1000000 (got "${read('FLIGHTSTATUS_SIGNUPS_PER_ADDRESS_PER_HOUR').slice(0, 40)}"); FLIGHTSTATUS_SIGNUP_PLAN=off closes sign-up`);
  }
  const signupsOverall = parseInteger(read('FLIGHTSTATUS_SIGNUPS_PER_HOUR'), 1, 1_000_000);
  if (signupsOverall === null) {
    problems.push(`FLIGHTSTATUS_SIGNUPS_PER_HOUR must be an integer from 1 to 1000000 (got "${read('FLIGHTSTATUS_SIGNUPS_PER_HOUR').slice(0, 40)}"); FLIGHTSTATUS_SIGNUP_PLAN=off closes sign-up`);
  }
  const trustProxy = parseTrustProxy(read('FLIGHTSTATUS_TRUST_PROXY'));
  if (typeof trustProxy === 'object' && !Array.isArray(trustProxy)) problems.push(trustProxy.problem);

  const billing = readBilling(read, problems);

  const role = parseRole(read('FLIGHTSTATUS_ROLE'));
  if (role === null) problems.push(`FLIGHTSTATUS_ROLE must be one of ${ROLES.join(', ')} (got "${read('FLIGHTSTATUS_ROLE').slice(0, 40)}")`);
  const retentionDays = parseInteger(read('FLIGHTSTATUS_RETENTION_DAYS'), 1, 3650);
  if (retentionDays === null) problems.push(`FLIGHTSTATUS_RETENTION_DAYS must be days from 1 to 3650 (got "${read('FLIGHTSTATUS_RETENTION_DAYS').slice(0, 40)}")`);

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: port!,
    host,
    database: database as DatabaseTarget,
    adminToken: token === '' ? null : token,
    logLevel: logLevel as LogLevel,
    bodyLimit: bodyLimit!,
    publicUrl: publicUrl as string | null,
    trustProxy: trustProxy as Config['trustProxy'],
    clock,
    providers: providers as ProviderName[],
    upstream,
    providerTimeoutMs: providerTimeoutMs!,
    pollIntervalMs: pollMinutes! * 60_000,
    webhooks: {
      intervalMs: deliverySeconds! * 1000,
      timeoutMs: webhookTimeout!,
      allowHttp,
      allowPrivate,
      secretKey,
      concurrency: concurrency!,
      perEndpoint: perEndpoint!,
    },
    sim: { seed, latency, failures },
    dashboard: { signupPlan: signupPlan ?? null, signupLimits: { perAddress: signupsPerAddress!, overall: signupsOverall! } },
    billing,
    role: role!,
    retentionMs: retentionDays! * 86_400_000,
    warnings,
  };
}

function readBilling(read: (name: keyof typeof ENVIRONMENT) => string, problems: string[]): BillingConfig {
  const sellerName = read('FLIGHTSTATUS_SELLER_NAME').trim();
  if (sellerName === '' || sellerName.length > 100) problems.push('FLIGHTSTATUS_SELLER_NAME must be 1 to 100 characters (the name on invoices)');
  const interval = parseInteger(read('FLIGHTSTATUS_BILLING_INTERVAL_MINUTES'), 1, 24 * 60);
  if (interval === null) problems.push(`FLIGHTSTATUS_BILLING_INTERVAL_MINUTES must be minutes from 1 to 1440 (got "${read('FLIGHTSTATUS_BILLING_INTERVAL_MINUTES').slice(0, 40)}")`);
  const grace = parseInteger(read('FLIGHTSTATUS_BILLING_GRACE_MINUTES'), 0, 7 * 24 * 60);
  if (grace === null) problems.push(`FLIGHTSTATUS_BILLING_GRACE_MINUTES must be minutes from 0 to 10080 (got "${read('FLIGHTSTATUS_BILLING_GRACE_MINUTES').slice(0, 40)}")`);
  const retryText = read('FLIGHTSTATUS_BILLING_RETRY_DAYS').trim();
  const retries = retryText === '' ? [] : retryText.split(',').map((d) => parseInteger(d.trim(), 1, 60));
  if (retries.some((d, i) => d === null || (i > 0 && d <= retries[i - 1]!)) || retries.length > 10) {
    problems.push(`FLIGHTSTATUS_BILLING_RETRY_DAYS must be increasing whole days from 1 to 60, comma-separated, at most 10, e.g. "1,3,5" (got "${retryText.slice(0, 40)}")`);
  }
  const key = read('FLIGHTSTATUS_STRIPE_KEY').trim();
  if (key !== '' && !/^(sk|rk)_(test|live)_[A-Za-z0-9]+$/.test(key)) problems.push('FLIGHTSTATUS_STRIPE_KEY must be a Stripe secret or restricted key (sk_live_…, sk_test_…, rk_…)');
  const url = read('FLIGHTSTATUS_STRIPE_URL').trim().replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(url)) problems.push(`FLIGHTSTATUS_STRIPE_URL must be an http(s) base URL (got "${url.slice(0, 60)}")`);
  const webhookSecret = read('FLIGHTSTATUS_STRIPE_WEBHOOK_SECRET').trim();
  if (webhookSecret !== '' && !/^whsec_[A-Za-z0-9+/=]+$/.test(webhookSecret)) problems.push('FLIGHTSTATUS_STRIPE_WEBHOOK_SECRET must be the endpoint\'s signing secret (whsec_…)');
  if (webhookSecret !== '' && key === '') problems.push('FLIGHTSTATUS_STRIPE_WEBHOOK_SECRET needs FLIGHTSTATUS_STRIPE_KEY (Stripe events only matter when Stripe charges)');
  const gateway = read('FLIGHTSTATUS_PAYMENT_GATEWAY').trim();
  if (gateway !== 'manual' && gateway !== 'simulated' && gateway !== 'stripe') {
    problems.push(`FLIGHTSTATUS_PAYMENT_GATEWAY must be manual, simulated or stripe (got "${gateway.slice(0, 40)}")`);
  } else if ((gateway === 'stripe') !== (key !== '')) {
    problems.push(
      gateway === 'stripe'
        ? 'FLIGHTSTATUS_PAYMENT_GATEWAY=stripe needs FLIGHTSTATUS_STRIPE_KEY'
        : `FLIGHTSTATUS_STRIPE_KEY is set but FLIGHTSTATUS_PAYMENT_GATEWAY is ${gateway}: set FLIGHTSTATUS_PAYMENT_GATEWAY=stripe to charge through Stripe`,
    );
  }
  return {
    gateway: gateway === 'simulated' || gateway === 'stripe' ? gateway : 'manual',
    sellerName,
    intervalMs: (interval ?? 60) * 60_000,
    graceMs: (grace ?? 60) * 60_000,
    retryDelaysMs: retries.map((d) => (d ?? 0) * 86_400_000),
    stripe: key === '' ? null : { key, url, webhookSecret: webhookSecret === '' ? null : webhookSecret },
  };
}

/**
 * FLIGHTSTATUS_TRUST_PROXY: "off" → false, or a comma-separated list of the proxies' addresses and
 * CIDR ranges (and proxy-addr's names loopback, linklocal, uniquelocal): X-Forwarded-For is read
 * from the right, skipping only addresses in the list. Two things Fastify also takes are refused:
 * `true` (believe anyone: any client could name its own address) and a hop count (it cannot check
 * that the peer is a proxy at all, and Fastify 5 therefore believes nobody with one).
 */
export function parseTrustProxy(text: string): false | string[] | { problem: string } {
  const value = text.trim().toLowerCase();
  const problem = {
    problem:
      `FLIGHTSTATUS_TRUST_PROXY must be "off", a number of proxy hops from 1 to 10, or a comma-separated list of proxy addresses and CIDR ranges ` +
      `(e.g. "10.0.0.0/8,127.0.0.1"; "loopback", "linklocal" and "uniquelocal" name those ranges) (got "${text.slice(0, 60)}")`,
  };
  if (value === 'off' || value === '') return false;
  if (/^\d+$/.test(value)) {
    return { problem: `FLIGHTSTATUS_TRUST_PROXY takes the proxies' addresses, not a hop count: name the proxy (e.g. "127.0.0.1" or "10.0.0.0/8"), so that only it can set the client's address (got "${text.slice(0, 20)}")` };
  }
  if (value === 'true' || value === '*') return problem;
  const entries = value.split(',').map((e) => e.trim());
  for (const entry of entries) {
    if (entry === 'loopback' || entry === 'linklocal' || entry === 'uniquelocal') continue;
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address ?? '');
    if (family === 0 || extra !== undefined) return problem;
    if (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128))) return problem;
  }
  return entries;
}

/** "off" → null; "1000" or "1000+overage" → a plan; anything else → undefined (a problem). */
export function parseSignupPlan(text: string): DashboardConfig['signupPlan'] | undefined {
  const value = text.trim().toLowerCase();
  if (value === 'off') return null;
  const match = /^(\d{1,10})(\+overage)?$/.exec(value);
  if (!match || Number(match[1]) > 1_000_000_000) return undefined;
  return { included: Number(match[1]), overage: match[2] !== undefined };
}

/** `flight=200,board=50-150`: a value per provider call kind. */
function parsePerKind<T>(
  name: string,
  text: string,
  problems: string[],
  parse: (value: string) => T | null,
  expected: string,
): Partial<Record<CallKind, T>> {
  const out: Partial<Record<CallKind, T>> = {};
  if (text === '') return out;
  for (const item of text.split(',')) {
    const [kind, value] = item.split('=').map((p) => p.trim());
    if (!(CALL_KINDS as readonly string[]).includes(kind ?? '')) {
      problems.push(`${name}: "${kind}" is not a call kind (use ${CALL_KINDS.join(', ')}, e.g. flight=200)`);
      continue;
    }
    const parsed = value === undefined ? null : parse(value);
    if (parsed === null) problems.push(`${name}: ${kind} needs ${expected} (got "${value ?? ''}")`);
    else out[kind as CallKind] = parsed;
  }
  return out;
}

function parseInteger(text: string, min: number, max: number): number | null {
  if (!/^\d+$/.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) && value >= min && value <= max ? value : null;
}

/** An absolute http(s) URL with no query or fragment, kept without its trailing slash; '' is null. */
export function parsePublicUrl(text: string): string | null | { problem: string } {
  if (text === '') return null;
  const problem = `FLIGHTSTATUS_PUBLIC_URL must be an absolute http:// or https:// URL without query or fragment, e.g. https://api.example.com (got "${redactUrl(text.slice(0, 200))}")`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem };
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    return { problem };
  }
  return url.href.replace(/\/+$/, '');
}

/** `sqlite:PATH` (relative to the working directory), `sqlite::memory:`, or `postgres://…`. */
export function parseDatabaseUrl(url: string): DatabaseTarget | string {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') return 'DATABASE_URL "sqlite:" needs a file path, e.g. sqlite:./data/flightstatus.db';
    return { kind: 'sqlite', path: path === ':memory:' ? path : resolve(path), url };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    try {
      const parsed = new URL(url);
      if (parsed.hostname === '' && !parsed.searchParams.has('host')) {
        return 'DATABASE_URL must name a PostgreSQL host, e.g. postgres://user@127.0.0.1:5432/flightstatus';
      }
    } catch {
      return 'DATABASE_URL is not a valid postgres:// URL';
    }
    return { kind: 'postgres', url };
  }
  return `DATABASE_URL must start with sqlite: or postgres:// (got "${redactUrl(url)}")`;
}

/** A URL fit for logs: the password, if any, replaced. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}

/** Loads ./.env into process.env when it exists (variables already set win). */
export function loadDotEnv(path = '.env'): void {
  if (!existsSync(path)) return;
  const loadEnvFile = (process as unknown as { loadEnvFile?: (p: string) => void }).loadEnvFile;
  if (loadEnvFile) loadEnvFile(path);
}

/**
 * A provider's base URL: operator configuration, so loopback and http are accepted (tests and a
 * local mirror point at a fixture server); no credentials or fragment in it.
 */
function parseProviderUrl(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.hash || url.search) return null;
  return url.href.replace(/\/+$/, '');
}
