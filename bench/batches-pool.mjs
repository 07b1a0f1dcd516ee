// Batches on a PostgreSQL pool (issue 42, item 7), written under "## Batches on a PostgreSQL pool" of
// docs/performance.md. Two measures:
//
// 1. The issue's shape on one PostgreSQL: an API process and two workers, each with its pool
//    (FLIGHTSTATUS_DB_POOL_SIZE) and 32 batch lookups in flight (FLIGHTSTATUS_BATCH_CONCURRENCY's
//    default). A batch of 5,000 delayed flights of the simulated world is run once (answered live,
//    each stored as a settled disruption), then asked again: every lookup of the second run is
//    database work (the stored record, its credit, its answer). Four batches of 40 rows of other
//    accounts are submitted right after the big one; each worker's /api/ready is asked every 250 ms.
//    A slow database is what made lookups fail (they timed out waiting for a connection): once the
//    workers have started, a session of the bench holds the stored flights locked for POOL_STALL_MS
//    (6 s, longer than the pool's 5-second connect timeout), as a long statement, a vacuum or a
//    stalled disk would. Baseline of the same run: single lookups of the same stored flights (replays)
//    over HTTP through the API process, 50 connections for 10 s.
// 2. Lookups that wait on a provider hold no connection meanwhile: 1,000 live lookups (on-time flights,
//    never stored) with the simulated provider answering in 100 ms, in one process on a pool of 10,
//    with 32 lookups in flight (their database work in the batches' share of 5 connections) and with 5
//    (what capping whole lookups at that share would give).
//
//   node bench/run.mjs batches-pool   POOL_ROWS=5000; POOL_SIZES=10,4 (this build, one run each);
//                                     POOL_STALL_MS=6000 (0: no stall); BENCH_BEFORE_MAIN=/path/to/dist/main.js
//                                     adds runs of another build (the code before a change, at its own
//                                     fixed pool); BENCH_WRITE=0 prints only; BENCH_POSTGRES_URL as the
//                                     other benches
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { writeSection } from './sections.mjs';
import { createBenchKey, loadTest, serviceCli, startServer } from './server.mjs';
import { postgresTarget } from './targets.mjs';

const HEADING = '## Batches on a PostgreSQL pool';
const DIST = new URL('../dist/', import.meta.url);
const { createSimWorld, groundTruth } = await import(new URL('sim/index.js', DIST).href);

const ROWS = Number(process.env.POOL_ROWS ?? 5_000);
const SIZES = (process.env.POOL_SIZES ?? '10,4').split(',').map(Number);
const SMALL = 40;
const OTHERS = 4;
const DAY = 86_400_000;
const TIMEOUT = 'timeout exceeded when trying to connect';
const STALL_MS = Number(process.env.POOL_STALL_MS ?? 6_000);
const LIVE_ROWS = 1_000;
const LIVE_LATENCY_MS = 100;

export async function runBatchesPoolBench() {
  const arms = [
    ...(process.env.BENCH_BEFORE_MAIN
      ? [{ label: 'before (fixed pool of 10)', main: process.env.BENCH_BEFORE_MAIN, poolSize: null }]
      : []),
    ...SIZES.map((size) => ({ label: `this build, pool ${size}`, main: undefined, poolSize: size })),
  ];
  const results = [];
  for (const arm of arms) results.push({ ...arm, ...(await measureArm(arm)) });
  const live = [];
  for (const arm of [
    ...(process.env.BENCH_BEFORE_MAIN
      ? [{ label: 'before, 32 in flight', main: process.env.BENCH_BEFORE_MAIN, concurrency: 32 }]
      : []),
    { label: 'this build, 32 in flight (database work in a share of 5)', main: undefined, concurrency: 32 },
    { label: 'this build, 5 in flight (whole lookups capped at the share)', main: undefined, concurrency: 5 },
  ]) {
    live.push({ ...arm, ...(await measureLive(arm)) });
  }
  const section = render(results, live);
  if (process.env.BENCH_WRITE !== '0') writeSection(HEADING, section);
  process.stdout.write(`${section}\n`);
}

