// The HTTP front every capability's routes sit in, in the order requests meet it: request metrics,
// admission (authentication and credit, decided together, http/guard.ts), the Idempotency-Key hook,
// compression, then the OpenAPI document and the health and readiness probes.
import type { Clock } from '../clock.js';
import { readiness, WriteOutcome, type Database } from '../db/index.js';
import { registerCompression } from '../http/compression.js';
import { installGuard } from '../http/guard.js';
import { createHttpServer, type HttpOptions, type HttpServer } from '../http/server.js';
import { installIdempotency, type AnswerSeal } from '../idempotency/index.js';
import type { Logger } from '../logger.js';
import { RefusalLog, type Gate, type MeteringService } from '../metering/index.js';
import { installRequestMetrics, type Metrics } from '../metrics/index.js';
import { registerOpenApi, systemRoutes } from './routes.js';

export interface FrontSetup {
  http: Omit<HttpOptions, 'logger'>;
  logger: Logger;
  db: Database;
  clock: Clock;
  gate: Gate;
  metering: MeteringService;
  metrics: Metrics;
  /** Seals the stored idempotent answers (the webhook secrets' key box). */
  seal: AnswerSeal;
  publicUrl: string | null;
  /** Serve the API description; a worker process does not. */
  documents: boolean;
}

export async function buildFront(o: FrontSetup) {
  const { db, logger, metering } = o;
  const http: HttpServer = createHttpServer({ ...o.http, logger });
  installRequestMetrics(http, o.metrics);
  const refusals = new RefusalLog(db);
  refusals.start((error) =>
    logger.warn({ err: error }, 'refused-request counts could not be written; kept for the next try'),
  );
  // Readiness follows the metered writes' last outcome (db/probe.ts).
  const writes = new WriteOutcome();
  installGuard(http, { gate: o.gate, metering, clock: o.clock, refusals, writes });
  const idempotency = installIdempotency(http, { db, clock: o.clock, seal: o.seal });
  const sealed = await idempotency.sealStored();
  if (sealed > 0) logger.info({ sealed }, `sealed ${sealed} idempotent answers stored in clear by an earlier version`);
  await registerCompression(http);
  if (o.documents) await registerOpenApi(http, { publicUrl: o.publicUrl });
  await systemRoutes(http, {
    publicUrl: o.publicUrl,
    readiness: () => readiness(db, { outcome: writes, retry: () => metering.probeWrite() }),
    documents: o.documents,
  });
  return {
    http,
    refusals,
    /** Expired idempotent answers go with the hourly prune. */
    prune: async (at: number) => ({ idempotency_keys: await idempotency.prune(at) }),
  };
}
