#!/usr/bin/env node
// The proof image's cost, measured in-process on dist/ (run `npm run build` first): render a real
// record of the simulated world as a PNG card many times; time per render (median, p99) against the
// issue's target, and the process's memory before and after thousands of renders (it must stay
// bounded: the renderer keeps nothing between renders). The CPU baseline of bench/sim.mjs (a JSON
// round trip of a fixed ~1 MB object) is measured in the same process for the ratio.
//
//   node bench/proof.mjs          measure, print the section and write it into docs/performance.md
//   node bench/run.mjs proof      the same, through the bench entry point
//   BENCH_PROOF_RENDERS=2000
import { spawnSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeSection } from './sections.mjs';
import { baselineFixture } from './sim.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HEADING = '## Proof image';
const RENDERS = Number(process.env.BENCH_PROOF_RENDERS ?? 2000);
const TARGET_MS = 30;
const dist = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);

export async function measureProof() {
  const { createSimWorld, groundTruth } = await dist('sim/index.js');
  const { mergeAnswers } = await dist('flights/merge.js');
  const { classify } = await dist('flights/verdict.js');
  const { ProofRenderer } = await dist('flights/proof.js');
  const { loadReferenceAirports } = await dist('airports/index.js');

  // A real record: a delayed flight of the world, settled, as the lookup would answer it.
  const world = createSimWorld('flightstatus');
  const truth = groundTruth(world, '2026-11-10', { status: 'delayed' })[0];
  const legs = world.lookup(truth.flightNumber, truth.flightDate, Date.parse('2026-11-20T00:00:00Z'), {
    origin: truth.origin,
  });
  const { selected, flightDelay } = classify(mergeAnswers([{ provider: 'sim', legs }]));
  const now = new Date().toISOString();
  const data = {
    flightNumber: truth.flightNumber,
    flightDate: truth.flightDate,
    originIata: selected.originIata,
    destinationIata: selected.destinationIata,
    selected,
    flightDelay,
    meta: {
      durationMs: 1,
      startedAt: now,
      finishedAt: now,
      cached: false,
      persisted: false,
      recordId: null,
      source: 'sim',
    },
    sources: [{ provider: 'sim', outcome: 'hit', durationMs: 1, fields: [], error: null }],
  };
  const renderer = new ProofRenderer(loadReferenceAirports());

  const fixture = baselineFixture(); // the same yardstick as the simulated world's section
  const baseline = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    JSON.stringify(JSON.parse(fixture));
    baseline.push(performance.now() - t);
  }

  for (let i = 0; i < 50; i++) await renderer.render(data, Date.now()); // warm-up (fonts, JIT)
  const collect = () => {
    for (let i = 0; i < 3; i++) globalThis.gc?.();
  };
  collect();
  const before = process.memoryUsage();
  const times = [];
  let bytes = 0;
  let rssAtHalf = 0;
  for (let i = 0; i < RENDERS; i++) {
    const t = performance.now();
    const proof = await renderer.render(data, Date.now());
    times.push(performance.now() - t);
    bytes = Buffer.byteLength(proof.data, 'base64');
    if (i === Math.floor(RENDERS / 2)) {
      collect();
      rssAtHalf = process.memoryUsage().rss;
    }
  }
  collect();
  const after = process.memoryUsage();
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
  return {
    machine: `${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    renders: RENDERS,
    medianMs: at(0.5),
    p99Ms: at(0.99),
    maxMs: sorted.at(-1),
    baselineMs: [...baseline].sort((a, b) => a - b)[10],
    pngBytes: bytes,
    rssBeforeMb: before.rss / 2 ** 20,
    rssHalfMb: rssAtHalf / 2 ** 20,
    rssAfterMb: after.rss / 2 ** 20,
    heapAfterMb: after.heapUsed / 2 ** 20,
  };
}

export function measureProofIsolated() {
  const child = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--json'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (child.status !== 0) throw new Error(`bench/proof.mjs exited with ${child.status ?? child.signal}`);
  return JSON.parse(child.stdout.toString());
}

export function renderProof(r) {
  const f = (v) => v.toFixed(1);
  return [
    HEADING,
    '',
    `Written by \`npm run bench\` (or \`node bench/run.mjs proof\` alone; bench/proof.mjs) on ${new Date().toISOString().slice(0, 10)}: ${r.machine}. ` +
      `${r.renders.toLocaleString('en')} renders of one real record (a delayed flight of the simulated world) as the ${'`screenshot=1`'} card, ` +
      `in one process after 50 warm-up renders; each render draws the card with @napi-rs/canvas and encodes a ${Math.round(r.pngBytes / 1024)} kB PNG with Node's zlib.`,
    '',
    '| measure | target (issue 4) | value | × baseline | target met |',
    '|---|---|---|---|---|',
    `| One render, median | ≤ ${TARGET_MS} ms | ${f(r.medianMs)} ms | ${(r.medianMs / r.baselineMs).toFixed(2)}× | ${r.medianMs <= TARGET_MS ? 'met' : '**NOT met**'} |`,
    `| One render, p99 | — | ${f(r.p99Ms)} ms | ${(r.p99Ms / r.baselineMs).toFixed(2)}× | |`,
    `| Process RSS: before / halfway / after ${r.renders.toLocaleString('en')} renders | bounded | ${f(r.rssBeforeMb)} / ${f(r.rssHalfMb)} / ${f(r.rssAfterMb)} MB | | ${r.rssAfterMb - r.rssHalfMb < 20 ? 'met' : '**NOT met**'} |`,
    '',
    `The baseline is the simulated world section's (a JSON round trip of a fixed 0.9 MB object), median ${f(r.baselineMs)} ms in the same process. Memory is bounded when the second half of the renders ` +
      'adds no more than noise to the RSS reached halfway (the renderer keeps no canvas or buffer between renders; fonts are registered once).',
    '',
  ].join('\n');
}

export function runProofBench() {
  const section = renderProof(measureProofIsolated());
  writeSection(HEADING, section);
  process.stdout.write(`\n${section}`);
  return section;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(await measureProof())}\n`);
    else runProofBench();
  } catch (error) {
    console.error(error);
    process.exit(1);
  }
}