/** Delayed flights of days well past the three-day window, one leg per number (no origin needed): stored once answered. */
function delayedRows(count) {
  const world = createSimWorld('flightstatus');
  const rows = [];
  for (let offset = 10; rows.length < count && offset < 60; offset++) {
    const date = new Date(Date.now() - offset * DAY).toISOString().slice(0, 10);
    const day = groundTruth(world, date);
    const legs = new Map();
    for (const f of day) legs.set(f.flightNumber, (legs.get(f.flightNumber) ?? 0) + 1);
    for (const f of day) {
      if (f.operation !== 'passenger' || f.status !== 'delayed' || legs.get(f.flightNumber) !== 1) continue;
      rows.push({ flightNumber: f.flightNumber, flightDate: f.flightDate });
      if (rows.length === count) break;
    }
  }
  return rows;
}

async function call(url, key, method, path, body) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await response.json();
  if (!json.success) throw new Error(`${method} ${path}: ${response.status} ${json.message}`);
  return json.data;
}

async function waitDone(url, key, id, onPoll = () => {}) {
  for (;;) {
    const batch = await call(url, key, 'GET', `/api/v1/batches/${id}`);
    onPoll(batch);
    if (batch.state === 'done' || batch.state === 'canceled') return batch;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function measureArm({ label, main, poolSize }) {
  console.error(`== ${label}`);
  const target = await postgresTarget('flightstatus_bench_pool');
  if (!target) throw new Error('this bench needs PostgreSQL');
  const env = {
    ...process.env,
    DATABASE_URL: target.url,
    PORT: '0',
    LOG_LEVEL: 'warn',
    FLIGHTSTATUS_ADMIN_TOKEN: '',
    ...(poolSize ? { FLIGHTSTATUS_DB_POOL_SIZE: String(poolSize) } : {}),
  };
  const servers = [];
  const client = new pg.Client({ connectionString: target.url });
  try {
    const cli = serviceCli(env, main);
    const key = createBenchKey(cli);
    const others = Array.from({ length: OTHERS }, (_, i) => {
      cli('accounts', 'create', '--slug', `other${i + 1}`, '--included', '100000');
      return cli('keys', 'create', '--account', `other${i + 1}`, '--name', 'k').key;
    });
    const rows = delayedRows(ROWS + OTHERS * SMALL);
    const api = await startServer({ ...env, FLIGHTSTATUS_ROLE: 'api' }, main);
    servers.push(api);
    const workers = [];
    for (let i = 0; i < 2; i++) workers.push(await startServer({ ...env, FLIGHTSTATUS_ROLE: 'worker' }, main));
    servers.push(...workers);
    await client.connect();
    // First run: every flight answered live and stored.
    const first = await call(api.url, key, 'POST', '/api/v1/batches', rows);
    const stored = await waitDone(api.url, key, first.id);
    if (stored.counts.byState.done !== rows.length) throw new Error(`first run: ${JSON.stringify(stored.counts)}`);
    const {
      rows: [{ n: records }],
    } = await client.query('SELECT count(*)::int AS n FROM flight_records');
    console.error(`stored ${records} flights`);

    // Baseline: single lookups of the same flights (replays) through the API process.
    const paths = rows.map((r) => `/api/v1/flights/status?${new URLSearchParams(r)}`);
    let next = 0;
    const load = (duration) =>
      loadTest({
        url: api.url,
        connections: 50,
        duration,
        headers: { authorization: `Bearer ${key}` },
        requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] }) }],
      });
    await load(3);
    const single = await load(10);

    // Second run: the same 5,000 rows, then four small batches of other accounts; readiness polled throughout.
    const timeoutsBefore = workers.map((w) => count(w.stdout(), TIMEOUT));
    const ready = { asked: 0, failed: 0, maxMs: 0 };
    let polling = true;
    const readiness = (async () => {
      while (polling) {
        await Promise.all(
          workers.map(async (w) => {
            const began = performance.now();
            const ok = await fetch(`${w.url}/api/ready`, { signal: AbortSignal.timeout(30_000) }).then(
              (r) => r.status === 200,
              () => false,
            );
            ready.asked++;
            if (!ok) ready.failed++;
            ready.maxMs = Math.max(ready.maxMs, performance.now() - began);
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
    const started = performance.now();
    const big = await call(api.url, key, 'POST', '/api/v1/batches', rows.slice(0, ROWS));
    const smalls = await Promise.all(
      others.map((k, i) =>
        call(api.url, k, 'POST', '/api/v1/batches', rows.slice(ROWS + i * SMALL, ROWS + (i + 1) * SMALL)).then((b) => ({
          key: k,
          id: b.id,
        })),
      ),
    );
    const smallDone = Promise.all(
      smalls.map(async (s) => (await waitDone(api.url, s.key, s.id), (performance.now() - started) / 1000)),
    );
    let firstRow = null;
    let stall = Promise.resolve();
    const done = await waitDone(api.url, key, big.id, (b) => {
      if (firstRow !== null || b.progress.finished === 0) return;
      firstRow = (performance.now() - started) / 1000;
      // The database turns slow: the stored flights are locked for longer than the connect timeout.
      if (STALL_MS > 0) stall = hold(target.url, STALL_MS);
    });
    await stall;
    const seconds = (performance.now() - started) / 1000;
    const smallSeconds = await smallDone;
    polling = false;
    await readiness;
    const {
      rows: [attempts],
    } = await client.query(
      'SELECT count(*) FILTER (WHERE attempts > 1)::int AS retried, max(attempts)::int AS most FROM batch_lookups WHERE batch_id = $1',
      [big.id],
    );
    const result = {
      records,
      // From the first row answered: a worker finds a batch submitted to another process by polling every 5 s.
      rowsPerSecond: done.rows / (seconds - (firstRow ?? 0)),
      seconds,
      answered: done.counts.byState.done,
      credits: done.credits,
      singlePerSecond: single.requests.average,
      firstRow: firstRow ?? seconds,
      smallMax: Math.max(...smallSeconds),
      ready,
      retried: attempts.retried,
      most: attempts.most,
      timeouts: workers.reduce((sum, w, i) => sum + count(w.stdout(), TIMEOUT) - timeoutsBefore[i], 0),
      givenBack: workers.reduce((sum, w) => sum + count(w.stdout(), 'given back, not counted'), 0),
      load: loadavg()[0],
    };
    console.error(JSON.stringify(result));
    return result;
  } finally {
    await client.end().catch(() => {});
    await Promise.all(servers.map((s) => s.stop()));
    await target.drop();
  }
}

const count = (text, needle) => text.split(needle).length - 1;

/** Holds flight_records locked (every read of a stored flight waits) for `ms`, from a session of its own. */
async function hold(url, ms) {
  const locker = new pg.Client({ connectionString: url });
  await locker.connect();
  try {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE flight_records IN ACCESS EXCLUSIVE MODE');
    await new Promise((resolve) => setTimeout(resolve, ms));
    await locker.query('COMMIT');
  } finally {
    await locker.end();
  }
}

/** On-time flights of recent days (never stored), all different. */
function liveRows(count) {
  const world = createSimWorld('flightstatus');
  const rows = [];
  for (let offset = 1; rows.length < count && offset < 30; offset++) {
    for (const f of groundTruth(world, new Date(Date.now() - offset * DAY).toISOString().slice(0, 10))) {
      if (f.operation === 'passenger' && f.status === 'on_time')
        rows.push({ flightNumber: f.flightNumber, flightDate: f.flightDate, origin: f.origin });
      if (rows.length === count) break;
    }
  }
  return rows;
}

async function measureLive({ label, main, concurrency }) {
  console.error(`== live: ${label}`);
  const target = await postgresTarget('flightstatus_bench_pool');
  if (!target) throw new Error('this bench needs PostgreSQL');
  const env = {
    ...process.env,
    DATABASE_URL: target.url,
    PORT: '0',
    LOG_LEVEL: 'warn',
    FLIGHTSTATUS_ADMIN_TOKEN: '',
    FLIGHTSTATUS_DB_POOL_SIZE: '10',
    FLIGHTSTATUS_BATCH_CONCURRENCY: String(concurrency),
    FLIGHTSTATUS_BATCH_PER_BATCH: String(concurrency),
    FLIGHTSTATUS_SIM_LATENCY: `flight=${LIVE_LATENCY_MS}`,
  };
  let server = null;
  try {
    const key = createBenchKey(serviceCli(env, main));
    server = await startServer(env, main);
    const started = performance.now();
    const batch = await call(server.url, key, 'POST', '/api/v1/batches', liveRows(LIVE_ROWS));
    let firstRow = null;
    const done = await waitDone(server.url, key, batch.id, (b) => {
      if (firstRow === null && b.progress.finished > 0) firstRow = (performance.now() - started) / 1000;
    });
    const seconds = (performance.now() - started) / 1000;
    const result = {
      rowsPerSecond: done.rows / (seconds - (firstRow ?? 0)),
      seconds,
      answered: done.counts.byState.done,
      timeouts: count(server.stdout(), TIMEOUT),
      load: loadavg()[0],
    };
    console.error(JSON.stringify(result));
    return result;
  } finally {
    await server?.stop();
    await target.drop();
  }
}

function render(results, live) {
  const fmt = (n, digits = 0) =>
    n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  return [
    HEADING,
    '',
    `Written by \`node bench/run.mjs batches-pool\` (bench/batches-pool.mjs) on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores shared with PostgreSQL 15, the bench and other work (load average at the end of each run in the last column).`,
    '',
    '### Stored flights asked again, on a slow database',
    '',
    `One API process and two workers (\`serve --role api\` / \`worker\`), 32 batch lookups in flight per worker. A batch of ${fmt(ROWS)} delayed flights of the simulated world run once (answered live, stored), then asked again: every lookup of that second run is database work. ${OTHERS} batches of ${SMALL} rows of other accounts are submitted right after it, and each worker's \`/api/ready\` is asked every 250 ms meanwhile. ${STALL_MS > 0 ? `Once the workers answer their first rows, the database turns slow: a session of the bench holds the stored flights locked for ${fmt(STALL_MS / 1000, 1)} s (longer than the pool's 5-second connect timeout), as a long statement, a vacuum or a stalled disk would. ` : ''}Baseline: single lookups of the same stored flights over HTTP through the API process (50 connections, 10 s) in the same run, before the second batch. Rows a second are counted from the first row answered (a worker finds a batch submitted to the API process by looking every 5 s); the times are from the submission.`,
    '',
    '| Run | Batch rows/s | Single lookups/s | Ratio | First row after | Done after | Small batches done after | `/api/ready`: slowest, failed | Lookups tried more than once | Connect timeouts logged | Load |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.label} | ${fmt(r.rowsPerSecond)} | ${fmt(r.singlePerSecond)} | **${(r.rowsPerSecond / r.singlePerSecond).toFixed(2)} ×** | ${fmt(r.firstRow, 1)} s | ${fmt(r.seconds, 1)} s | ${fmt(r.smallMax, 1)} s | ${fmt(r.ready.maxMs)} ms, ${r.ready.failed} of ${r.ready.asked} | ${fmt(r.retried)} (most ${r.most} attempts) | ${fmt(r.timeouts)} | ${r.load.toFixed(1)} |`,
    ),
    '',
    '### Lookups waiting on a provider',
    '',
    `${fmt(LIVE_ROWS)} live lookups (on-time flights, never stored) with the simulated provider answering in ${LIVE_LATENCY_MS} ms, in one process (role \`all\`) on a pool of 10. A lookup waiting on the provider holds no connection, so only its statements wait in the batches' share (5 connections); capping whole lookups at the share instead is the last row.`,
    '',
    '| Run | Batch rows/s | Done after | Connect timeouts logged | Load |',
    '|---|---:|---:|---:|---:|',
    ...live.map(
      (r) =>
        `| ${r.label} | ${fmt(r.rowsPerSecond)} | ${fmt(r.seconds, 1)} s | ${fmt(r.timeouts)} | ${r.load.toFixed(1)} |`,
    ),
  ].join('\n');
}
