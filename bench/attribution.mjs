#!/usr/bin/env node
// How often the verdict's circumstances name the cause the simulated world really applied (issue 28):
// the service in-process on dist/ (run `npm run build` first) with SQLite, the world's 52 airports
// watched by one endpoint, the board poll run every two hours for the baseline week before and the
// measured week, then every passenger flight of the week 3 hours or more late, cancelled or diverted
// looked up through the HTTP API and its `circumstances` compared with the ground truth's
// `delayCause`. Also counts the provider calls per lookup, by kind.
//
//   node bench/attribution.mjs [from] [days]   measure, print, write the section into docs/performance.md
//                                              (without `from`: a winter week and a summer week)
//   node bench/run.mjs attribution             the same, through the bench entry point
//   ATTRIBUTION_DB=path                        keep the polled databases there (path, path.<from> for the
//                                              weeks after the first), and reuse them when they exist
//   BENCH_WRITE=0                              print only
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

/** The weeks measured by default: winter (snow, fog, the strikes of February) and summer (thunderstorms, air traffic control at its busiest). */
export const WEEKS = ['2026-02-09', '2026-07-13'];

export async function measureAttribution(from = WEEKS[0], days = 7, { noCost = false, database = process.env.ATTRIBUTION_DB, seed = 'flightstatus', watched: watching = true } = {}) {
  const { buildApp } = await dist('app.js');
  const { ManualClock } = await dist('clock.js');
  const { createLogger } = await dist('logger.js');
  const { loadCatalogue } = await dist('airports/index.js');
  const { loadConfig } = await dist('config.js');
  const { groundTruth } = await dist('sim/index.js');
  const { BoardPoller, createBoardStore } = await dist('boards/index.js');
  // ATTRIBUTION_DB=path keeps the polled database there and reuses it when it exists (to tune the
  // rules without polling again); by default a fresh database, dropped after.
  const kept = database;
  const { existsSync } = await import('node:fs');
  const reuse = kept !== undefined && existsSync(kept);
  const target = kept ? { database: { kind: 'sqlite', path: kept, url: `sqlite:${kept}` }, drop: async () => {} } : await sqliteTarget();
  const start = Date.parse(`${addDays(from, -8)}T00:00:00Z`);
  const end = Date.parse(`${addDays(from, days + 1)}T00:00:00Z`);
  const clock = new ManualClock(start);
  const config = {
    ...loadConfig({ LOG_LEVEL: 'silent', FLIGHTSTATUS_SIM_SEED: seed }),
    port: 0,
    database: target.database,
    adminToken: ADMIN,
    clock: { kind: 'manual', start: null },
    webhooks: { intervalMs: 365 * DAY, timeoutMs: 10_000, allowHttp: false, allowPrivate: false, secretKey: Buffer.alloc(32, 0xbe), concurrency: 64, perEndpoint: 8 },
  };
  const app = await buildApp({ config, clock, logger: createLogger('silent') });
  try {
    const watched = loadCatalogue().airports.map((a) => a.iata);
    const account = reuse ? { value: await app.accounts.find('attribution') } : await app.accounts.createAccount({ slug: 'attribution', unlimited: true });
    const key = (await app.accounts.createKey(account.value.id, 'bench')).value.key;
    // The service's own poll pass and board store, watching every catalogue airport; its events are
    // stored as a subscriber's would be, without the webhook deliveries this measure does not need.
    const quiet = { watchedAirports: async () => watched, publish: async () => {} };
    const poller = new BoardPoller({ store: createBoardStore(app.db, quiet), providers: app.providers, airports: (await dist('airports/index.js')).loadReferenceAirports(), logger: createLogger('silent'), providerTimeoutMs: 8000 });
    let t = performance.now();
    let passes = 0;
    // After the fact: a service started after the days it is asked about, which watched nothing.
    for (let at = start; at < end && !reuse && watching; at += POLL_MS) {
      clock.set(at);
      await poller.pass(at);
      passes++;
    }
    const pollSeconds = (performance.now() - t) / 1000;
    console.error(`attribution: ${passes} board passes in ${pollSeconds.toFixed(0)} s`);
    clock.set(end + 3 * DAY);

    const calls = async () => {
      const text = (await app.http.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN}` } })).body;
      const out = {};
      for (const m of text.matchAll(/^flightstatus_provider_calls_total\{([^}]*)\} (\d+)/gm)) {
        const kind = /kind="([^"]+)"/.exec(m[1])?.[1] ?? '?';
        out[kind] = (out[kind] ?? 0) + Number(m[2]);
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
        // refresh=1: resolved now, never a record stored by an earlier run.
        const query = new URLSearchParams({ flightNumber: truth.flightNumber, flightDate: truth.flightDate, origin: truth.origin, destination: truth.destination, refresh: '1' });
        const response = await app.http.inject({ method: 'GET', url: `/api/v1/flights/status?${query}`, headers: { authorization: `Bearer ${key}` } });
        const data = JSON.parse(response.body).data;
        const c = data?.circumstances ?? null;
        rows.push({ truth, got: c });
      }
    }
    const lookupSeconds = (performance.now() - t) / 1000;
    const after = await calls();
    const perLookup = Object.fromEntries(Object.entries(after).map(([kind, n]) => [kind, (n - (before[kind] ?? 0)) / rows.length]));
    const cost = noCost ? null : await measureCost(app, key, rows.map((r) => r.truth).slice(0, COST_LOOKUPS), { dist, config, clock, buildApp, createLogger });
    return { from, days, seed, watched: watching, passes, pollSeconds, lookupSeconds, rows, perLookup, cost };
  } finally {
    await app.close();
    await target.drop();
  }
}

/** Disrupted flights resolved live per round of the CPU measure, and the rounds. */
const COST_LOOKUPS = 200;
const COST_ROUNDS = 3;

/**
 * CPU per lookup of a disrupted flight through the API, with the circumstances (the service as it is)
 * and without (a second service on the same database and clock whose resolver gives none), in
 * alternating rounds: live (`refresh=1`: resolved again, stored again) and replayed.
 */
async function measureCost(app, key, flights, { dist, config, clock, buildApp, createLogger }) {
  const { FlightLookupService, ProofRenderer, createRecordStore } = await dist('flights/index.js');
  const { loadReferenceAirports } = await dist('airports/index.js');
  const { CircumstancesService } = await dist('circumstances/index.js');
  const { createBoardStore } = await dist('boards/index.js');
  const { SimWeatherProvider } = await dist('sim/index.js');
  const airports = loadReferenceAirports();
  const lookup = { providers: app.providers, clock, records: createRecordStore(app.db), logger: app.logger, providerTimeoutMs: 8000, proof: new ProofRenderer(airports), airports };
  const plain = await buildApp({ config, clock, logger: createLogger('silent'), resolver: new FlightLookupService(lookup) });
  // The service as it starts: its circumstances' kept counts and settled days empty (the world's own caches stay warm, as they are for the others).
  const started = () => {
    const boards = createBoardStore(app.db, { watchedAirports: async () => [], publish: async () => {} });
    const circumstances = new CircumstancesService({ providers: app.providers, weather: new SimWeatherProvider(app.sim, airports), boards, airports, timeoutMs: 8000, clock });
    return buildApp({ config, clock, logger: createLogger('silent'), resolver: new FlightLookupService({ ...lookup, circumstances }) });
  };
  try {
    const cpu = async (service, refresh) => {
      const start = process.cpuUsage();
      for (const f of flights) {
        const query = new URLSearchParams({ flightNumber: f.flightNumber, flightDate: f.flightDate, origin: f.origin, destination: f.destination, ...(refresh ? { refresh: '1' } : {}) });
        const response = await service.http.inject({ method: 'GET', url: `/api/v1/flights/status?${query}`, headers: { authorization: `Bearer ${key}` } });
        if (response.statusCode !== 200) throw new Error(`lookup answered ${response.statusCode}`);
      }
      const used = process.cpuUsage(start);
      return (used.user + used.system) / flights.length;
    };
    const runs = { with: [], without: [], cold: [], replayWith: [], replayWithout: [] };
    for (let round = 0; round < COST_ROUNDS; round++) {
      runs.with.push(await cpu(app, true));
      runs.without.push(await cpu(plain, true));
    }
    // Each stored body now is its service's own: with circumstances from the first, without from the second.
    await cpu(app, true);
    for (let round = 0; round < COST_ROUNDS; round++) runs.replayWith.push(await cpu(app, false));
    await cpu(plain, true);
    for (let round = 0; round < COST_ROUNDS; round++) runs.replayWithout.push(await cpu(plain, false));
    // Last: the started services' caches, dropped, would be collected during the other rounds.
    for (let round = 0; round < COST_ROUNDS; round++) {
      const fresh = await started();
      try {
        runs.cold.push(await cpu(fresh, true));
      } finally {
        await fresh.close();
      }
    }
    const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
    return { lookups: flights.length, withUs: median(runs.with), withoutUs: median(runs.without), coldUs: median(runs.cold), replayWithUs: median(runs.replayWith), replayWithoutUs: median(runs.replayWithout) };
  } finally {
    await plain.close();
  }
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

const us = (n) => `${Math.round(n).toLocaleString('en-US')} µs`;
const pct = (n, of) => `${((100 * n) / Math.max(1, of)).toFixed(1)} %`;

function matrixLines(s) {
  const kinds = KINDS.filter((k) => s.matrix[k] || Object.values(s.matrix).some((r) => r[k]));
  const cols = [...kinds, ...(Object.values(s.matrix).some((r) => r.missing) ? ['missing'] : [])];
  return [
    `| truth \\ verdict | ${cols.join(' | ')} | total |`,
    `|---|${cols.map(() => '---').join('|')}|---|`,
    ...Object.keys(s.matrix)
      .sort((a, b) => KINDS.indexOf(a) - KINDS.indexOf(b))
      .map((want) => {
        const row = s.matrix[want];
        const total = Object.values(row).reduce((a, b) => a + b, 0);
        return `| ${want} | ${cols.map((c) => (row[c] ? (c === want ? `**${row[c]}**` : String(row[c])) : '')).join(' | ')} | ${total} |`;
      }),
  ];
}

/** The section for docs/performance.md: `results`, one per week, the first with the CPU measure. */
export function renderAttribution(results) {
  const [first] = results;
  const summaries = results.map((r) => summarise(r));
  const polled = results.map((r) => (r.passes ? `${r.passes} passes in ${r.pollSeconds.toFixed(0)} s` : 'polled by an earlier run, whose database ATTRIBUTION_DB kept')).join('; ');
  const lines = [
    HEADING,
    '',
    `Written by \`node bench/run.mjs attribution\` (bench/attribution.mjs, 15 to 30 minutes by the machine) on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model.split(' ').slice(0, 2).join(' ')}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}. The service in one process on SQLite, the simulated world (seed \`flightstatus\`), the boards of the 52 catalogue airports read by the service's own poll pass (what an endpoint watching them all makes it do) every 2 hours from 8 days before each week (the boards' "usual" is the week before) to its end (${polled}); then every passenger flight of the week that arrived 3 hours or more late, was cancelled or diverted, resolved live through the API (\`refresh=1\`), its \`data.circumstances\` compared with the world's \`delayCause\`.`,
    '',
    `| measure | result | target (issue 28) |`,
    `|---|---|---|`,
    ...results.flatMap((r, k) => [
      `| causes right, week of ${r.from} | ${summaries[k].right} of ${summaries[k].total} (${pct(summaries[k].right, summaries[k].total)}) | ≥ 95 % |`,
      `| knock-on origin legs right, week of ${r.from} | ${summaries[k].knocksRight} of ${summaries[k].knocks} (${pct(summaries[k].knocksRight, summaries[k].knocks)}) | ≥ 95 % |`,
    ]),
    `| provider calls per lookup, week of ${first.from} | ${Object.entries(first.perLookup).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n.toFixed(2)}`).join(', ')} | counted |`,
    `| CPU per live lookup (\`refresh=1\`) of a disrupted flight, ${first.cost.lookups} flights | ${us(first.cost.withUs)} with circumstances, ${us(first.cost.withoutUs)} without: ${(first.cost.withUs / first.cost.withoutUs).toFixed(2)}× | ≤ 1.5× |`,
    `| the same, the first ${first.cost.lookups} lookups after a start (the circumstances' kept counts empty) | ${us(first.cost.coldUs)}: ${(first.cost.coldUs / first.cost.withoutUs).toFixed(2)}× | |`,
    `| CPU per replay of a stored disruption | ${us(first.cost.replayWithUs)} with circumstances, ${us(first.cost.replayWithoutUs)} without: ${(first.cost.replayWithUs / first.cost.replayWithoutUs).toFixed(2)}× | unchanged |`,
    ...results.flatMap((r, k) => ['', `Confusion matrix, week of ${r.from} (rows: the world's cause; columns: the verdict's):`, '', ...matrixLines(summaries[k])]),
    '',
  ];
  return { section: lines.join('\n'), summaries };
}

