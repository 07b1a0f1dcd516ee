// Batches (issue 29), two measures written under "## Batches" of docs/performance.md:
//
// 1. Provider requests per 1,000 rows through the AeroDataBox adapter, against the simulated world's
//    true flights of 30 days served in AeroDataBox's schema (bench/sim-adb.mjs, which counts every
//    request), for portfolios of different shapes; beside each, the naive plan: the same rows sent
//    one by one to GET /api/v1/flights/status (which already replays stored disruptions).
// 2. Rows a second of a 10,000-row batch of live lookups on the simulated world, on SQLite and
//    PostgreSQL, as a ratio to single lookups over HTTP with 50 connections in the same run; the
//    service's RSS during the batch; and the API's p99 with and without a batch running.
//
//   node bench/run.mjs batches      (BATCH_ROWS=10000, BENCH_POSTGRES_URL as the other benches;
//                                    BATCH_PARTS=speed or calls measures one part and prints it only)
import { writeSection } from './sections.mjs';
import { portfolio } from './portfolio.mjs';
import { adbFlights, startSimAdb } from './sim-adb.mjs';
import { CLOCK_TICK_US, createBenchKey, loadTest, rssOf, serviceCli, startServer, ticks } from './server.mjs';
import { postgresTarget, sqliteTarget } from './targets.mjs';

const DIST = new URL('../dist/', import.meta.url);
const { createSimWorld, groundTruth } = await import(new URL('sim/index.js', DIST).href);
const { loadReferenceAirports, loadCatalogue } = await import(new URL('airports/index.js', DIST).href);
const { offsetMinutes } = await import(new URL('providers/zones.js', DIST).href);

const ROWS = Number(process.env.BATCH_ROWS ?? 10_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/** Flights the single lookups go round (from the day the batch's rows end, so both read days the world simulates once). */
const SINGLES = 2_000;
const SEED = 'flightstatus';
const DAY = 86_400_000;
const KEY = 'bench-adb-key';

export async function runBatchesBench() {
  const parts = process.env.BATCH_PARTS ?? 'calls,speed';
  console.error('== Batches: provider requests per 1,000 rows (AeroDataBox stand-in)');
  const calls = parts.includes('calls') ? await measureCalls() : { days: '', results: [] };
  console.error('== Batches: rows a second, RSS, p99 (simulated world)');
  const speed = [];
  for (const [name, target] of parts.includes('speed')
    ? [
        ['SQLite', sqliteTarget()],
        ['PostgreSQL', await postgresTarget()],
      ]
    : []) {
    if (target) speed.push({ name, ...(await measureSpeed(target)) });
  }
  const section = render(calls, speed);
  if (parts === 'calls,speed') writeSection('## Batches', section);
  process.stdout.write(`${section}\n`);
}

const date = (ms) => new Date(ms).toISOString().slice(0, 10);

async function measureCalls() {
  const world = createSimWorld(SEED);
  const catalogue = new Set(loadCatalogue().airports.map((a) => a.iata));
  const airports = loadReferenceAirports();
  const end = Date.now() - 7 * DAY;
  const days = Array.from({ length: 32 }, (_, i) => date(end - (31 - i) * DAY));
  const truths = days.flatMap((d) => groundTruth(world, d)).filter((f) => f.operation === 'passenger');
  const served = adbFlights(truths, (iata) => airports.find(iata), offsetMinutes);
  const within = truths.filter((f) => f.flightDate >= days[1] && f.flightDate <= days[30] && catalogue.has(f.origin));
  const disrupted = within.filter(
    (f) => f.status === 'cancelled' || f.status === 'diverted' || (f.arrivalDelayMinutes ?? 0) >= 180,
  );
  // Claims cluster where a day went wrong: the disrupted flights of the airport-days with the most of them.
  const perDay = new Map();
  for (const f of disrupted)
    perDay.set(`${f.origin}|${f.flightDate}`, [...(perDay.get(`${f.origin}|${f.flightDate}`) ?? []), f]);
  const worst = [...perDay.values()].sort((a, b) => b.length - a.length);
  const clustered = [];
  for (const day of worst) if (clustered.length < 900) clustered.push(...day.slice(0, 900 - clustered.length));
  const shapes = [
    {
      name: "a claims firm's: disrupted flights (3 h late, cancelled, diverted), with their origin",
      rows: portfolio(disrupted, 29, true),
    },
    { name: 'the same rows without their origin', rows: portfolio(disrupted, 29, false) },
    { name: 'flights of every kind, spread evenly, with their origin', rows: portfolio(within, 31, true) },
    {
      name: 'the disrupted flights of the worst airport-days (storms, strikes), with their origin',
      rows: portfolio(clustered, 37, true),
    },
  ];
  const airportDays = (rows) => new Set(rows.filter((r) => r.origin).map((r) => `${r.origin}|${r.flightDate}`)).size;
  const results = [];
  for (const shape of shapes) {
    const batch = await withAdbService(served, async ({ url, key, fixture }) => {
      const before = fixture.total();
      const submitted = await call(url, key, 'POST', '/api/v1/batches', shape.rows);
      const done = await waitDone(url, key, submitted.id);
      return {
        lookups: submitted.lookups,
        planned: submitted.providerCalls.planned,
        made: fixture.total() - before,
        said: done.providerCalls.made,
        answered: done.counts.byState.done,
      };
    });
    const naive = await withAdbService(served, async ({ url, key, fixture }) => {
      const before = fixture.total();
      const queue = [...shape.rows];
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let row = queue.shift(); row; row = queue.shift()) {
            const { reference: _, ...query } = row;
            await fetch(`${url}/api/v1/flights/status?${new URLSearchParams(query)}`, {
              headers: { authorization: `Bearer ${key}` },
            }).then((r) => r.arrayBuffer());
          }
        }),
      );
      return fixture.total() - before;
    });
    const entry = { name: shape.name, rows: shape.rows.length, airportDays: airportDays(shape.rows), ...batch, naive };
    console.error(JSON.stringify(entry));
    results.push(entry);
  }
  return { days: `${days[1]} to ${days[30]}`, airports: new Set(disrupted.map((f) => f.origin)).size, results };
}

