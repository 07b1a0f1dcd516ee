#!/usr/bin/env node
// How often the verdict's circumstances name the cause the simulated world really applied (issue 28):
// the service in-process on dist/ (run `npm run build` first) with SQLite, the world's 52 airports
// watched by one endpoint, the board poll run every two hours for the baseline week before and the
// measured week, then every passenger flight of the week 3 hours or more late, cancelled or diverted
// looked up through the HTTP API and its `circumstances` compared with the ground truth's
// `delayCause`. Also counts the provider calls per lookup, by kind.
//
//   node bench/attribution.mjs [from] [days]   measure, print, write the section into docs/performance.md
//   node bench/run.mjs attribution             the same, through the bench entry point
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeSection } from './sections.mjs';
import { sqliteTarget } from './targets.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HEADING = '## Circumstances';
const POLL_MS = 2 * 3_600_000;
const DAY = 86_400_000;
const ADMIN = 'attribution-bench-admin-token';
const dist = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);

const addDays = (date, n) => new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);

export async function measureAttribution(from = '2026-02-09', days = 7) {
  const { buildApp } = await dist('app.js');
  const { ManualClock } = await dist('clock.js');
  const { createLogger } = await dist('logger.js');
  const { loadCatalogue } = await dist('airports/index.js');
  const { loadConfig } = await dist('config.js');
  const { groundTruth } = await dist('sim/index.js');
  const { BoardPoller, createBoardStore } = await dist('boards/index.js');
  const target = await sqliteTarget();
  const start = Date.parse(`${addDays(from, -8)}T00:00:00Z`);
  const end = Date.parse(`${addDays(from, days + 1)}T00:00:00Z`);
  const clock = new ManualClock(start);
  const config = {
    ...loadConfig({ LOG_LEVEL: 'silent' }),
    port: 0,
    database: target.database,
    adminToken: ADMIN,
    clock: { kind: 'manual', start: null },
    webhooks: { intervalMs: 365 * DAY, timeoutMs: 10_000, allowHttp: false, allowPrivate: false, secretKey: Buffer.alloc(32, 0xbe), concurrency: 64, perEndpoint: 8 },
  };
  const app = await buildApp({ config, clock, logger: createLogger('silent') });
  try {
    const watched = loadCatalogue().airports.map((a) => a.iata);
    const account = await app.accounts.createAccount({ slug: 'attribution', unlimited: true });
    const key = (await app.accounts.createKey(account.value.id, 'bench')).value.key;
    // The service's own poll pass and board store, watching every catalogue airport; its events are
    // stored as a subscriber's would be, without the webhook deliveries this measure does not need.
    const quiet = { watchedAirports: async () => watched, publish: async () => {} };
    const poller = new BoardPoller({ store: createBoardStore(app.db, quiet), providers: app.providers, airports: (await dist('airports/index.js')).loadReferenceAirports(), logger: createLogger('silent'), providerTimeoutMs: 8000 });
    let t = performance.now();
    let passes = 0;
    for (let at = start; at < end; at += POLL_MS) {
      clock.set(at);
      await poller.pass(at);
      passes++;
    }
    const pollSeconds = (performance.now() - t) / 1000;
    console.error(`attribution: ${passes} board passes in ${pollSeconds.toFixed(0)} s`);
    clock.set(end + 3 * DAY);

    const calls = async () => {
      const text = (await app.http.inject({ method: 'GET', url: '/api/admin/v1/metrics', headers: { authorization: `Bearer ${ADMIN}` } })).body;
      const out = {};
      for (const m of text.matchAll(/^flightstatus_provider_calls_total\{provider="([^"]+)",kind="([^"]+)",outcome="([^"]+)"\} (\d+)/gm)) {
        out[m[2]] = (out[m[2]] ?? 0) + Number(m[4]);
      }
      return out;
    };
    const before = await calls();
    const rows = [];
    t = performance.now();
    for (let d = 0; d < days; d++) {
      const date = addDays(from, d);
      for (const truth of groundTruth(app.sim, date)) {
        if (truth.operation !== 'passenger') continue;
        const disrupted = truth.status === 'cancelled' || truth.status === 'diverted' || (truth.arrivalDelayMinutes ?? 0) >= 180;
        if (!disrupted) continue;
        const query = new URLSearchParams({ flightNumber: truth.flightNumber, flightDate: truth.flightDate, origin: truth.origin, destination: truth.destination });
        const response = await app.http.inject({ method: 'GET', url: `/api/v1/flights/status?${query}`, headers: { authorization: `Bearer ${key}` } });
        const data = JSON.parse(response.body).data;
        const c = data?.circumstances ?? null;
        rows.push({ truth, got: c });
      }
    }
    const lookupSeconds = (performance.now() - t) / 1000;
    const after = await calls();
    const perLookup = Object.fromEntries(Object.entries(after).map(([kind, n]) => [kind, (n - (before[kind] ?? 0)) / rows.length]));
    const cost = await measureCost(app, key, rows.map((r) => r.truth).slice(0, COST_LOOKUPS), { dist, config, clock, createLogger });
    return { from, days, passes, pollSeconds, lookupSeconds, rows, perLookup, cost };
  } finally {
    await app.close();
    await target.drop();
  }
}

