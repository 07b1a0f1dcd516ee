// The cost of a real provider: live lookups through FLIGHTSTATUS_PROVIDERS=aerodatabox against a
// fixture server answering in 0 ms (bench/adb-fixture.mjs, its own process), as a ratio to the same
// kind of lookup on the simulated world in the same run (target ≥ 0.8: the adapter and the cascade
// add little), and the latency of one provider call as the service counts it
// (GET /api/admin/v1/providers). Both services on SQLite, on loopback, scenarios interleaved over
// rounds. `node bench/run.mjs providers` writes "## Flight data providers" in docs/performance.md.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSection } from './sections.mjs';
import { createBenchKey, loadTest, serviceCli, startServer } from './server.mjs';
import { sqliteTarget } from './targets.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = 3;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const FLIGHTS = 500;
const TARGET = 0.8;
const ADMIN = 'bench-admin-token-0123456789abcdef';

export async function runProvidersBench() {
  const section = renderProviders(await measureProviders());
  writeSection('## Flight data providers', section);
  process.stdout.write(`${section}\n`);
}

async function startFixture(date) {
  const child = spawn(process.execPath, [join(ROOT, 'bench/adb-fixture.mjs'), date, String(FLIGHTS)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((resolve, reject) => {
    child.stdout.once('data', (chunk) => resolve(String(chunk).trim()));
    child.once('exit', (code) => reject(new Error(`fixture exited with ${code}`)));
  });
  return { url, stop: () => new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGTERM'))) };
}

/** A service on a fresh SQLite database with `extra` settings, an account and its key. */
async function service(extra) {
  const target = sqliteTarget();
  const env = {
    ...process.env,
    DATABASE_URL: target.url,
    PORT: '0',
    LOG_LEVEL: 'warn',
    FLIGHTSTATUS_ADMIN_TOKEN: ADMIN,
    ...extra,
  };
  const cli = serviceCli(env);
  const key = createBenchKey(cli);
  const server = await startServer(env);
  return { server, key, cli, stop: async () => (await server.stop(), await target.drop()) };
}

export async function measureProviders() {
  // Yesterday (UTC): settled, and on time, so never stored: every lookup resolves live.
  const date = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const fixture = await startFixture(date);
  const sim = await service({});
  const adb = await service({
    FLIGHTSTATUS_PROVIDERS: 'aerodatabox',
    FLIGHTSTATUS_AERODATABOX_KEY: 'bench',
    FLIGHTSTATUS_AERODATABOX_URL: fixture.url,
    FLIGHTSTATUS_AERODATABOX_REQUESTS_PER_MINUTE: '100000',
  });
  try {
    const simPaths = sim
      .cli('sim', 'flights', '--date', date, '--status', 'on_time', '--operation', 'passenger')
      .flights.slice(0, FLIGHTS)
      .map(
        (f) => `/api/v1/flights/status?flightNumber=${f.flightNumber}&flightDate=${f.flightDate}&origin=${f.origin}`,
      );
    const adbPaths = Array.from(
      { length: FLIGHTS },
      (_, i) => `/api/v1/flights/status?flightNumber=KB${1000 + i}&flightDate=${date}&origin=MAD`,
    );
    // Both answer what they should before anything is measured.
    for (const [s, path] of [
      [sim, simPaths[0]],
      [adb, adbPaths[0]],
    ]) {
      const body = await (await fetch(s.server.url + path, { headers: { authorization: `Bearer ${s.key}` } })).json();
      if (body.data?.selected?.status !== 'on_time' || body.data?.meta?.cached)
        throw new Error(`unexpected lookup answer: ${JSON.stringify(body).slice(0, 400)}`);
    }
    const scenarios = [
      { name: 'sim', service: sim, paths: simPaths },
      { name: 'aerodatabox', service: adb, paths: adbPaths },
    ];
    const rounds = [];
    for (let round = 0; round < ROUNDS; round++) {
      const measured = {};
      for (const scenario of round % 2 === 0 ? scenarios : [...scenarios].reverse()) {
        measured[scenario.name] = await load(scenario);
        const m = measured[scenario.name];
        console.error(
          `round ${round + 1} ${scenario.name.padEnd(12)} ${Math.round(m.rps)} req/s p50 ${m.p50} ms p99 ${m.p99} ms service CPU ${Math.round(m.cpuUs)} µs/lookup unexpected ${m.unexpected}`,
        );
      }
      rounds.push(measured);
    }
    const providers = await (
      await fetch(`${adb.server.url}/api/admin/v1/providers`, { headers: { authorization: `Bearer ${ADMIN}` } })
    ).json();
    const counted = providers.data.providers[0];
    return { rounds, counted, date };
  } finally {
    await sim.stop();
    await adb.stop();
    await fixture.stop();
  }
}

async function load({ service: s, paths }) {
  let next = 0;
  const options = {
    url: s.server.url,
    connections: CONNECTIONS,
    headers: { authorization: `Bearer ${s.key}` },
    requests: [{ setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] }) }],
  };
  await loadTest({ ...options, duration: WARMUP });
  const before = cpuMs(s.server.pid);
  const result = await loadTest({ ...options, duration: DURATION });
  const cpu = cpuMs(s.server.pid) - before;
  return {
    cpuUs: result.requests.total > 0 ? (cpu * 1000) / result.requests.total : NaN,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    unexpected: result.non2xx + result.errors + result.timeouts,
  };
}

