// Where SQLite and PostgreSQL need different SQL for webhooks, and the one place that picks between
// them: each dialect's statements are in a file of their own (dialect-sqlite.ts, dialect-postgres.ts)
// behind this interface, as metering's stores are. Both run the same behaviour suites
// (src/webhooks/queue.test.ts for the delivery claim).
import type { CompiledQuery } from 'kysely';
import { forDialect, type Database } from '../db/index.js';
import { postgresDialect } from './dialect-postgres.js';
import { sqliteDialect } from './dialect-sqlite.js';
import type { DeliveryQueue, QueueOptions } from './queue.js';
import type { SecretBox } from './secrets.js';

/** An event waiting in fan_out_queue (fanout.ts). */
export interface FanOutEvent {
  id: string;
  type: string;
  airport: string;
  created_at: number;
  /** Sent to the watches of its flight only, never to an airport's subscribers (fanout.ts). */
  watchOnly?: boolean;
}

/** One delivery the fan-out writes. */
export interface FanOutRow {
  endpointId: string;
  eventId: string;
  eventType: string;
  at: number;
  /** `pending` to be sent; `skipped` when the endpoint was disabled: kept, not sent, resendable. */
  state: 'pending' | 'skipped';
}

/**
 * Writes one chunk of the fan-out, skipping pairs that exist already (a resumed run) and endpoints
 * deleted since they were read, and takes `completed` off the queue in the same transaction; resolves
 * with how long it held the writer, in milliseconds, once the next chunk may start.
 */
export type FanOutWrite = (rows: FanOutRow[], completed: FanOutEvent[]) => Promise<number>;

export interface WebhookDialect {
  /** The delivery queue (queue.ts): claim, settle, release. */
  deliveryQueue(options: QueueOptions): DeliveryQueue;
  fanOutWriter(): FanOutWrite;
  /** Seals every secret still stored in clear, in one transaction; returns how many (keyfile.ts). */
  sealPlaintextSecrets(box: SecretBox): Promise<number>;
  /**
   * Statements that, run first in a transaction, make guarded count-then-write statements of one
   * account take turns (repository.ts): none where a transaction already admits one writer.
   */
  lockAccount(accountId: string): CompiledQuery[];
}

export function webhookDialect(db: Database): WebhookDialect {
  return forDialect<WebhookDialect>(db, { sqlite: sqliteDialect, postgres: postgresDialect });
}

/** The delivery queue of the database's dialect. */
export function createDeliveryQueue(db: Database, options: QueueOptions): DeliveryQueue {
  return webhookDialect(db).deliveryQueue(options);
}
