#!/usr/bin/env node
// npm run bench: load the real service (node dist/main.js serve) on loopback with autocannon and
// write docs/performance.md. Throughput is reported as a ratio to GET /api/health measured in the
// same round, because this machine is shared and noisy: absolute numbers move between runs, ratios
// much less. Scenarios are interleaved over several rounds and the median round is reported.
//
//   BENCH_DURATION=10   seconds measured per scenario and round (after a 3 s warm-up)
//   BENCH_ROUNDS=3      rounds (scenario order rotates each round)
//   BENCH_CONNECTIONS=50
//   BENCH_POSTGRES_URL  PostgreSQL server to bench too (default: TEST_DATABASE_URL, else
//                       postgres://127.0.0.1:5432/test when it answers; "off" to skip)
//
// The simulated flight world is measured too (bench/sim.mjs, in a process of its own) and written
// under "## Simulated world". `node bench/run.mjs sim` runs only that part (a few seconds) and
// replaces only that section of docs/performance.md; so do boards, webhooks, compression, providers,
// dashboard, invoicing, processes (1, 2 and 4 API processes on PostgreSQL), disk (a day's rows on
// PostgreSQL), batches (provider requests per 1,000 rows; rows a second beside single lookups),
// batches-pool (a batch of stored flights on a PostgreSQL pool: connect timeouts, retries, readiness), batches-observed
// (a batch answered from the boards' final observations, 30 days of boards: about 45 minutes) and attribution (the circumstances against the simulated world's causes:
// two seeds, four weeks across the seasons, watched and after the fact, one to two hours; `node bench/run.mjs attribution [--seeds a,b] [--weeks d1,d2]
// [--days N] [--modes watched,after]` takes bench/attribution.mjs's options). `node bench/run.mjs predictions` measures
// `flight.predicted_qualifying` against the simulated world's truth (bench/predictions.mjs: 52 airports, 2 days of passes,
// a few minutes) and writes "## Predictions"; `node bench/run.mjs followed-predictions` measures it for watched flights followed
// through the providers (bench/followed-predictions.mjs: every passenger departure of 2 days, seconds) and writes
// "## Predictions of followed flights". `node bench/run.mjs watches-load` measures the API's p99 with and without 10,000
// active watches and each watch event's way to a receiver (bench/watches-load.mjs: SQLite, then two processes on PostgreSQL,
// about 10 minutes) and writes "## Watches under load". `node bench/run.mjs http` runs the HTTP scenarios alone (BENCH_DATABASES=sqlite,postgres).
// `node bench/run.mjs cpu` prints the CPU each process spends per request (bench/cpu.mjs), writing nothing.
// `npm run bench -- smoke` runs every HTTP scenario, the webhook scenarios, both predictions and the watches under load at toy sizes on SQLite in
// seconds (bench/smoke.mjs; .ci/run runs it): it proves the bench runs, times nothing, writes only a temporary copy.
// Sections no part of a run measures are kept as they are.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureSimIsolated, renderSim, runSimBench, withSimSection } from './sim.mjs';
import { measureProofIsolated, renderProof, runProofBench } from './proof.mjs';
import { keepOtherSections, withSection } from './sections.mjs';
import { renderBoards, measureBoards, runBoardsBench } from './boards.mjs';
import { measureWebhooks, renderWebhooks, runWebhooksBench } from './webhooks.mjs';
import { runCompressionBench } from './compression.mjs';
import { measureProviders, renderProviders, runProvidersBench } from './providers.mjs';
import { measureDashboard, renderDashboard, runDashboardBench } from './dashboard.mjs';
import { runInvoicingBench } from './invoicing.mjs';
import { runDiskBench } from './disk.mjs';
import { runProcessesBench } from './processes.mjs';
import { runCpuBench } from './cpu.mjs';
import { runAttributionBench } from './attribution.mjs';
import { runBatchesBench } from './batches.mjs';
import { runBatchesObservedBench } from './batches-observed.mjs';
import { runBatchesPoolBench } from './batches-pool.mjs';
import { analysePredictions, measurePredictions, renderPredictions, runPredictionsBench } from './predictions.mjs';
import {
  analyseFollowedPredictions,
  measureFollowedPredictions,
  renderFollowedPredictions,
  runFollowedPredictionsBench,
} from './followed-predictions.mjs';
import { postgresTarget, sqliteTarget } from './targets.mjs';
import { measureWatchesLoad, renderWatchesLoad, runWatchesLoadBench } from './watches-load.mjs';
import { createBenchKey, loadTest, rssOf, serviceCli, startServer } from './server.mjs';
import { SMOKE, SMOKE_DOC, size } from './smoke.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DURATION = size(Number(process.env.BENCH_DURATION ?? 10), 1);
const WARMUP = size(3, 0.5);
const ROUNDS = size(Number(process.env.BENCH_ROUNDS ?? 3), 1);
const CONNECTIONS = size(Number(process.env.BENCH_CONNECTIONS ?? 50), 8);
/** `node bench/run.mjs http` only: which databases (BENCH_DATABASES=postgres). */
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,postgres').split(',');

