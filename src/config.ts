// The configuration's public face: one typed, validated reading of the environment (loadConfig),
// and the types the rest of the service is given. The settings themselves are declared per
// capability in src/config/ (server.ts, database.ts, dashboard.ts, clock.ts, providers.ts, sim.ts,
// weather.ts, boards.ts, webhooks.ts, batches.ts, watches.ts, evidence.ts, billing.ts, seller.ts, mail.ts), listed in
// src/config/schema.ts; the README's configuration table and .env.example are written from them
// (`npm run config:docs`). A setting's parser lives with it (pkcs12.ts, parties.ts, the keys' parsers):
// configuration imports no capability, so every capability can import it (test/layout.test.ts).
export { type BillingConfig } from './config/billing.js';
export { type MailConfig } from './config/mail.js';
export { addressLines, checkVatId, countryName, EMAIL, EU_VAT_PREFIXES } from './config/parties.js';
export { type Seller } from './config/seller.js';
export { type BatchConfig } from './config/batches.js';
export { type FollowConfig } from './config/watches.js';
export { type DashboardConfig, parseSignupPlan } from './config/dashboard.js';
export { type EvidenceConfig, parseEvidenceKey } from './config/evidence.js';
export { certificateFingerprint, parsePkcs12, type PdfSigner, signerOf } from './config/pkcs12.js';
export {
  DEFAULT_DATABASE_URL,
  DEFAULT_POOL_SIZE,
  type DatabaseTarget,
  parseDatabaseUrl,
  redactUrl,
} from './config/database.js';
export { type Config, ConfigError, loadConfig, loadDotEnv } from './config/load.js';
export {
  type OpenSkyConfig,
  PROVIDER_NAMES,
  type ProviderName,
  type UpstreamConfig,
  type UpstreamProviderConfig,
} from './config/providers.js';
export { ENVIRONMENT } from './config/schema.js';
export { type LogLevel, parsePublicUrl, parseRole, parseTrustProxy, type Role, ROLES } from './config/server.js';
export { CALL_KINDS, type CallKind, type SimConfig } from './config/sim.js';
export { type WeatherConfig, type WeatherSource } from './config/weather.js';
export { parseSecretKey, type WebhookConfig } from './config/webhooks.js';
