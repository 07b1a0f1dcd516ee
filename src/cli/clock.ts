// `flightstatus clock …`: the clock lives in the running service, so these commands call its operator
// API (http://HOST:PORT, or --url) with FLIGHTSTATUS_ADMIN_TOKEN.
import type { Config } from '../config.js';
import { parse, UsageError } from './args.js';
import type { Command } from './commands.js';

const help = {
  clock: `Usage: flightstatus clock [show|advance|set] ...

  clock [show] [--url URL]               the running service's clock and periodic jobs
  clock advance DURATION [--verbose] [--url URL]
                                         move a manual clock forward (90s, 30m, 2h, 1d, 1h30m)
  clock set TIME [--verbose] [--url URL] move a manual clock to an ISO 8601 time with its zone

These call the running service's operator API at http://HOST:PORT (or --url) with
FLIGHTSTATUS_ADMIN_TOKEN, and print its JSON answer on stdout. A move prints the job runs it caused
as a summary per job (with every failed run); --verbose prints every run.`,
  'clock show': `Usage: flightstatus clock show [--url URL]    (or: flightstatus clock [--url URL])

Prints the running service's clock (now, mode) and its periodic jobs with their next run.`,
  'clock advance': `Usage: flightstatus clock advance DURATION [--verbose] [--url URL]

Moves the running service's manual clock forward by DURATION (units s, m, h, d, combinable: 1h30m;
at most 366 days), running every periodic job that falls due on the way before it answers. Prints
the runs per job (how many, how many failed, the first and last) and every failed run in full;
--verbose prints every run instead.`,
  'clock set': `Usage: flightstatus clock set TIME [--verbose] [--url URL]

Moves the running service's manual clock to TIME (ISO 8601 with its zone, e.g. 2026-03-02T00:00:00Z;
a bare date is its UTC midnight), at most 366 days ahead, running every periodic job that falls due
on the way. The clock never goes back. Prints the runs per job and every failed run in full;
--verbose prints every run instead.`,
};

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** `90s`, `30m`, `2h`, `1d`, `1h30m` → seconds, at most `max`. */
function parseDuration(text: string, max: number): number {
  const parts = [...text.matchAll(/(\d+)([smhd])/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) {
    throw new UsageError(`"${text}" is not a duration; use e.g. 90s, 30m, 2h, 1d or 1h30m`);
  }
  const seconds = parts.reduce((sum, [, n, unit]) => sum + Number(n) * UNITS[unit!]!, 0);
  if (seconds > max) throw new UsageError(`a single advance is at most ${max / 86400} days`);
  return seconds;
}

async function clockCommand(config: Config, argv: string[]): Promise<number> {
  // The route's limit, imported when a clock command runs (help and other commands stay light).
  const { MAX_ADVANCE_SECONDS } = await import('../admin/clock-routes.js');
  const [verb, rest] = argv[0] === undefined || argv[0].startsWith('-') ? ['show', argv] : [argv[0], argv.slice(1)];
  const options = { url: { type: 'string' as const }, verbose: { type: 'boolean' as const } };
  let body: unknown;
  let values: { url?: string; verbose?: boolean };
  if (verb === 'show') {
    ({ values } = parse(rest, { url: options.url }, 0));
  } else if (verb === 'advance') {
    const parsed = parse(rest, options, 1);
    values = parsed.values;
    body = { advanceSeconds: parseDuration(parsed.positionals[0]!, MAX_ADVANCE_SECONDS) };
  } else if (verb === 'set') {
    const parsed = parse(rest, options, 1);
    values = parsed.values;
    body = { to: parsed.positionals[0] };
  } else {
    throw new UsageError(`Unknown clock command "${verb}"`);
  }
  if (!config.adminToken)
    throw new UsageError('the clock commands use the operator API: set FLIGHTSTATUS_ADMIN_TOKEN as the service has it');
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const base = (values.url ?? `http://${host}:${config.port}`).replace(/\/+$/, '');
  let response: Response;
  try {
    response = await fetch(`${base}/api/admin/v1/clock`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${config.adminToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10 * 60_000),
    });
  } catch (error) {
    throw new Error(
      `no service answered at ${base} (${(error as Error).cause ?? (error as Error).message}); start it with npm start, or pass --url`,
      { cause: error },
    );
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${base} answered ${response.status} without JSON; is it the Flight Status Service?`);
  }
  const shown = body !== undefined && response.ok && values.verbose !== true ? summarised(parsed as Moved) : parsed;
  process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
  // A refusal is also one line on stderr, as every command's (docs/operator.md, "The CLI").
  if (!response.ok)
    process.stderr.write(
      `flightstatus: ${(parsed as { message?: string } | null)?.message ?? `HTTP ${response.status}`}\n`,
    );
  return response.ok ? 0 : 1;
}

interface Run {
  job: string;
  at: string;
  ok: boolean;
  error?: string;
  elsewhere?: boolean;
}

interface Moved {
  success: true;
  data: { previous: string; now: string; mode: string; runs: Run[] };
}

/**
 * A move's answer with its runs counted per job instead of listed (a month ahead is over 100,000
 * runs); the failed runs stay listed in full, since they are what an operator looks for.
 */
function summarised(answer: Moved): unknown {
  const { runs, ...rest } = answer.data;
  const jobs = new Map<
    string,
    { job: string; runs: number; failed: number; elsewhere: number; first: string; last: string }
  >();
  for (const run of runs) {
    const job = jobs.get(run.job) ?? { job: run.job, runs: 0, failed: 0, elsewhere: 0, first: run.at, last: run.at };
    job.runs += 1;
    if (!run.ok) job.failed += 1;
    if (run.elsewhere) job.elsewhere += 1;
    job.last = run.at;
    jobs.set(run.job, job);
  }
  return {
    ...answer,
    data: {
      ...rest,
      runs: {
        total: runs.length,
        failed: runs.filter((r) => !r.ok).length,
        jobs: [...jobs.values()],
        failures: runs.filter((r) => !r.ok),
      },
    },
  };
}

export const clock: Command = { help, json: true, run: clockCommand };