const SCENARIOS = [
  { name: 'health', label: '`GET /api/health` (baseline)', path: '/api/health', auth: false, expect: 200 },
  {
    name: 'account',
    label: '`GET /api/v1/account` (auth + credit read)',
    path: '/api/v1/account',
    auth: true,
    expect: 200,
  },
  {
    name: 'metered',
    label: '`GET /api/v1/flights/status` failing validation (auth + credit + usage row + 400)',
    path: '/api/v1/flights/status?flightNumber=W63101&flightDate=2026-02-30',
    auth: true,
    expect: 400,
  },
  // Filled in per database by seedLookups(): a stored disruption, and many different flights.
  {
    name: 'replay',
    label: '`GET /api/v1/flights/status` replaying a stored disruption (`meta.cached`)',
    path: null,
    auth: true,
    expect: 200,
  },
  {
    name: 'live',
    label: '`GET /api/v1/flights/status` resolved live on the simulated world (500 different flights)',
    paths: null,
    auth: true,
    expect: 200,
  },
];

/** Flights of the simulated world to look up: a stored disruption to replay, and varied live lookups. */
function seedLookups(cli) {
  const now = Date.now();
  const day = (offset) => new Date(now + offset * 86_400_000).toISOString().slice(0, 10);
  // Ten days ago: settled and outside the three-day window, so the first lookup stores it.
  const delayed = cli('sim', 'flights', '--date', day(-10), '--status', 'delayed', '--operation', 'passenger')
    .flights[0];
  const replay = `/api/v1/flights/status?flightNumber=${delayed.flightNumber}&flightDate=${delayed.flightDate}&origin=${delayed.origin}`;
  // Live: on-time flights (never stored) of the last few days, each a different number.
  const live = [];
  const days = [
    [-1, 'OTP'],
    [-2, 'CDG'],
    [-4, 'MAD'],
    [-6, 'VIE'],
    [-8, 'WAW'],
  ];
  // Each list is a CLI run that computes the simulated world: a smoke run takes one.
  for (const [offset, airport] of size(days, days.slice(0, 1))) {
    const flights = cli(
      'sim',
      'flights',
      '--date',
      day(offset),
      '--airport',
      airport,
      '--status',
      'on_time',
      '--operation',
      'passenger',
    ).flights;
    for (const f of flights.slice(0, 100))
      live.push(`/api/v1/flights/status?flightNumber=${f.flightNumber}&flightDate=${f.flightDate}&origin=${f.origin}`);
  }
  return { replay, live };
}

/** `node bench/run.mjs NAME`: the benches that can run alone. */
const PARTS = {
  sim: runSimBench,
  proof: runProofBench,
  boards: runBoardsBench,
  webhooks: runWebhooksBench,
  compression: runCompressionBench,
  providers: runProvidersBench,
  dashboard: runDashboardBench,
  invoicing: runInvoicingBench,
  processes: runProcessesBench,
  disk: runDiskBench,
  cpu: runCpuBench,
  attribution: () => runAttributionBench(process.argv.slice(3)),
  batches: runBatchesBench,
  'batches-observed': runBatchesObservedBench,
  'batches-pool': runBatchesPoolBench,
  predictions: runPredictionsBench,
  'followed-predictions': runFollowedPredictionsBench,
  'watches-load': runWatchesLoadBench,
};

/**
 * `node bench/run.mjs smoke` (bench/smoke.mjs): the HTTP scenarios, the webhook scenarios, both predictions and the watches under load at toy
 * sizes on SQLite, written to a temporary copy of docs/performance.md; fails only if one does not run.
 */
