// Where the CPU goes per request: for the HTTP scenarios that need no seeding (health, account,
// metered), the CPU time per answered request of the service process, of PostgreSQL (every
// `postgres` process on the machine, so run it on a quiet machine) and of the load generator (this
// process), and the service's garbage-collection time per request (from its /metrics). Printed only:
// a tool for finding where the time goes (docs/performance.md, "Where the time goes on PostgreSQL"),
// not a table of the document. Needs `npm run build`.
//
//   node bench/run.mjs cpu                      both databases
//   BENCH_DATABASES=postgres node bench/run.mjs cpu
import { readdirSync, readFileSync } from 'node:fs';
import { postgresTarget, sqliteTarget } from './targets.mjs';
import { CLOCK_TICK_US, createBenchKey, loadTest, serviceCli, startServer, ticks } from './server.mjs';

const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,postgres').split(',');
const TOKEN = 'cpu-bench-operator-token-0123456789';
const SCENARIOS = {
  health: '/api/health',
  account: '/api/v1/account',
  metered: '/api/v1/flights/status?flightNumber=W63101&flightDate=2026-02-30',
};

function postgresTicks() {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += ticks(pid);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

async function gcSeconds(url) {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  return [...text.matchAll(/^nodejs_gc_duration_seconds_sum\{kind="\w+"\} (\S+)$/gm)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );
}

async function measure(name, target) {
  const env = {
    ...process.env,
    DATABASE_URL: target.url,
    PORT: '0',
    LOG_LEVEL: 'warn',
    FLIGHTSTATUS_ADMIN_TOKEN: TOKEN,
  };
  const cli = serviceCli(env);
  const key = createBenchKey(cli);
  const server = await startServer(env);
  try {
    for (const [scenario, path] of Object.entries(SCENARIOS)) {
      const options = { url: server.url + path, connections: 50, headers: { authorization: `Bearer ${key}` } };
      await loadTest({ ...options, duration: 3 });
      const before = {
        service: ticks(server.pid),
        postgres: postgresTicks(),
        generator: process.cpuUsage(),
        gc: await gcSeconds(server.url),
      };
      const result = await loadTest({ ...options, duration: DURATION });
      const generator = process.cpuUsage(before.generator);
      const gc = await gcSeconds(server.url);
      const n = result.requests.total;
      const perRequest = (us) => (us / n).toFixed(0).padStart(4);
      console.log(
        `${name.padEnd(10)} ${scenario.padEnd(8)} ${String(Math.round(result.requests.average)).padStart(6)} req/s   µs of CPU per request: ` +
          `service ${perRequest((ticks(server.pid) - before.service) * CLOCK_TICK_US)}, ` +
          `PostgreSQL ${perRequest((postgresTicks() - before.postgres) * CLOCK_TICK_US)}, ` +
          `load generator ${perRequest(generator.user + generator.system)}; service GC ${perRequest((gc - before.gc) * 1e6)}`,
      );
    }
  } finally {
    await server.stop();
    await target.drop();
  }
}

export async function runCpuBench() {
  if (DATABASES.includes('sqlite')) await measure('SQLite', sqliteTarget());
  if (DATABASES.includes('postgres')) {
    const target = await postgresTarget();
    if (target) await measure('PostgreSQL', target);
  }
}