/** A service on a fresh SQLite database asking the AeroDataBox stand-in, an account and its key. */
async function withAdbService(served, run) {
  const fixture = await startSimAdb(served, KEY);
  const target = sqliteTarget();
  const env = {
    ...process.env,
    DATABASE_URL: target.url,
    PORT: '0',
    LOG_LEVEL: 'warn',
    FLIGHTSTATUS_PROVIDERS: 'aerodatabox',
    FLIGHTSTATUS_AERODATABOX_KEY: KEY,
    FLIGHTSTATUS_AERODATABOX_URL: fixture.url,
    FLIGHTSTATUS_AERODATABOX_REQUESTS_PER_MINUTE: '100000',
  };
  const key = createBenchKey(serviceCli(env));
  const server = await startServer(env);
  try {
    return await run({ url: server.url, key, fixture });
  } finally {
    await server.stop();
    await target.drop();
    await fixture.close();
  }
}

async function call(url, key, method, path, body) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await response.json();
  if (!json.success) throw new Error(`${method} ${path}: ${json.message}`);
  return json.data;
}

async function waitDone(url, key, id, onPoll = () => {}) {
  for (;;) {
    const batch = await call(url, key, 'GET', `/api/v1/batches/${id}`);
    onPoll(batch);
    if (batch.state === 'done' || batch.state === 'canceled') return batch;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Live lookups of the simulated world: on-time flights (never stored) of recent days, all different. */
function liveRows(count) {
  const world = createSimWorld(SEED);
  const rows = [];
  for (let offset = 1; rows.length < count && offset < 30; offset++) {
    for (const f of groundTruth(world, date(Date.now() - offset * DAY))) {
      if (f.operation === 'passenger' && f.status === 'on_time')
        rows.push({ flightNumber: f.flightNumber, flightDate: f.flightDate, origin: f.origin });
      if (rows.length === count) break;
    }
  }
  return rows;
}

async function measureSpeed(target) {
  const env = { ...process.env, DATABASE_URL: target.url, PORT: '0', LOG_LEVEL: 'warn' };
  const key = createBenchKey(serviceCli(env));
  // Both sides ask the same kind of question: no origin (so no day of departures is read), on-time
  // flights (never stored). The single lookups share one counter over their paths, so no two connections
  // ask the same flight at once (autocannon's `requests` array would send every connection the same
  // sequence, and identical lookups in flight at the same moment share one resolve).
  const rows = liveRows(ROWS + SINGLES).map(({ origin: _, ...r }) => r);
  const batchRows = rows.slice(0, ROWS);
  const singles = rows.slice(ROWS).map((r) => `/api/v1/flights/status?${new URLSearchParams(r)}`);
  const server = await startServer(env);
  try {
    const auth = { authorization: `Bearer ${key}` };
    let next = 0;
    const load = (connections, duration) =>
      loadTest({
        url: server.url,
        connections,
        duration,
        headers: auth,
        requests: [
          { method: 'GET', setupRequest: (request) => ({ ...request, path: singles[next++ % singles.length] }) },
        ],
      });
    await load(CONNECTIONS, 3); // warm-up
    let cpu = ticks(server.pid);
    const single = await load(CONNECTIONS, 10);
    const singleCpuUs = ((ticks(server.pid) - cpu) * CLOCK_TICK_US) / Math.max(1, single.requests.total);
    // The batch alone, its RSS sampled.
    let rss = 0;
    const sampler = setInterval(() => (rss = Math.max(rss, rssOf(server.pid))), 200);
    cpu = ticks(server.pid);
    const started = performance.now();
    const submitted = await call(server.url, key, 'POST', '/api/v1/batches', batchRows);
    const done = await waitDone(server.url, key, submitted.id);
    const seconds = (performance.now() - started) / 1000;
    const batchCpuUs = ((ticks(server.pid) - cpu) * CLOCK_TICK_US) / done.rows;
    clearInterval(sampler);
    // The API's p99 at a moderate load, then the same while another batch runs (canceled after).
    const quiet = await load(10, 10);
    const second = await call(server.url, key, 'POST', '/api/v1/batches', batchRows);
    const busy = await load(10, 10);
    const during = await call(server.url, key, 'GET', `/api/v1/batches/${second.id}`);
    await fetch(`${server.url}/api/v1/batches/${second.id}`, { method: 'DELETE', headers: auth });
    const result = {
      rows: done.rows,
      seconds,
      rowsPerSecond: done.rows / seconds,
      singlePerSecond: single.requests.average,
      singleCpuUs,
      batchCpuUs,
      rssMb: Math.round(rss / 1024),
      p99Quiet: quiet.latency.p99,
      p99Busy: busy.latency.p99,
      busyRows: during.progress.finished,
      answered: done.counts.byState.done,
    };
    console.error(JSON.stringify(result));
    return result;
  } finally {
    await server.stop();
    await target.drop();
  }
}

function render(calls, speed) {
  const per1000 = (n, rows) => Math.round((n * 1000) / rows);
  const lines = [
    '## Batches',
    '',
    `Written by \`node bench/run.mjs batches\` (bench/batches.mjs) on ${new Date().toISOString().slice(0, 10)}.`,
    '',
    '### Provider requests per 1,000 rows',
    '',
    `Through the AeroDataBox adapter, against the simulated world's true flights of ${calls.days} served in AeroDataBox's schema by a`,
    'stand-in that counts every request it receives (bench/sim-adb.mjs). Each portfolio has 1,000 rows: 900 flights and 100 of them again.',
    '"Naive" is the same rows sent one by one to `GET /api/v1/flights/status`, which already replays a stored disruption. Target: ≤ 300 per',
    "1,000 rows on a claims firm's portfolio.",
    '',
    '| Portfolio | Airport-days | Lookups | Planned | Made (stand-in) | Said by the batch | Naive | Per 1,000 rows | Naive per 1,000 |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...calls.results.map(
      (r) =>
        `| ${r.name} | ${r.airportDays} | ${r.lookups} | ${r.planned} | ${r.made} | ${r.said} | ${r.naive} | **${per1000(r.made, r.rows)}** | ${per1000(r.naive, r.rows)} |`,
    ),
    '',
    '### Rows a second, memory and the API beside a batch',
    '',
    `A batch of ${ROWS.toLocaleString('en')} live lookups (on-time flights, never stored, no origin: each a lookup of its own) on the simulated world,`,
    `against single lookups of ${SINGLES.toLocaleString('en')} other live flights of the same kind, round robin (no two connections asking the same flight at`,
    `once), over HTTP with ${CONNECTIONS} connections (autocannon, 10 s) in the same run. CPU: the service process's user and system time per answer`,
    '(its garbage-collection threads included). RSS: the',
    "service's largest resident set while the batch ran. p99: single lookups at 10 connections for 10 s, without a batch, then while a second",
    'batch of the same rows runs (the rows it answered meanwhile in the last column).',
    'Targets: ≥ 2× single lookups; ≤ 250 MB; p99 ≤ 2× without.',
    '',
    '| Database | Batch rows/s | Single lookups/s | Ratio | CPU µs a row | CPU µs a lookup | RSS | p99 without | p99 with a batch | p99 ratio | Batch rows meanwhile |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...speed.map(
      (s) =>
        `| ${s.name} | ${Math.round(s.rowsPerSecond)} | ${Math.round(s.singlePerSecond)} | **${(s.rowsPerSecond / s.singlePerSecond).toFixed(2)} ×** | ${Math.round(s.batchCpuUs)} | ${Math.round(s.singleCpuUs)} | ${s.rssMb} MB | ${s.p99Quiet} ms | ${s.p99Busy} ms | ${(s.p99Busy / Math.max(1, s.p99Quiet)).toFixed(2)} × | ${s.busyRows} |`,
    ),
  ];
  return lines.join('\n');
}