export async function runAttributionBench(from, days) {
  const weeks = from ? [from] : WEEKS;
  const kept = process.env.ATTRIBUTION_DB;
  const results = [];
  for (const [k, week] of weeks.entries()) {
    results.push(await measureAttribution(week, days, { noCost: k > 0, database: kept && k > 0 ? `${kept}.${week}` : kept }));
  }
  const { section, summaries } = renderAttribution(results);
  console.log(section);
  for (const [k, summary] of summaries.entries()) {
    for (const [kind, list] of Object.entries(summary.errors)) {
      console.error(`\n${results[k].from} ${kind}: ${list.length} wrong`);
      for (const { truth, got } of list.slice(0, 6)) {
        console.error(`  ${truth.flightNumber} ${truth.flightDate} ${truth.origin}-${truth.destination} ${truth.status} ${truth.arrivalDelayMinutes ?? ''} truth=${JSON.stringify(truth.delayCause)} got=${got?.cause} ${JSON.stringify(got?.originLeg)} | ${got?.reasons?.join(' ').slice(0, 300)}`);
      }
    }
  }
  if (process.env.BENCH_WRITE !== '0') writeSection(HEADING, section);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runAttributionBench(process.argv[2], process.argv[3] ? Number(process.argv[3]) : undefined);
}
