// `npm run bench -- smoke` (node bench/run.mjs smoke): every HTTP scenario, the four webhook
// scenarios, the predictions (three airports, six hours of passes; followed flights: one in 50 of a day) and the watches under load (100
// watches of one airport's flights, one pass with them) at toy sizes on SQLite, in
// seconds, so that CI (.ci/run) shows the bench still runs as shipped. Nothing is timed or asserted
// beyond each scenario completing, and docs/performance.md is left alone: sections go to a
// temporary copy instead.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SMOKE = process.argv[2] === 'smoke';

/** Where a smoke run writes its sections instead of docs/performance.md. */
export const SMOKE_DOC = SMOKE
  ? join(mkdtempSync(join(tmpdir(), 'flightstatus-bench-smoke-')), 'performance.md')
  : null;

/** `full` in a measuring run, `smoke` in a smoke run. */
export const size = (full, smoke) => (SMOKE ? smoke : full);