async function smoke() {
  const started = performance.now();
  const http = render([await benchDatabase('SQLite (embedded, WAL)', sqliteTarget())]);
  const webhooks = renderWebhooks(await measureWebhooks());
  const measured = await measurePredictions();
  const predictions = renderPredictions(measured, analysePredictions(measured));
  const followed = await measureFollowedPredictions();
  const followedPredictions = renderFollowedPredictions(followed, analyseFollowedPredictions(followed));
  const watches = renderWatchesLoad(await measureWatchesLoad());
  let doc = withSection(withSection(http, '## Webhook delivery', webhooks), '## Predictions', predictions);
  doc = withSection(doc, '## Predictions of followed flights', followedPredictions);
  writeFileSync(SMOKE_DOC, withSection(doc, '## Watches under load', watches));
  console.error(
    `\nbench smoke: every scenario ran in ${((performance.now() - started) / 1000).toFixed(1)} s; written to ${SMOKE_DOC}`,
  );
}

async function main() {
  if (SMOKE) {
    await smoke();
    return;
  }
  // One part alone: it measures and rewrites only its own section of docs/performance.md.
  const part = PARTS[process.argv[2]];
  if (part) {
    await part();
    return;
  }
  if (process.argv[2] === 'http') {
    // The HTTP scenarios only: with both databases, their sections of docs/performance.md are
    // rewritten and the others kept; with BENCH_DATABASES naming one, printed only (a quick look).
    const results = [];
    for (const [name, makeTarget] of [
      ['SQLite (embedded, WAL)', async () => sqliteTarget()],
      ['PostgreSQL 15 (same machine)', () => postgresTarget()],
    ]) {
      if (!DATABASES.includes(name.startsWith('SQLite') ? 'sqlite' : 'postgres')) continue;
      const target = await makeTarget();
      if (target) results.push(await benchDatabase(name, target));
    }
    if (results.length === 2) {
      const doc = join(ROOT, 'docs/performance.md');
      writeFileSync(doc, keepOtherSections(readFileSync(doc, 'utf8'), render(results)));
    }
    return;
  }
  console.error('\n== Simulated world');
  const sim = renderSim(measureSimIsolated());
  console.error('\n== Proof image');
  const proof = renderProof(measureProofIsolated());
  const results = [];
  results.push(await benchDatabase('SQLite (embedded, WAL)', sqliteTarget()));
  const postgres = await postgresTarget();
  if (postgres) results.push(await benchDatabase('PostgreSQL 15 (same machine)', postgres));
  console.error('\n== Board poll');
  const boards = renderBoards(await measureBoards());
  console.error('\n== Webhook delivery');
  const webhooks = renderWebhooks(await measureWebhooks());
  console.error('\n== Flight data providers');
  const providers = renderProviders(await measureProviders());
  console.error('\n== Dashboard');
  const dashboard = renderDashboard(await measureDashboard());
  const markdown = withSection(
    withSection(
      withSection(
        withSection(
          withSection(withSimSection(render(results), sim), '## Proof image', proof),
          '## Board poll',
          boards,
        ),
        '## Webhook delivery',
        webhooks,
      ),
      '## Flight data providers',
      providers,
    ),
    '## Dashboard',
    dashboard,
  );
  writeFileSync(
    join(ROOT, 'docs/performance.md'),
    keepOtherSections(readFileSync(join(ROOT, 'docs/performance.md'), 'utf8'), markdown),
  );
  process.stdout.write(`\n${markdown}`);
}