/** Disrupted flights resolved live per round of the CPU measure, and the rounds. */
const COST_LOOKUPS = 200;
const COST_ROUNDS = 3;

/**
 * CPU per live lookup of a disrupted flight (`refresh=1`: resolved, not replayed) with and without the
 * circumstances, in the same process on the same database, alternating rounds; and per replay.
 */
async function measureCost(app, key, flights, { dist }) {
  const { FlightLookupService, ProofRenderer, createRecordStore } = await dist('flights/index.js');
  const { loadReferenceAirports } = await dist('airports/index.js');
  const airports = loadReferenceAirports();
  const plain = new FlightLookupService({ providers: app.providers, clock: app.clock, records: createRecordStore(app.db), logger: app.logger, providerTimeoutMs: 8000, proof: new ProofRenderer(airports), airports });
  const signal = new AbortController().signal;
  const queries = flights.map((f) => ({ flightNumber: f.flightNumber, designator: f.flightNumber, flightDate: f.flightDate, origin: f.origin, destination: f.destination, refresh: true, screenshot: false }));
  const cpu = async (run) => {
    const start = process.cpuUsage();
    for (const q of queries) await run(q);
    const used = process.cpuUsage(start);
    return (used.user + used.system) / queries.length;
  };
  const live = { with: [], without: [] };
  for (let round = 0; round < COST_ROUNDS; round++) {
    live.with.push(await cpu((q) => app.http.inject({ method: 'GET', url: `/api/v1/flights/status?${new URLSearchParams({ flightNumber: q.flightNumber, flightDate: q.flightDate, origin: q.origin, destination: q.destination, refresh: '1' })}`, headers: { authorization: `Bearer ${key}` } })));
    live.without.push(await cpu((q) => plain.resolve(q, { signal })));
  }
  // The route's own cost (auth, metering, serialising) is in the first and not the second: measured apart.
  const route = [];
  for (let round = 0; round < COST_ROUNDS; round++) route.push(await cpu((q) => app.http.inject({ method: 'GET', url: '/api/v1/account', headers: { authorization: `Bearer ${key}` } })));
  const replay = [];
  for (let round = 0; round < COST_ROUNDS; round++) {
    replay.push(await cpu((q) => app.http.inject({ method: 'GET', url: `/api/v1/flights/status?${new URLSearchParams({ flightNumber: q.flightNumber, flightDate: q.flightDate, origin: q.origin, destination: q.destination })}`, headers: { authorization: `Bearer ${key}` } })));
  }
  const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  return { lookups: queries.length, withUs: median(live.with), withoutUs: median(live.without), routeUs: median(route), replayUs: median(replay) };
}

const KINDS = ['weather', 'atc', 'airport', 'technical', 'crew', 'airline_strike', 'third_party_strike', 'knock_on', 'none', 'unknown'];

