// Batches answered from the boards (issue 29, the plan's step 3), written under "## Batches answered
// from the boards" of docs/performance.md: the service in-process on dist/ (run `npm run build`
// first) with SQLite and the simulated world, the 52 catalogue airports' boards read by the service's
// own poll pass every 30 minutes (the spec's interval; what an endpoint watching them all makes it do)
// over the portfolio's days, then portfolios of 1,000 rows (900 flights and 100 of them again) sent
// as a batch, and the same rows one by one to GET /api/v1/flights/status (the naive plan). Provider
// requests are the simulated provider's, priced by its cost table (AeroDataBox's: a lookup 1, an
// aircraft's day 1, a day of departures 2).
//
//   node bench/run.mjs batches-observed   (OBSERVED_FROM=2026-02-09 OBSERVED_DAYS=30, the 30 days: about
//                                         45 minutes of polling; BENCH_WRITE=0 prints only)
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeSection } from './sections.mjs';
import { portfolio } from './portfolio.mjs';
import { sqliteTarget } from './targets.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HEADING = '## Batches answered from the boards';
const POLL_MS = 30 * 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const dist = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);
const addDays = (date, n) => new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);

export async function runBatchesObservedBench() {
  const result = await measureObserved(
    process.env.OBSERVED_FROM ?? '2026-02-09',
    Number(process.env.OBSERVED_DAYS ?? 30),
  );
  const section = render(result);
  if (process.env.BENCH_WRITE !== '0') writeSection(HEADING, section);
  process.stdout.write(`${section}\n`);
}

async function measureObserved(from, days) {
  const { buildApp } = await dist('app.js');
  const { ManualClock } = await dist('clock.js');
  const { createLogger } = await dist('logger.js');
  const { loadCatalogue, loadReferenceAirports } = await dist('airports/index.js');
  const { loadConfig } = await dist('config.js');
  const { groundTruth } = await dist('sim/index.js');
  const { BoardPoller, createBoardStore, ObservedFlightStore } = await dist('boards/index.js');
  const target = sqliteTarget();
  const start = Date.parse(`${from}T00:00:00Z`) - 12 * HOUR;
  const end = Date.parse(`${addDays(from, days)}T00:00:00Z`) + 12 * HOUR;
  const clock = new ManualClock(start);
  const config = {
    ...loadConfig({ LOG_LEVEL: 'silent' }),
    port: 0,
    database: target.database,
    adminToken: 'observed-bench-admin',
    clock: { kind: 'manual', start: null },
  };
  const app = await buildApp({ config, clock, logger: createLogger('silent') });
  try {
    const watched = loadCatalogue().airports.map((a) => a.iata);
    const account = await app.accounts.createAccount({ slug: 'observed', unlimited: true });
    const key = (await app.accounts.createKey(account.value.id, 'bench')).value.key;
    const auth = { authorization: `Bearer ${key}` };
    // The service's own poll pass, watching every catalogue airport, keeping what its boards show final.
    const quiet = { watchedAirports: async () => watched, publish: async () => {} };
    const observed = { store: new ObservedFlightStore(app.db), retentionMs: 60 * DAY };
    const poller = new BoardPoller({
      store: createBoardStore(app.db, quiet),
      providers: app.providers,
      airports: loadReferenceAirports(),
      logger: createLogger('silent'),
      providerTimeoutMs: 8000,
      observed,
    });
    let t = performance.now();
    let passes = 0;
    for (let at = start; at < end; at += POLL_MS) {
      clock.set(at);
      await poller.pass(at);
      passes++;
    }
    const pollSeconds = (performance.now() - t) / 1000;
    const kept = Number(
      (
        await app.db.kysely
          .selectFrom('observed_flights')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirst()
      ).n,
    );
    console.error(`batches-observed: ${passes} board passes in ${pollSeconds.toFixed(0)} s, ${kept} final rows kept`);
    // Claims come in later: every flight of the days settled and past the 72 hours after which a disruption is stored.
    clock.set(end + 4 * DAY);

    const calls = async () => {
      const text = (
        await app.http.inject({
          method: 'GET',
          url: '/metrics',
          headers: { authorization: `Bearer ${config.adminToken}` },
        })
      ).body;
      const out = { flight: 0, rotation: 0 };
      for (const m of text.matchAll(/^flightstatus_provider_calls_total\{([^}]*)\} (\d+)/gm)) {
        const kind = /kind="([^"]+)"/.exec(m[1])?.[1];
        if (kind in out) out[kind] += Number(m[2]);
      }
      return out;
    };
    const truths = Array.from({ length: days }, (_, d) => addDays(from, d))
      .flatMap((d) => groundTruth(app.sim, d))
      .filter((f) => f.operation === 'passenger' && watched.includes(f.origin));
    const disrupted = truths.filter(
      (f) => f.status === 'cancelled' || f.status === 'diverted' || (f.arrivalDelayMinutes ?? 0) >= 180,
    );
    const claims = portfolio(disrupted, 29);
    const inClaims = new Set(claims.map((r) => `${r.flightNumber}|${r.flightDate}`));
    const shapes = [
      { name: "a claims firm's: disrupted flights (3 h late, cancelled, diverted)", rows: claims },
      {
        name: 'flights of every kind, spread evenly',
        rows: portfolio(
          truths.filter((f) => !inClaims.has(`${f.flightNumber}|${f.flightDate}`)),
          31,
        ),
      },
    ];
    const results = [];
    for (const shape of shapes) {
      // The naive plan first, then its stored disruptions forgotten, so the batch replays none of them.
      let before = await calls();
      for (const row of shape.rows) {
        const { reference: _, ...query } = row;
        await app.http.inject({
          method: 'GET',
          url: `/api/v1/flights/status?${new URLSearchParams(query)}`,
          headers: auth,
        });
      }
      let after = await calls();
      const naive = after.flight - before.flight + (after.rotation - before.rotation);
      await app.db.kysely.deleteFrom('flight_records').execute();

      before = await calls();
      t = performance.now();
      const submitted = JSON.parse(
        (
          await app.http.inject({
            method: 'POST',
            url: '/api/v1/batches',
            headers: { ...auth, 'content-type': 'application/json' },
            payload: JSON.stringify(shape.rows),
          })
        ).body,
      ).data;
      let done;
      for (;;) {
        done = JSON.parse(
          (await app.http.inject({ method: 'GET', url: `/api/v1/batches/${submitted.id}`, headers: auth })).body,
        ).data;
        if (done.state === 'done') break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      after = await calls();
      await app.db.kysely.deleteFrom('flight_records').execute();
      const asked = after.flight - before.flight;
      const entry = {
        name: shape.name,
        rows: shape.rows.length,
        lookups: submitted.lookups,
        fromBoards: submitted.lookups - asked,
        asked,
        rotations: after.rotation - before.rotation,
        made: done.providerCalls.made,
        naive,
        outcomes: done.counts.byOutcome,
        seconds: (performance.now() - t) / 1000,
      };
      console.error(JSON.stringify(entry));
      results.push(entry);
    }
    return { from, to: addDays(from, days - 1), passes, pollSeconds, kept, results };
  } finally {
    await app.close();
    await target.drop();
  }
}

