#!/usr/bin/env node
// The simulated flight world's costs, measured in-process on dist/ (run `npm run build` first):
// a season's timetable, one owner airport's day generated cold, every catalogue board at one moment
// (cold, then warm as a 30-minute poller sees it) and the heap once the day LRU is full. Every figure
// is also given as a multiple of a CPU baseline (a JSON round trip of a fixed ~1 MB object) measured
// in the same process between the sections, because this machine is shared and noisy.
//
//   node bench/sim.mjs          measure, print the section and write it into docs/performance.md
//   node bench/run.mjs sim      the same, through the bench entry point
//   node bench/sim.mjs --json   measure and print the raw results as JSON (used by bench/run.mjs)
//
//   BENCH_SIM_SEED=flightstatus  BENCH_SIM_DATE=2026-11-20  BENCH_SIM_ROUNDS=5
import { spawnSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { withSection, writeSection } from './sections.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HEADING = '## Simulated world';
const SEED = process.env.BENCH_SIM_SEED ?? 'flightstatus';
const DATE = process.env.BENCH_SIM_DATE ?? '2026-11-20';
const ROUNDS = Number(process.env.BENCH_SIM_ROUNDS ?? 5);
const TIMETABLE_ROUNDS = 3;
const DAY_DATES = 7; // one week of distinct dates, every weekday once
const MEMORY_DAYS = 30;
const LARGEST = 'CDG';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export const TARGETS = { dayMs: 5, boardsMs: 50 };

const addDays = (date, days) => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const mb = (bytes) => bytes / 2 ** 20;
const collect = () => {
  for (let i = 0; i < 3; i++) globalThis.gc?.();
};

/** A fixed ~1 MB object, parsed and serialised again: the CPU yardstick. */
export function baselineFixture() {
  const rows = [];
  for (let i = 0; i < 6000; i++) {
    rows.push({
      id: i,
      flight: `W6${1000 + (i % 9000)}`,
      from: ['OTP', 'CDG', 'BCN', 'LGW'][i % 4],
      to: ['WAW', 'FCO', 'MAD', 'VIE'][(i * 7) % 4],
      scheduled: 1_795_000_000_000 + i * 60_000,
      delayMinutes: (i * 37) % 181,
      cancelled: i % 53 === 0,
      status: ['Scheduled', 'Departed', 'Landed', 'Delayed'][i % 4],
      codeshares: i % 3 === 0 ? ['AF1234', 'KL5678'] : [],
    });
  }
  return JSON.stringify({ rows });
}

export async function measureSim() {
  const { createSimWorld, DEFAULT_CACHED_DAYS } = await import(pathToFileURL(join(ROOT, 'dist/sim/index.js')).href);
  const fixture = baselineFixture();
  const baselineSamples = [];
  const baseline = (reps = 5) => {
    for (let i = 0; i < reps; i++) {
      const t = performance.now();
      JSON.stringify(JSON.parse(fixture));
      baselineSamples.push(performance.now() - t);
    }
  };
  const time = (fn) => {
    const t = performance.now();
    const value = fn();
    return [performance.now() - t, value];
  };
  const log = (text) => console.error(`sim: ${text}`);

  baseline(10); // the first few are the JIT's; all samples count, the median shrugs them off

  // 1. One season's timetable, fresh worlds (the reference data is loaded once per process).
  const [createMs] = time(() => createSimWorld(SEED));
  const timetableMs = [];
  for (let i = 0; i < TIMETABLE_ROUNDS; i++) {
    const world = createSimWorld(SEED);
    const [ms, timetable] = time(() => world.timetable(DATE));
    timetableMs.push(ms);
    log(`timetable ${timetable.season} ${ms.toFixed(1)} ms (${timetable.legCount ?? '?'} legs)`);
  }
  baseline();

  // 2. One airport-day, cold: every catalogue airport on distinct dates, one world whose timetable is
  // built beforehand. A throw-away pass on an earlier date warms the JIT first; its slowest day is
  // reported as the first generation in a fresh process.
  let world = createSimWorld(SEED);
  world.timetable(DATE);
  const airports = world.catalogue;
  let firstMs = 0;
  for (const airport of airports)
    firstMs = Math.max(firstMs, time(() => world.ownerDay(airport, addDays(DATE, -7)).legs)[0]);
  const dayMs = [];
  const largestMs = [];
  const legs = new Map();
  for (let d = 0; d < DAY_DATES; d++) {
    const date = addDays(DATE, d);
    for (const airport of airports) {
      const [ms, day] = time(() => world.ownerDay(airport, date).legs);
      dayMs.push(ms);
      if (airport === LARGEST) largestMs.push(ms);
      legs.set(airport, Math.max(legs.get(airport) ?? 0, day.length));
    }
  }
  const [busiest, busiestLegs] = [...legs].sort((a, b) => b[1] - a[1])[0];
  log(`airport-day median ${median(dayMs).toFixed(2)} ms, ${LARGEST} median ${median(largestMs).toFixed(2)} ms`);
  world = undefined; // its days would count in the memory section's heap
  baseline();

  // 3. Every board (departures and arrivals of all 52 airports) at one moment, window [at-6h, at+18h):
  // cold in a fresh world whose timetable is built, then warm 30 minutes later as a poller would ask.
  const at = Date.parse(`${DATE}T10:00:00Z`);
  const allBoards = (w, moment) => {
    let rows = 0;
    for (const airport of w.catalogue) {
      for (const kind of ['departures', 'arrivals'])
        rows += w.board(airport, kind, moment - 6 * HOUR, moment + 18 * HOUR, moment).length;
    }
    return rows;
  };
  const coldMs = [];
  const warmMs = [];
  let boardRows = 0;
  let daysPerBoardPass = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const fresh = createSimWorld(SEED);
    fresh.timetable(DATE);
    const [cold, rows] = time(() => allBoards(fresh, at));
    const generated = fresh.days?.size ?? NaN;
    const [warm] = time(() => allBoards(fresh, at + 30 * 60_000));
    coldMs.push(cold);
    warmMs.push(warm);
    boardRows = rows;
    daysPerBoardPass = generated;
    log(
      `boards round ${round + 1}: cold ${cold.toFixed(1)} ms, warm ${warm.toFixed(1)} ms (${rows} rows, ${generated} airport-days)`,
    );
  }
  baseline();

  // 4. Memory: 30 days × 52 airports generated in one world; the day LRU keeps the newest entries.
  collect();
  const memWorld = createSimWorld(SEED);
  memWorld.timetable(DATE);
  collect();
  const heapBefore = process.memoryUsage().heapUsed;
  const heapAt = [];
  for (let d = 0; d < MEMORY_DAYS; d++) {
    for (const airport of airports) void memWorld.ownerDay(airport, addDays(DATE, d)).legs;
    if (d === Math.ceil(DEFAULT_CACHED_DAYS / airports.length) || d === MEMORY_DAYS - 1) {
      collect();
      heapAt.push({
        days: d + 1,
        generated: (d + 1) * airports.length,
        cached: memWorld.days?.size ?? NaN,
        heapMb: mb(process.memoryUsage().heapUsed),
      });
    }
  }
  const memory = process.memoryUsage();
  log(`heap ${mb(memory.heapUsed).toFixed(0)} MB, rss ${mb(memory.rss).toFixed(0)} MB`);
  baseline();

  return {
    date: new Date().toISOString().slice(0, 10),
    machine: `${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    gc: typeof globalThis.gc === 'function',
    seed: SEED,
    simDate: DATE,
    rounds: ROUNDS,
    baselineMs: median(baselineSamples),
    baselineSamples: baselineSamples.length,
    fixtureMb: mb(Buffer.byteLength(fixture)),
    createMs,
    timetableMs,
    firstDayMs: firstMs,
    dayMs,
    largestMs,
    busiest,
    busiestLegs,
    largestLegs: legs.get(LARGEST),
    airports: airports.length,
    dayDates: DAY_DATES,
    at: new Date(at).toISOString(),
    coldMs,
    warmMs,
    boardRows,
    daysPerBoardPass,
    memory: {
      days: MEMORY_DAYS,
      cachedDays: DEFAULT_CACHED_DAYS,
      heapBeforeMb: mb(heapBefore),
      heapAt,
      heapUsedMb: mb(memory.heapUsed),
      rssMb: mb(memory.rss),
    },
  };
}

/** Measure in a child process of its own (a clean heap, the gc exposed) and return the results. */
export function measureSimIsolated() {
  const child = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--json'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 2 ** 20,
  });
  if (child.status !== 0) throw new Error(`bench/sim.mjs exited with ${child.status ?? child.signal}`);
  return JSON.parse(child.stdout.toString());
}

export function renderSim(r) {
  const b = r.baselineMs;
  const ms = (value) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
  const x = (value) => `${(value / b).toFixed(value < b ? 2 : 1)}×`;
  const verdict = (value, target) => (value <= target ? 'met' : '**NOT met**');
  const row = (label, value, target, note = '') =>
    `| ${label} | ${target === undefined ? '—' : `≤ ${target} ms`} | ${ms(value)} | ${x(value)} | ${target === undefined ? note || '—' : verdict(value, target)} |`;
  const day = {
    median: median(r.dayMs),
    p95: percentile(r.dayMs, 95),
    max: Math.max(...r.dayMs),
    largestMedian: median(r.largestMs),
    largestMax: Math.max(...r.largestMs),
  };
  const cold = median(r.coldMs);
  const warm = median(r.warmMs);
  const m = r.memory;
  const full = m.heapAt[0];
  const last = m.heapAt[m.heapAt.length - 1];
  const boards = r.airports * 2;
  const growth = last.heapMb - full.heapMb;
  const lines = [
    HEADING,
    '',
    `Written by \`npm run bench\` (or \`node bench/run.mjs sim\` alone; bench/sim.mjs) on ${r.date}: ${r.machine}. ` +
      `Measured in one Node process of its own (\`--expose-gc\`) on \`dist/sim\`, seed \`${r.seed}\`, ` +
      `around ${r.simDate} (IATA winter season). Milliseconds of wall time, single-threaded.`,
    '',
    `The machine is shared and noisy, so every figure is also given as a multiple of a CPU baseline measured in the same ` +
      `process between the sections: \`JSON.stringify(JSON.parse(…))\` of a fixed ${r.fixtureMb.toFixed(1)} MB object, ` +
      `median of ${r.baselineSamples} runs = ${ms(b)} ms. Compare the multiples between runs, not the milliseconds.`,
    '',
    '| measure | target (issue) | ms | × baseline | target met |',
    '|---|---|---|---|---|',
    row(
      `Timetable of one season (fresh world, median of ${r.timetableMs.length})`,
      median(r.timetableMs),
      undefined,
      'once per season, cached',
    ),
    row(
      `One airport-day, cold: median over ${r.airports} airports × ${r.dayDates} dates (${r.dayMs.length} days)`,
      day.median,
      TARGETS.dayMs,
    ),
    row('One airport-day, cold: p95', day.p95, TARGETS.dayMs),
    row('One airport-day, cold: max', day.max, undefined, 'see below'),
    row(
      `One airport-day, cold: ${LARGEST} (largest, ${r.largestLegs} legs), median of ${r.largestMs.length}`,
      day.largestMedian,
      TARGETS.dayMs,
    ),
    row(`One airport-day, cold: ${LARGEST}, max`, day.largestMax, TARGETS.dayMs),
    row(
      `All ${boards} boards (${r.airports} airports × departures + arrivals) at one moment, cold (timetable built), median of ${r.rounds}`,
      cold,
      TARGETS.boardsMs,
    ),
    row(
      `All ${boards} boards 30 minutes later, warm (the poller's case), median of ${r.rounds}`,
      warm,
      TARGETS.boardsMs,
    ),
    '',
    `Memory (bounded by the LRU of ${m.cachedDays} airport-days): after ${m.days} days × ${r.airports} airports ` +
      `(${last.generated.toLocaleString('en')} airport-days generated, ${last.cached} cached) heapUsed is ${last.heapMb.toFixed(0)} MB ` +
      `after a full GC, against ${full.heapMb.toFixed(0)} MB once the LRU first filled (${full.days} days, ${full.generated} generated) ` +
      `and ${m.heapBeforeMb.toFixed(0)} MB with only the season's timetable built: ` +
      `${growth >= 0 ? '+' : '−'}${Math.abs(growth).toFixed(0)} MB for ${(last.generated - full.generated).toLocaleString('en')} more days generated ` +
      `(${growth <= 0.1 * full.heapMb ? 'bounded: met' : '**growing: NOT met**'}). ` +
      `Process RSS at the end: ${r.memory.rssMb.toFixed(0)} MB (it also holds the earlier sections' garbage the allocator has not returned).`,
    '',
    '- Airport-days are independent of each other and of the moment asked; the cold figures are the first generation of ' +
      'each (owner, date) in a world whose timetable is built and whose code the JIT has already compiled (a throw-away ' +
      `pass over another date comes first; its slowest day, the first ${LARGEST}-sized work in a fresh process, took ${ms(r.firstDayMs)} ms). ` +
      'Occasional GC pauses land in the max. ' +
      `The airport with the most legs in a day is ${r.busiest} (${r.busiestLegs}).`,
    `- One board pass at ${r.at} (window [at − 6 h, at + 18 h)) returns ${r.boardRows.toLocaleString('en')} rows and, cold, touches ` +
      `${r.daysPerBoardPass} airport-days (each airport's own and its neighbours' days before and after, since rotations cross ` +
      'midnight and airports), simulating only the rotations with a leg in the window (found by binary search in the ' +
      "season's per-airport index); the cold pass is mostly that simulation. Warm, the rotations are in the LRU'd days and the " +
      'pass only selects, sorts and renders rows at the new moment.',
    `- Creating a world (\`createSimWorld\`, with the reference data already loaded) takes ${ms(r.createMs)} ms; the timetable is built on the first question of a season, so the first board or lookup after start-up ` +
      'pays for it once (at most four seasons are cached).',
    '',
  ];
  return `${lines.join('\n')}\n`;
}

/** docs/performance.md with the simulated world's section put in place of its old one (or appended). */
export function withSimSection(markdown, section) {
  return withSection(markdown, HEADING, section);
}

/** Measure in a child process, print the section and write it into docs/performance.md. */
export function runSimBench() {
  const section = renderSim(measureSimIsolated());
  writeSection(HEADING, section);
  process.stdout.write(`\n${section}`);
  return section;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(await measureSim())}\n`);
    else runSimBench();
  } catch (error) {
    console.error(error);
    process.exit(1);
  }
}
