#!/usr/bin/env node
// What a day of board watching costs on disk (docs/deploy.md, "Retention"), measured in-process on
// dist/ (run `npm run build` first) with PostgreSQL: the service on the manual clock over a simulated
// day, E endpoints watching every catalogue airport and delivering to a local receiver that answers
// 204, then the on-disk size of each table the day filled (pg_total_relation_size: rows, TOAST and
// indexes) after VACUUM. Bytes per event and per delivery (with its attempt) give the cost of a day
// at any number of endpoints, since deliveries = events × endpoints watching their airport.
//
//   BENCH_DISK_ENDPOINTS=2    endpoints, each watching all 52 catalogue airports
//   BENCH_DISK_HOURS=24       simulated hours
//   BENCH_POSTGRES_URL        see bench/targets.mjs
//
//   node bench/run.mjs disk   measure, print the section and write it into docs/performance.md
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeSection } from './sections.mjs';
import { postgresTarget } from './targets.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HEADING = '## Disk per day';
const ENDPOINTS = Number(process.env.BENCH_DISK_ENDPOINTS ?? 2);
const HOURS = Number(process.env.BENCH_DISK_HOURS ?? 24);
const START = Date.UTC(2026, 2, 2); // a Monday in March
const TABLES = ['board_events', 'deliveries', 'delivery_attempts', 'watches'];
const dist = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);

export async function runDiskBench() {
  const result = await measureDisk();
  console.error(JSON.stringify(result));
  const section = renderDisk(result);
  writeSection(HEADING, section);
  process.stdout.write(`${section}\n`);
}

export async function measureDisk() {
  const target = await postgresTarget('flightstatus_bench_disk');
  if (!target) throw new Error('the disk bench needs PostgreSQL');
  const [{ buildApp }, { loadConfig }, { ManualClock }, { createLogger }] = await Promise.all([
    dist('app.js'),
    dist('config.js'),
    dist('clock.js'),
    dist('logger.js'),
  ]);
  let received = 0;
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received++;
      response.writeHead(204).end();
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${receiver.address().port}/hook`;
  const config = {
    ...loadConfig({
      DATABASE_URL: target.url,
      LOG_LEVEL: 'silent',
      FLIGHTSTATUS_WEBHOOK_SECRET_KEY: '5e'.repeat(32),
      FLIGHTSTATUS_WEBHOOK_ALLOW_HTTP: '1',
      FLIGHTSTATUS_WEBHOOK_ALLOW_PRIVATE: '1',
    }),
    clock: { kind: 'manual', start: START },
  };
  const clock = new ManualClock(START);
  const app = await buildApp({ config, clock, logger: createLogger('silent') });
  const started = performance.now();
  try {
    const account = await app.accounts.createAccount({ slug: 'disk', unlimited: true });
    if (account.kind !== 'ok') throw new Error(account.message);
    const airports = app.catalogue.airports.map((a) => a.iata);
    for (let i = 0; i < ENDPOINTS; i++) {
      const made = await app.webhooks.create(account.value.id, { name: `e${i}`, url, airports });
      if (made.kind !== 'ok') throw new Error(made.message);
    }
    await app.scheduler.advanceTo(START + HOURS * 3_600_000);
    // Whatever the last poll stored is sent by the next cycles.
    await app.scheduler.advanceTo(clock.now() + 10 * 60_000);
    const db = app.db.pool;
    await db.query('VACUUM ANALYZE');
    const sizes = {};
    for (const table of TABLES) {
      const { rows } = await db.query(
        `SELECT pg_total_relation_size($1) AS bytes, (SELECT count(*) FROM ${table}) AS n`,
        [table],
      );
      sizes[table] = { bytes: Number(rows[0].bytes), rows: Number(rows[0].n) };
    }
    return {
      endpoints: ENDPOINTS,
      hours: HOURS,
      airports: airports.length,
      received,
      sizes,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await app.close();
    await new Promise((resolve) => receiver.close(resolve));
    await target.drop();
  }
}

const mb = (bytes) => (bytes / 1_048_576).toFixed(1);
const size = (bytes) => (bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(1)} GB` : `${Math.round(bytes / 2 ** 20)} MB`);
const fmt = (n) => n.toLocaleString('en-US');

export function renderDisk(r) {
  const { board_events: events, deliveries, delivery_attempts: attempts } = r.sizes;
  const perEvent = events.bytes / events.rows;
  const perDelivery = (deliveries.bytes + attempts.bytes) / deliveries.rows;
  const day = 24 / r.hours;
  const eventsPerDay = events.rows * day;
  const row = (n) => {
    const bytes = eventsPerDay * (perEvent + n * perDelivery);
    return `| ${fmt(n)} | ${fmt(Math.round(eventsPerDay * n))} | ${size(bytes)} | ${size(bytes * 7)} | ${size(bytes * 30)} |`;
  };
  return [
    HEADING,
    '',
    `Written by \`node bench/run.mjs disk\` (bench/disk.mjs): PostgreSQL 15, the simulated world over ${r.hours} h from ${new Date(START).toISOString().slice(0, 10)}, ${r.endpoints} endpoints each watching all ${r.airports} catalogue airports and delivering to a local receiver (${fmt(r.received)} deliveries received; ${r.seconds.toFixed(0)} s). Sizes after VACUUM, indexes and TOAST included.`,
    '',
    '| table | rows | MB | bytes per row |',
    '|---|---|---|---|',
    ...TABLES.map(
      (t) =>
        `| \`${t}\` | ${fmt(r.sizes[t].rows)} | ${mb(r.sizes[t].bytes)} | ${fmt(Math.round(r.sizes[t].bytes / Math.max(1, r.sizes[t].rows)))} |`,
    ),
    '',
    `A day at all ${r.airports} airports stores ${fmt(Math.round(eventsPerDay))} events (${fmt(Math.round(perEvent))} bytes each) and, per endpoint watching all of them, as many deliveries (${fmt(Math.round(perDelivery))} bytes each with its attempt; a retried delivery adds an attempt row). \`watches\` does not grow with days (flights are retired after 36 h; most of its size is the row versions each poll rewrites, reused once autovacuum has passed). What that costs per day, and kept at a retention of 7 days and of the default 30 (\`FLIGHTSTATUS_RETENTION_DAYS\`):`,
    '',
    '| endpoints watching all airports | deliveries a day | disk a day | kept at 7 days | kept at 30 days |',
    '|---|---|---|---|---|',
    ...[1, 10, 100].map(row),
    '',
    'An endpoint watching k of the airports costs about k / 52 of a full one (airports differ in traffic). SQLite stores the same rows in somewhat less space (no per-row header of 24 bytes).',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  // BENCH_DISK_RESULT: a saved result to render again (the JSON printed on stderr by a run).
  if (process.env.BENCH_DISK_RESULT) writeSection(HEADING, renderDisk(JSON.parse(process.env.BENCH_DISK_RESULT)));
  else await runDiskBench();
}
