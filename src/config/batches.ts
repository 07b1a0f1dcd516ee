// Batches (docs/batches.md): how many lookups a worker process runs at once, how long it holds one,
// and how long finished batches and their results are kept.
import { capability, integer } from './setting.js';

export interface BatchConfig {
  /** Lookups in flight at once per worker process, all batches together. */
  concurrency: number;
  /** Lookups in flight at once for one batch. */
  perBatch: number;
  /** How long a worker holds a lookup it claimed; a worker killed mid-batch loses its lookups to another after it. */
  leaseMs: number;
  /** How long a finished or canceled batch and its results are kept. */
  retentionMs: number;
}

export const batches = capability({
  title: 'Batches (docs/batches.md)',
  settings: {
    FLIGHTSTATUS_BATCH_CONCURRENCY: integer({
      default: '32',
      min: 1,
      max: 256,
      unit: 'an integer',
      doc: 'batch lookups in flight per worker process, all batches together ([docs/batches.md](docs/batches.md))',
      comment:
        'Batch lookups in flight at once per worker process, all batches together (1 to 256), and for one ' +
        "batch (1 to 256): one account's big batch never holds every slot.",
    }),
    FLIGHTSTATUS_BATCH_PER_BATCH: integer({
      default: '16',
      min: 1,
      max: 256,
      unit: 'an integer',
      doc: 'batch lookups in flight per worker process for one batch',
    }),
    FLIGHTSTATUS_BATCH_LEASE_SECONDS: integer({
      default: '300',
      min: 2,
      max: 3600,
      unit: 'seconds',
      doc: 'how long a worker holds a batch lookup; after it, a lookup of a worker that died is taken by another',
      comment:
        'How long a worker holds a batch lookup it claimed (2 to 3600 s). A worker killed mid-batch leaves its ' +
        "lookups to another worker after this long; keep it well above the providers' deadline.",
    }),
    FLIGHTSTATUS_BATCH_RETENTION_DAYS: integer({
      default: '30',
      min: 1,
      max: 3650,
      unit: 'days',
      doc: 'finished batches and their results are deleted after this many days',
    }),
  },
  build: (v) => ({
    batches: {
      concurrency: v.FLIGHTSTATUS_BATCH_CONCURRENCY,
      perBatch: v.FLIGHTSTATUS_BATCH_PER_BATCH,
      leaseMs: v.FLIGHTSTATUS_BATCH_LEASE_SECONDS * 1000,
      retentionMs: v.FLIGHTSTATUS_BATCH_RETENTION_DAYS * 86_400_000,
    } satisfies BatchConfig,
  }),
});
