// Webhook delivery (docs/webhooks.md): the cycle, the receivers' deadline, which targets are
// accepted, the key that seals signing secrets at rest, concurrency, and how long settled
// deliveries are kept.
import { Type } from 'typebox';
import { capability, custom, flag, integer, invalid } from './setting.js';

export interface WebhookConfig {
  /** How often the delivery cycle runs (default 2 minutes: docs/webhooks.md, "Delivery rules"). */
  intervalMs: number;
  /** How long a receiver has to answer (10 seconds: docs/webhooks.md, "Delivery rules"; lower only for tests). */
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

/** The key from its configured text: 64 hex digits or the base64 of 32 bytes; null when not valid. */
export function parseSecretKey(text: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/]{43}=?$/.test(text)) {
    const key = Buffer.from(text, 'base64');
    return key.length === 32 ? key : null;
  }
  return null;
}

export const webhooks = capability({
  title: 'Webhook delivery (docs/webhooks.md)',
  settings: {
    FLIGHTSTATUS_DELIVERY_INTERVAL_SECONDS: integer({
      default: '120',
      min: 1,
      max: 3600,
      unit: 'seconds',
      doc: 'the webhook delivery cycle ([docs/webhooks.md](docs/webhooks.md))',
      comment:
        'The delivery cycle runs every N seconds (spec: 120; on the manual ' +
        'clock whenever an advance passes it). A receiver has TIMEOUT_MS to answer 2xx (spec: 10000; 50 to ' +
        '10000, lower only for tests).',
    }),
    FLIGHTSTATUS_WEBHOOK_TIMEOUT_MS: integer({
      default: '10000',
      min: 50,
      max: 10_000,
      unit: 'milliseconds',
      doc: 'how long a webhook receiver has to answer 2xx',
    }),
    FLIGHTSTATUS_WEBHOOK_ALLOW_HTTP: flag({
      default: '0',
      doc: '`1` accepts `http://` webhook targets (local demos and tests only)',
      comment:
        '1 accepts http:// targets; 1 accepts targets on private, loopback and link-local addresses. Both are ' +
        'for tests and local demos; production keeps them 0 (https to public addresses only).',
    }),
    FLIGHTSTATUS_WEBHOOK_ALLOW_PRIVATE: flag({
      default: '0',
      doc: '`1` accepts private, loopback and link-local webhook targets (local demos and tests only)',
    }),
    FLIGHTSTATUS_WEBHOOK_SECRET_KEY: custom({
      default: '',
      schema: Type.Union([Type.Unsafe<Buffer>({ description: '32 bytes' }), Type.Null()]),
      parse: (text) => {
        if (text === '') return null;
        return (
          parseSecretKey(text) ??
          invalid(
            'FLIGHTSTATUS_WEBHOOK_SECRET_KEY must be 32 bytes as 64 hex digits or base64 (make one with: openssl rand -hex 32)',
          )
        );
      },
      doc: '32-byte key (hex or base64) that encrypts webhook secrets at rest; required with PostgreSQL; on SQLite, empty means a key file generated beside the database ([docs/operator.md](docs/operator.md#webhook-secrets-at-rest))',
      comment:
        '32-byte key (64 hex digits or base64; `openssl rand -hex 32`) that encrypts the signing secrets at ' +
        'rest with AES-256-GCM. Required with PostgreSQL (the same on every process). Empty on SQLite: a key ' +
        'is generated on first start into <database file>.webhook-key (mode 0600) beside the database; back it ' +
        'up with the database. Keep the key: sealed secrets do not open without it, and the service refuses to ' +
        'start.',
    }),
    FLIGHTSTATUS_WEBHOOK_CONCURRENCY: integer({
      default: '64',
      min: 1,
      max: 1024,
      unit: 'an integer',
      doc: 'webhook attempts in flight per process (accounts share them; failing endpoints get a quarter: [docs/webhooks.md](docs/webhooks.md))',
      comment: 'Attempts in flight at once per process (1 to 1024), and per endpoint (1 to 64).',
    }),
    FLIGHTSTATUS_WEBHOOK_ENDPOINT_CONCURRENCY: integer({
      default: '8',
      min: 1,
      max: 64,
      unit: 'an integer',
      doc: 'webhook attempts in flight per endpoint',
    }),
    FLIGHTSTATUS_RETENTION_DAYS: integer({
      default: '30',
      min: 1,
      max: 3650,
      unit: 'days',
      clip: 40,
      doc: 'settled webhook deliveries and their board events are pruned after this many days ([docs/deploy.md](docs/deploy.md#retention))',
      comment:
        'Days to keep webhook deliveries that are settled (delivered or given up) and the board events they ' +
        'came from (1 to 3650). Pending deliveries and their events are never pruned; usage rows and invoices ' +
        'are not touched. docs/deploy.md says what a day costs on disk.',
    }),
  },
  check({ values, warning }) {
    if (values.FLIGHTSTATUS_WEBHOOK_ALLOW_PRIVATE === true) {
      warning(
        'FLIGHTSTATUS_WEBHOOK_ALLOW_PRIVATE=1: webhooks may target private and loopback addresses (tests and local demos only)',
      );
    }
  },
  build: (v) => ({
    webhooks: {
      intervalMs: v.FLIGHTSTATUS_DELIVERY_INTERVAL_SECONDS * 1000,
      timeoutMs: v.FLIGHTSTATUS_WEBHOOK_TIMEOUT_MS,
      allowHttp: v.FLIGHTSTATUS_WEBHOOK_ALLOW_HTTP,
      allowPrivate: v.FLIGHTSTATUS_WEBHOOK_ALLOW_PRIVATE,
      secretKey: v.FLIGHTSTATUS_WEBHOOK_SECRET_KEY,
      concurrency: v.FLIGHTSTATUS_WEBHOOK_CONCURRENCY,
      perEndpoint: v.FLIGHTSTATUS_WEBHOOK_ENDPOINT_CONCURRENCY,
    } satisfies WebhookConfig,
    retentionMs: v.FLIGHTSTATUS_RETENTION_DAYS * 86_400_000,
  }),
});
