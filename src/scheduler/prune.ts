// The hourly prune job: one process asks every capability to forget what it keeps no longer (each
// knows its own retention), and counts the rows per table. The scheduler prunes its own run records.
import { HOUR } from '../clock.js';
import type { Capability, Job, Pruned } from '../capability.js';
import type { Logger } from '../logger.js';
import type { RunClaims } from './claims.js';

const PRUNE_INTERVAL_MS = HOUR;

export function pruneJob<Scope>(
  capabilities: readonly Capability<Scope>[],
  logger: Logger,
  counted: (table: string, rows: number) => void,
): Job {
  return {
    name: 'prune',
    intervalMs: PRUNE_INTERVAL_MS,
    // One process does it: the rows are shared, and two would only race each other's deletes.
    once: true,
    run: async (at, stopping) => {
      const pruned: Pruned = {};
      for (const capability of capabilities)
        if (capability.prune) Object.assign(pruned, await capability.prune(at, stopping));
      for (const [table, rows] of Object.entries(pruned)) counted(table, rows);
      if (Object.values(pruned).some((rows) => rows > 0)) logger.info(pruned, 'pruned');
    },
  };
}

/** The scheduler as a capability: it forgets the records of runs older than the retention. */
export const schedulerCapability = (claims: RunClaims, retentionMs: number): Capability<unknown> => ({
  prune: async (at) => ({ job_runs: await claims.prune(at - retentionMs) }),
});
