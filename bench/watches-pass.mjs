#!/usr/bin/env node
// What 10,000 active watches cost the board poll pass (docs/watches.md, "Cost"), measured in-process
// on dist/ (run `npm run build` first) with a real database: one endpoint selecting the 52 catalogue
// airports, and the same with 10,000 active watches added (one account, ten endpoints that select no
// airport), either of flights the pass reads (every watch matches a row, its events are linked and
// fanned out to its endpoint) or of flights dated a month later (the matching alone). The first pass
// (every flight new) and the next, 30 minutes later; on SQLite, and on PostgreSQL when one answers.
//
//   node bench/watches-pass.mjs     measure, print, and write its section into docs/performance.md
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeSection } from './sections.mjs';
import { benchEndpoint, pollOnlyConfig, postgresTarget, sqliteTarget } from './targets.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dist = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);
const DATE = '2026-11-20';
const WATCHES = 10_000;
const ENDPOINTS = 10;

async function measure(kind, makeTarget, scenario) {
  const { buildApp } = await dist('app.js');
  const { ManualClock } = await dist('clock.js');
  const { createLogger } = await dist('logger.js');
  const { loadCatalogue } = await dist('airports/index.js');
  const { loadConfig } = await dist('config.js');
  const { groundTruth } = await dist('sim/index.js');
  const target = await makeTarget();
  const clock = new ManualClock(Date.parse(`${DATE}T10:00:00Z`));
  const app = await buildApp({
    config: pollOnlyConfig(loadConfig({ LOG_LEVEL: 'silent' }), target),
    clock,
    logger: createLogger('silent'),
  });
  try {
    const account = await app.accounts.createAccount({
      slug: 'bench',
      plan: { included: 10, overage: false },
      unlimited: true,
    });
    const endpoint = (id, airports) => benchEndpoint(account.value.id, id, id, airports, clock.now());
    const hooks = Array.from({ length: ENDPOINTS }, (_, i) => endpoint(`wh_watch${i}`, []));
    await app.db.kysely
      .insertInto('endpoints')
      .values([
        endpoint(
          'wh_all',
          loadCatalogue().airports.map((a) => a.iata),
        ),
        ...hooks,
      ])
      .execute();
    if (scenario !== 'none') {
      app.sim.timetable(DATE);
      const flights = groundTruth(app.sim, DATE)
        .filter((f) => f.operation === 'passenger')
        .slice(0, WATCHES);
      const rows = flights.map((f, i) => ({
        id: `wch_bench${i}`,
        account_id: account.value.id,
        flight_number: f.flightNumber.replace(/\s+/g, ''),
        flight_date: scenario === 'matching' ? f.flightDate : '2026-12-20',
        date_basis: 'utc',
        origin: f.origin,
        destination: null,
        reference: `P${i}`,
        watch_key: `bench${i}`,
        state: 'active',
        ended_reason: null,
        created_at: clock.now(),
        ended_at: null,
      }));
      for (let i = 0; i < rows.length; i += 500) {
        await app.db.kysely
          .insertInto('flight_watches')
          .values(rows.slice(i, i + 500))
          .execute();
        await app.db.kysely
          .insertInto('flight_watch_endpoints')
          .values(
            rows.slice(i, i + 500).map((r, j) => ({ watch_id: r.id, endpoint_id: hooks[(i + j) % ENDPOINTS].id })),
          )
          .execute();
      }
    }
    app.sim.timetable(DATE);
    let t = performance.now();
    const first = await app.poller.pass(clock.now());
    const firstMs = performance.now() - t;
    clock.advance(30 * 60_000);
    t = performance.now();
    const next = await app.poller.pass(clock.now());
    const nextMs = performance.now() - t;
    const count = async (table) =>
      Number(
        (
          await app.db.kysely
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirst()
        ).n,
      );
    const result = {
      kind,
      scenario,
      firstMs,
      nextMs,
      events: first.events + next.events,
      links: await count('board_event_watches'),
      deliveries: await count('deliveries'),
    };
    console.log(
      `${kind} ${scenario}: first ${firstMs.toFixed(0)} ms, next ${nextMs.toFixed(0)} ms; ${result.events} events, ${result.links} linked to watches, ${result.deliveries} deliveries`,
    );
    return result;
  } finally {
    await app.close();
    await target.drop();
  }
}

const HEADING = '## Watches and the board poll';
const SCENARIOS = {
  none: 'no watch',
  elsewhere: '10,000 watches of flights a month later (matched against, none found)',
  matching: "10,000 watches of the day's flights (those on the boards read found, their events linked and fanned out)",
};
const results = [];
for (const [kind, make] of [
  ['SQLite', async () => sqliteTarget()],
  ['PostgreSQL', () => postgresTarget('flightstatus_watches')],
]) {
  if (kind === 'PostgreSQL') {
    const probe = await postgresTarget('flightstatus_watches');
    if (!probe) continue;
    await probe.drop();
  }
  for (const scenario of ['none', 'elsewhere', 'matching']) results.push(await measure(kind, make, scenario));
}
const lines = [
  HEADING,
  '',
  `Written by \`node bench/watches-pass.mjs\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model.trim()}, ` +
    `${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}. One process, a fresh database per row, the simulated world at ${DATE}T10:00Z, ` +
    'one endpoint selecting the 52 catalogue airports; the watches (one account, ten endpoints selecting no airport) name their origin. ' +
    'The first pass sees every flight for the first time; the next, 30 minutes later, what changed. Both include the fan-out.',
  '',
  '| database | watches | first pass ms | next pass ms | events (both passes) | linked to watches | deliveries |',
  '|---|---|---|---|---|---|---|',
  ...results.map(
    (r) =>
      `| ${r.kind} | ${SCENARIOS[r.scenario]} | ${Math.round(r.firstMs)} | ${Math.round(r.nextMs)} | ${r.events.toLocaleString('en')} | ${r.links.toLocaleString('en')} | ${r.deliveries.toLocaleString('en')} |`,
  ),
  '',
  'What a watch costs the pass is the matching (the second row against the first: one read of the active watches, a map lookup per row ' +
    'read) and, when its flight is on a board, the links and deliveries of its events (the third row: one delivery per event and ' +
    "watching endpoint, written by the fan-out's chunked writer as an airport's are). The first and next pass of one row vary by " +
    'several hundred milliseconds between runs on this shared machine.',
  '',
];
writeSection(HEADING, lines.join('\n'));
