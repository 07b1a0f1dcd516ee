// Compression (@fastify/compress, threshold 1 KB) on the metered path and on the API description:
// the same requests with and without Accept-Encoding, interleaved over rounds, on SQLite, against
// the health route of the same round. `node bench/run.mjs compression` writes "## Compression".
import { writeSection } from './sections.mjs';
import { createBenchKey, loadTest, serviceCli, startServer } from './server.mjs';
import { sqliteTarget } from './targets.mjs';

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const WARMUP = 2;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/** What browsers and curl --compressed send. */
const ACCEPT = 'gzip, deflate, br';

export async function runCompressionBench() {
  const target = sqliteTarget();
  const env = { ...process.env, DATABASE_URL: target.url, PORT: '0', LOG_LEVEL: 'warn', FLIGHTSTATUS_ADMIN_TOKEN: '' };
  const cli = serviceCli(env);
  const key = createBenchKey(cli);
  const day = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
  const delayed = cli('sim', 'flights', '--date', day, '--status', 'delayed', '--operation', 'passenger').flights[0];
  const replay = `/api/v1/flights/status?flightNumber=${delayed.flightNumber}&flightDate=${delayed.flightDate}&origin=${delayed.origin}`;
  const auth = { authorization: `Bearer ${key}` };
  const scenarios = [
    {
      name: 'health',
      label: '`GET /api/health` (baseline, 45 bytes: never compressed)',
      path: '/api/health',
      headers: {},
    },
    { name: 'replay', label: '`GET /api/v1/flights/status` replay, no Accept-Encoding', path: replay, headers: auth },
    {
      name: 'replay-gz',
      label: `\`GET /api/v1/flights/status\` replay, \`Accept-Encoding: ${ACCEPT}\` (br)`,
      path: replay,
      headers: { ...auth, 'accept-encoding': ACCEPT },
    },
    {
      name: 'replay-gzip',
      label: '`GET /api/v1/flights/status` replay, `Accept-Encoding: gzip`',
      path: replay,
      headers: { ...auth, 'accept-encoding': 'gzip' },
    },
    { name: 'doc', label: '`GET /api/v1/openapi.json`, no Accept-Encoding', path: '/api/v1/openapi.json', headers: {} },
    {
      name: 'doc-br',
      label: `\`GET /api/v1/openapi.json\`, \`Accept-Encoding: ${ACCEPT}\` (br)`,
      path: '/api/v1/openapi.json',
      headers: { 'accept-encoding': ACCEPT },
    },
  ];
  const server = await startServer(env);
  const rounds = [];
  try {
    await fetch(server.url + replay, { headers: auth });
    const replayed = await (await fetch(server.url + replay, { headers: auth })).json();
    if (!replayed.data?.meta?.cached) throw new Error('the replay scenario does not replay');
    for (let round = 0; round < ROUNDS; round++) {
      const measured = {};
      for (const scenario of scenarios.map((_, i) => scenarios[(i + round) % scenarios.length])) {
        const options = { url: server.url + scenario.path, connections: CONNECTIONS, headers: scenario.headers };
        await loadTest({ ...options, duration: WARMUP });
        const result = await loadTest({ ...options, duration: DURATION });
        const m = {
          rps: result.requests.average,
          p99: result.latency.p99,
          bytes: result.throughput.average / Math.max(1, result.requests.average),
          unexpected: result.non2xx + result.errors + result.timeouts,
        };
        measured[scenario.name] = m;
        console.error(
          `round ${round + 1} ${scenario.name.padEnd(12)} ${Math.round(m.rps)} req/s p99 ${m.p99} ms ${Math.round(m.bytes)} B/response`,
        );
      }
      rounds.push(measured);
    }
  } finally {
    await server.stop();
    await target.drop();
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const rows = scenarios.map((s) => {
    const rps = median(rounds.map((r) => r[s.name].rps));
    const ratio = median(rounds.map((r) => r[s.name].rps / r.health.rps));
    const p99 = median(rounds.map((r) => r[s.name].p99));
    const bytes = median(rounds.map((r) => r[s.name].bytes));
    const unexpected = rounds.reduce((sum, r) => sum + r[s.name].unexpected, 0);
    return `| ${s.label} | ${Math.round(rps).toLocaleString('en-US')} | ${ratio.toFixed(2)} | ${p99} | ${Math.round(bytes).toLocaleString('en-US')} | ${unexpected} |`;
  });
  const section = [
    '## Compression',
    '',
    `Written by \`node bench/run.mjs compression\` (bench/compression.mjs) on ${new Date().toISOString().slice(0, 10)}: SQLite, ` +
      `the built service on loopback, autocannon with ${CONNECTIONS} connections, ${WARMUP} s warm-up, ${DURATION} s measured, ` +
      `${ROUNDS} rounds with the order rotated; medians over rounds. Bytes per response are autocannon's (headers included, ` +
      'as sent on the wire).',
    '',
    '| scenario | req/s | ratio to health | p99 ms | bytes per response | unexpected responses |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  writeSection('## Compression', section);
  process.stdout.write(`${section}\n`);
}
