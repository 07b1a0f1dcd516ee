// One typed, validated reading of the environment. Every setting is checked once at start-up;
// a bad value stops the start with one line per problem, saying what to fix. The variables, their
// defaults and their messages are declared per capability (schema.ts lists them); this file reads
// them and assembles the Config the rest of the service is given.
import { existsSync } from 'node:fs';
import type { BatchConfig } from './batches.js';
import type { BillingConfig } from './billing.js';
import type { Seller } from './seller.js';
import type { DashboardConfig } from './dashboard.js';
import type { DatabaseTarget } from './database.js';
import type { EvidenceConfig } from './evidence.js';
import type { MailConfig } from './mail.js';
import type { ProviderName, UpstreamConfig } from './providers.js';
import { CAPABILITIES } from './schema.js';
import type { LogLevel, Role } from './server.js';
import { read, type Capability, type Settings, type Values } from './setting.js';
import type { SimConfig } from './sim.js';
import type { WeatherConfig } from './weather.js';
import type { WebhookConfig } from './webhooks.js';
import type { FollowConfig } from './watches.js';

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
  /** How often the boards of watched airports are polled (default 30 minutes: docs/boards.md, "The poll pass"). */
  pollIntervalMs: number;
  /** How long the flights the board poll saw final are kept (a batch's plan step 3). */
  observedRetentionMs: number;
  webhooks: WebhookConfig;
  /** Batches (docs/batches.md). */
  batches: BatchConfig;
  /** Following watched flights through the providers: the budgets (docs/watches.md). */
  follow: FollowConfig;
  /** Evidence PDFs (docs/evidence.md). */
  evidence: EvidenceConfig;
  sim: SimConfig;
  /** Where the verdict's weather reports come from (docs/weather.md). */
  weather: WeatherConfig;
  /** The dashboard (docs/dashboard.md). */
  dashboard: DashboardConfig;
  /** Invoicing and charging (docs/billing.md). */
  billing: BillingConfig;
  /** The seller on every invoice (docs/billing.md). */
  seller: Seller;
  /** Email (docs/mail.md); null: no mail is sent. */
  mail: MailConfig | null;
  /** What this process does (docs/deploy.md): `api` answers HTTP, `worker` runs the periodic jobs, `all` both. */
  role: Role;
  /** How long delivered and given-up webhook deliveries, and board events without pending deliveries, are kept. */
  retentionMs: number;
  /** Settings that work but should be changed; logged at start-up. */
  warnings: string[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type UnionToIntersection<U> = (U extends unknown ? (slice: U) => void : never) extends (slice: infer I) => void
  ? I
  : never;
/** What the capabilities build together; the compiler checks below that it is a Config. */
type Built = UnionToIntersection<ReturnType<(typeof CAPABILITIES)[number]['build']>>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const warnings: string[] = [];
  // Every capability is read (in schema.ts's order) before any problem stops the start, so one
  // start names them all.
  // (Each capability's own types were checked where it is declared; here they are all one kind.)
  const parts = CAPABILITIES as readonly unknown[] as readonly Capability<Settings, object>[];
  const values = parts.map((part) => read(part, env, problems, warnings));
  if (problems.length > 0) throw new ConfigError(problems);
  const slices = parts.map((part, i) => part.build(values[i] as Values<Settings>));
  const built: Omit<Config, 'warnings'> = Object.assign({}, ...slices) as Built;
  return { ...built, warnings };
}

/** Loads ./.env into process.env when it exists (variables already set win). */
export function loadDotEnv(path = '.env'): void {
  if (!existsSync(path)) return;
  const loadEnvFile = (process as unknown as { loadEnvFile?: (p: string) => void }).loadEnvFile;
  if (loadEnvFile) loadEnvFile(path);
}