export function summarise({ rows }) {
  const matrix = {};
  let right = 0;
  let knocks = 0;
  let knocksRight = 0;
  const errors = {};
  for (const { truth, got } of rows) {
    const want = truth.delayCause.kind;
    const said = got?.cause ?? 'missing';
    matrix[want] ??= {};
    matrix[want][said] = (matrix[want][said] ?? 0) + 1;
    if (want === said) right++;
    else (errors[want] ??= []).push({ truth, got });
    if (want === 'knock_on') {
      knocks++;
      const o = got?.originLeg;
      const w = truth.delayCause.originLeg;
      if (said === 'knock_on' && o && w && o.flightNumber === w.flightNumber && o.flightDate === w.flightDate) knocksRight++;
    }
  }
  return { total: rows.length, right, knocks, knocksRight, matrix, errors };
}

export function renderAttribution(result) {
  const s = summarise(result);
  const pct = (n, of) => `${((100 * n) / Math.max(1, of)).toFixed(1)} %`;
  const kinds = KINDS.filter((k) => s.matrix[k] || Object.values(s.matrix).some((r) => r[k]));
  const cols = [...kinds, ...(Object.values(s.matrix).some((r) => r.missing) ? ['missing'] : [])];
  const lines = [
    HEADING,
    '',
    `Written by \`node bench/run.mjs attribution\` (bench/attribution.mjs) on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model.split(' ').slice(0, 2).join(' ')}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}. The service in one process on SQLite, the simulated world (seed \`flightstatus\`), one endpoint watching the 52 catalogue airports, the board poll every 2 hours from 8 days before the week (the boards' "usual" is the week before) to its end (${result.passes} passes, ${result.pollSeconds.toFixed(0)} s); then every passenger flight of the week ${result.from} + ${result.days} days that arrived 3 hours or more late, was cancelled or diverted, looked up through the API (${result.lookupSeconds.toFixed(0)} s), its \`data.circumstances\` compared with the world's \`delayCause\`.`,
    '',
    `| measure | result | target (issue 28) |`,
    `|---|---|---|`,
    `| causes right | ${s.right} of ${s.total} (${pct(s.right, s.total)}) | ≥ 95 % |`,
    `| knock-on origin legs right | ${s.knocksRight} of ${s.knocks} (${pct(s.knocksRight, s.knocks)}) | ≥ 95 % |`,
    `| provider calls per lookup | ${Object.entries(result.perLookup).map(([k, n]) => `${k} ${n.toFixed(2)}`).join(', ')} | counted |`,
    '',
    'Confusion matrix (rows: the world\'s cause; columns: the verdict\'s):',
    '',
    `| truth \\ verdict | ${cols.join(' | ')} | total |`,
    `|---|${cols.map(() => '---').join('|')}|---|`,
    ...Object.keys(s.matrix)
      .sort((a, b) => KINDS.indexOf(a) - KINDS.indexOf(b))
      .map((want) => {
        const row = s.matrix[want];
        const total = Object.values(row).reduce((a, b) => a + b, 0);
        return `| ${want} | ${cols.map((c) => (row[c] ? (c === want ? `**${row[c]}**` : String(row[c])) : '')).join(' | ')} | ${total} |`;
      }),
    '',
  ];
  return { section: lines.join('\n'), summary: s };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await measureAttribution(process.argv[2], process.argv[3] ? Number(process.argv[3]) : undefined);
  const { section, summary } = renderAttribution(result);
  console.log(section);
  for (const [kind, list] of Object.entries(summary.errors)) {
    console.error(`\n${kind}: ${list.length} wrong`);
    for (const { truth, got } of list.slice(0, 6)) {
      console.error(`  ${truth.flightNumber} ${truth.flightDate} ${truth.origin}-${truth.destination} ${truth.status} ${truth.arrivalDelayMinutes ?? ''} truth=${JSON.stringify(truth.delayCause)} got=${got?.cause} ${JSON.stringify(got?.originLeg)} | ${got?.reasons?.join(' ').slice(0, 300)}`);
    }
  }
  if (process.env.BENCH_WRITE !== '0') writeSection(HEADING, section);
}