function render(r) {
  const per1000 = (n, rows) => Math.round((n * 1000) / rows);
  return [
    HEADING,
    '',
    `Written by \`node bench/run.mjs batches-observed\` (bench/batches-observed.mjs) on ${new Date().toISOString().slice(0, 10)}. The service in one`,
    `process on SQLite and the simulated world; the boards of the 52 catalogue airports read by its own poll pass every 30 minutes from 12 hours`,
    `before ${r.from} to 12 hours after ${r.to} (${r.passes} passes in ${Math.round(r.pollSeconds)} s; ${r.kept.toLocaleString('en')} final rows kept); then each portfolio of`,
    '1,000 rows (900 flights of those days departing a watched airport, with their origin, and 100 of them again), first one by one to',
    "`GET /api/v1/flights/status` (naive), then as a batch. Requests: the simulated provider's, priced as AeroDataBox's (a lookup 1, an",
    'aircraft\'s day 1, a day of departures 2). "Asked": lookups that went to the provider; "aircraft\'s days": the circumstances\' reads.',
    '',
    "| Portfolio | Lookups | From the boards | Asked | Aircraft's days | Requests (batch) | Naive | Per 1,000 rows | Naive per 1,000 |",
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.results.map(
      (e) =>
        `| ${e.name} | ${e.lookups} | ${e.fromBoards} | ${e.asked} | ${e.rotations} | ${e.made} | ${e.naive} | **${per1000(e.made, e.rows)}** | ${per1000(e.naive, e.rows)} |`,
    ),
  ].join('\n');
}