/** CPU time (user + system, every thread) the process has used, in ms, from /proc (Linux). */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 1/100 s
  } catch {
    return NaN;
  }
}

export function renderProviders({ rounds, counted }) {
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const cell = (name, pick) => median(rounds.map((r) => pick(r[name])));
  const ratio = median(rounds.map((r) => r.aerodatabox.rps / r.sim.rps));
  const calls = counted.calls.flight;
  const row = (name, label) =>
    `| ${label} | ${Math.round(cell(name, (m) => m.rps)).toLocaleString('en-US')} | ${name === 'sim' ? '1.00' : ratio.toFixed(2)} | ${cell(name, (m) => m.p50)} | ${cell(name, (m) => m.p99)} | ${Math.round(cell(name, (m) => m.cpuUs))} | ${rounds.reduce((sum, r) => sum + r[name].unexpected, 0)} |`;
  return [
    '## Flight data providers',
    '',
    `Written by \`node bench/run.mjs providers\` (bench/providers.mjs) on ${new Date().toISOString().slice(0, 10)}. Live lookups (${FLIGHTS} different ` +
      'on-time flights of yesterday, never stored, so every one is resolved) through two services on SQLite: one on the simulated world, one with ' +
      '`FLIGHTSTATUS_PROVIDERS=aerodatabox` against a fixture server answering in 0 ms in its own process (bench/adb-fixture.mjs). Each lookup names its ' +
      "origin (MAD, UTC+1) and its leg is in the UTC date's local file: one request each. autocannon with " +
      `${CONNECTIONS} connections, ${WARMUP} s warm-up, ${DURATION} s measured, ${ROUNDS} rounds with the order swapped; medians over rounds. ` +
      "Everything (two services, the fixture, the load) shares the machine's cores.",
    '',
    `| provider | lookups/s | ratio to sim | p50 ms | p99 ms | service CPU µs per lookup | unexpected responses |`,
    '|---|---|---|---|---|---|---|',
    row('sim', 'simulated world (in process)'),
    row('aerodatabox', 'AeroDataBox adapter (fixture over HTTP)'),
    '',
    `Target: ratio ≥ ${TARGET} — ${ratio >= TARGET ? 'met' : '**not met**'}. ` +
      `One AeroDataBox call as the service counts it (one request, retries none): p50 ${calls.latencyMs.p50} ms, p99 ${calls.latencyMs.p99} ms ` +
      `over the last ${Math.min(512, calls.calls)} of ${calls.calls.toLocaleString('en-US')} calls; ${counted.requests.toLocaleString('en-US')} requests sent, ${counted.refused} refused.`,
    '',
    `The service's CPU per lookup (user + system time of its process over the measured seconds, from /proc) is what sets the ratio: the service is the ` +
      `busiest process in both scenarios. Where the difference goes (the HTTP round trip, measured): ` +
      '[providers.md](providers.md#what-the-adapter-costs-the-service).',
  ].join('\n');
}