async function benchDatabase(title, target) {
  console.error(`\n== ${title}`);
  const env = { ...process.env, DATABASE_URL: target.url, PORT: '0', LOG_LEVEL: 'warn', FLIGHTSTATUS_ADMIN_TOKEN: '' };
  const cli = serviceCli(env);
  const key = createBenchKey(cli);
  const lookups = seedLookups(cli);
  const scenarios = SCENARIOS.map((s) =>
    s.name === 'replay' ? { ...s, path: lookups.replay } : s.name === 'live' ? { ...s, paths: lookups.live } : s,
  );

  const server = await startServer(env);
  const rounds = [];
  try {
    // Store the disruption, and check that the next lookup replays it.
    await fetch(server.url + lookups.replay, { headers: { authorization: `Bearer ${key}` } });
    const replayed = await (
      await fetch(server.url + lookups.replay, { headers: { authorization: `Bearer ${key}` } })
    ).json();
    if (!replayed.data?.meta?.cached)
      throw new Error(`the replay scenario does not replay: ${JSON.stringify(replayed).slice(0, 300)}`);
    for (let round = 0; round < ROUNDS; round++) {
      const order = scenarios.map((_, i) => scenarios[(i + round) % scenarios.length]);
      const measured = {};
      for (const scenario of order) {
        measured[scenario.name] = await load(server, scenario, key);
        const m = measured[scenario.name];
        console.error(
          `round ${round + 1} ${scenario.name.padEnd(8)} ${Math.round(m.rps)} req/s p50 ${m.p50} ms p99 ${m.p99} ms rss ${m.rssMb} MB`,
        );
      }
      rounds.push(measured);
    }
    // Exactness after the storm: every acknowledged metered request has its credit and its usage row.
    const account = cli('accounts', 'get', 'bench');
    const usage = cli('accounts', 'usage', 'bench', '--days', '2');
    const logged = usage.days.reduce((sum, day) => sum + day.requests, 0);
    const answered = rounds.reduce((sum, r) => sum + r.metered.answered + r.replay.answered + r.live.answered, 0);
    return { title, rounds, check: { credits: account.credits.used, logged, answered } };
  } finally {
    await server.stop();
    await target.drop();
  }
}

