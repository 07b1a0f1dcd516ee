// The built service as its own process on loopback (node dist/main.js serve), for the benches.
// BENCH_SERVICE_NODE_ARGS adds Node options to that process only, e.g. to profile the service under a
// scenario: BENCH_SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" (NODE_OPTIONS refuses --cpu-prof).
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import autocannon from 'autocannon';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = join(fileURLToPath(new URL('..', import.meta.url)), 'dist/main.js');

/**
 * The Node options `npm start` gives the service (its heap bounds: docs/performance.md, "Memory"): the
 * words between `node` and the script (`serve --exit-with-parent` after it is the service's own), then
 * BENCH_SERVICE_NODE_ARGS.
 */
const START_WORDS = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  .scripts.start.split(' ')
  .slice(1);
const START_FLAGS = START_WORDS.slice(
  0,
  START_WORDS.findIndex((word) => !word.startsWith('--')),
);
const nodeArgs = () => [...START_FLAGS, ...(process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean)];

/**
 * Starts the service with `env`; resolves once it listens. `stdout` collects its log lines. `main`: another
 * build's dist/main.js (an A/B against the code before a change), else this checkout's.
 */
export async function startServer(env, main = MAIN) {
  // On PostgreSQL the service needs the key that seals webhook secrets (docs/operator.md); a bench key.
  if (/^postgres/.test(env.DATABASE_URL ?? '') && !env.FLIGHTSTATUS_WEBHOOK_SECRET_KEY)
    env = { ...env, FLIGHTSTATUS_WEBHOOK_SECRET_KEY: 'be'.repeat(32) };
  const child = spawn(process.execPath, [...nodeArgs(), main, 'serve'], {
    env,
    cwd: tmpdir(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = /is listening on (http:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  return {
    url,
    pid: child.pid,
    stdout: () => stdout,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/** User + system CPU of a process so far, in clock ticks of CLOCK_TICK_US (0 once it is gone). */
export function ticks(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

export const CLOCK_TICK_US = 1e6 / 100; // USER_HZ

/** The resident set of process `pid` in kB (0 when it is gone). */
export function rssOf(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** The built service's CLI on `env`'s database: `cli('accounts', 'get', 'bench')` answers the `data` of its JSON. */
export function serviceCli(env, main = MAIN) {
  return (...args) =>
    JSON.parse(
      execFileSync(process.execPath, [main, ...args], { env, cwd: tmpdir(), maxBuffer: 256 * 2 ** 20 }).toString(),
    ).data;
}

/** The benches' account (a billion requests included, so none is refused) and a key of it. */
export function createBenchKey(cli) {
  cli('accounts', 'create', '--slug', 'bench', '--included', '1000000000');
  return cli('keys', 'create', '--account', 'bench', '--name', 'bench').key;
}

/** One autocannon run. */
export function loadTest(options) {
  return new Promise((resolve, reject) =>
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result))),
  );
}