async function load(server, scenario, key) {
  const headers = scenario.auth ? { authorization: `Bearer ${key}` } : {};
  const options = { url: server.url + (scenario.path ?? '/'), connections: CONNECTIONS, headers };
  if (scenario.paths) {
    // Every request a different flight, round robin over the list.
    let next = 0;
    options.requests = [
      { setupRequest: (request) => ({ ...request, path: scenario.paths[next++ % scenario.paths.length] }) },
    ];
  }
  await loadTest({ ...options, duration: WARMUP });
  let rss = 0;
  const sampler = setInterval(() => (rss = Math.max(rss, rssOf(server.pid))), 250);
  const result = await loadTest({ ...options, duration: DURATION });
  clearInterval(sampler);
  const expected = scenario.expect === 200 ? result['2xx'] : result['4xx'];
  const unexpected =
    result['1xx'] +
    result['2xx'] +
    result['3xx'] +
    result['4xx'] +
    result['5xx'] -
    expected +
    result.errors +
    result.timeouts;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    rssMb: Math.round(rss / 1024),
    answered: expected,
    unexpected,
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function render(results) {
  const lines = [
    '# Performance',
    '',
    `Written by \`npm run bench\` (bench/run.mjs) on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model.trim()}, ` +
      `${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}. The service runs as its own process (\`node dist/main.js serve\`, ` +
      `LOG_LEVEL=warn) on loopback; autocannon drives it from this process with ${CONNECTIONS} connections, ${WARMUP} s warm-up, ` +
      `${DURATION} s measured, ${ROUNDS} rounds with the scenario order rotated. The two share the machine's cores.`,
    '',
    'Throughput is given as a ratio to `GET /api/health` measured in the same round (the machine is shared and noisy; ratios are the figures to compare). ' +
      "Each cell is the median over rounds; latencies are autocannon's, in whole milliseconds.",
    '',
  ];
  for (const { title, rounds, check } of results) {
    lines.push(
      `## ${title}`,
      '',
      '| scenario | req/s | ratio to health | p50 ms | p99 ms | unexpected responses | server RSS max MB |',
      '|---|---|---|---|---|---|---|',
    );
    for (const scenario of SCENARIOS) {
      const cells = rounds.map((r) => r[scenario.name]);
      const ratios = rounds.map((r) => r[scenario.name].rps / r.health.rps);
      lines.push(
        `| ${scenario.label} | ${Math.round(median(cells.map((c) => c.rps))).toLocaleString('en')} | ${median(ratios).toFixed(2)} | ` +
          `${median(cells.map((c) => c.p50))} | ${median(cells.map((c) => c.p99))} | ${cells.reduce((s, c) => s + c.unexpected, 0)} | ` +
          `${Math.max(...cells.map((c) => c.rssMb))} |`,
      );
    }
    lines.push(
      '',
      `After the run: ${check.answered.toLocaleString('en')} metered requests answered as expected, ${check.credits.toLocaleString('en')} credits taken, ` +
        `${check.logged.toLocaleString('en')} usage rows (warm-up requests included in the last two).`,
      '',
    );
  }
  const sqlite = results[0];
  const ratio = median(sqlite.rounds.map((r) => r.metered.rps / r.health.rps));
  const p99 = median(sqlite.rounds.map((r) => r.metered.p99));
  const replayRatio = median(sqlite.rounds.map((r) => r.replay.rps / r.health.rps));
  const replayP99 = median(sqlite.rounds.map((r) => r.replay.p99));
  const liveRps = median(sqlite.rounds.map((r) => r.live.rps));
  const postgres = results.find((r) => r.title.startsWith('PostgreSQL'));
  const pgRatio = (name, target = 0.5) => {
    if (!postgres) return 'not measured';
    const ratio = median(postgres.rounds.map((r) => r[name].rps / r.health.rps));
    return `${ratio.toFixed(2)} (${ratio >= target ? 'met' : 'NOT met'})`;
  };
  const rssMax = Math.max(
    ...results.flatMap((r) => r.rounds.flatMap((round) => Object.values(round).map((c) => c.rssMb))),
  );
  lines.push(
    '## Reading the numbers',
    '',
    `- Target (issue 2): on SQLite the metered request keeps at least half of the health route's throughput with p99 under 10 ms. ` +
      `This run: ratio ${ratio.toFixed(2)} (${ratio >= 0.5 ? 'met' : 'NOT met'}), p99 ${p99} ms (${p99 < 10 ? 'met' : 'NOT met'}).`,
    `- Targets (issue 4), on SQLite: a replayed lookup keeps at least half of the health route's throughput with p99 under 25 ms at ` +
      `${CONNECTIONS} connections: ratio ${replayRatio.toFixed(2)} (${replayRatio >= 0.5 ? 'met' : 'NOT met'}), p99 ${replayP99} ms ` +
      `(${replayP99 < 25 ? 'met' : 'NOT met'}); a live lookup on the simulated world sustains at least 2,000 lookups/s: ` +
      `${Math.round(liveRps).toLocaleString('en')}/s (${liveRps >= 2000 ? 'met' : 'NOT met'}); a proof image renders in 30 ms or less: see "Proof image" below.`,
    '- A replay is the metered path plus one read of the record store by primary key (a statement prepared once on SQLite, a ' +
      'named statement on PostgreSQL) and the stored JSON sent back. A live lookup asks the simulated world through the provider ' +
      "interface (its days stay in the world's LRU after the first lookup of each), merges, classifies and writes nothing: the " +
      '500 flights of the scenario are on time, which are never stored.',
    '- On SQLite a metered request is one item of the group transaction for its admission (key lookup, verdict, guarded ' +
      'credit upsert) and one for its usage row; everything queued in one turn of the event loop commits together, and the ' +
      'response leaves only after the commit holding its usage row (docs/metering.md). WAL checkpoints run on a worker ' +
      'thread, off the request path. What is left is HTTP parsing and writing, JSON, and the 400 path through the error handler.',
    '- Latency follows from throughput here: with 50 connections always busy, the mean latency is 50 / throughput ' +
      "(Little's law), so p99 moves with the machine's speed as much as with the code. Compare ratios, not milliseconds.",
    '- On PostgreSQL each request waits for round trips to a server that shares the same two cores. The reads of one turn ' +
      'of the event loop share a statement (key lookups, credit reads, lifetime counts), and so do its credit grants per ' +
      'account window (with their usage rows) and its settlements; a metered request whose key the process admitted before ' +
      'waits for two in a row: its credit (which checks the key and account it was judged on) and its settlement before ' +
      'the answer leaves. All bench requests use one account, so its credit row is a hot spot every grant updates. See ' +
      '"Where the time goes on PostgreSQL" below.',
    `- Targets (issue 15), on PostgreSQL: account ≥ 0.5 of health: ${pgRatio('account')}; metered ≥ 0.4: ${pgRatio('metered', 0.4)}; ` +
      `replay ≥ 0.4: ${pgRatio('replay', 0.4)}. Service RSS ≤ 200 MB in every scenario on both databases: ${rssMax} MB at most (${rssMax <= 200 ? 'met' : 'NOT met'}; ` +
      'the service runs with `npm start`\'s heap options, see "Memory").',
    '',
  );
  return `${lines.join('\n')}\n`;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
