#!/usr/bin/env node
// Run by bench/webhooks.mjs as `node --expose-gc bench/webhooks-heap.mjs`: the delivery worker in this
// process sends 8 batches of 10,000 deliveries (1,000 endpoints × 10 changes) to a local receiver on a
// fresh SQLite database, and prints the V8 heap in use after a full GC following each batch, as JSON.
// A heap that stays flat from batch to batch is what "bounded memory" means here.
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dist = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);
const { buildApp } = await dist('app.js');
const { loadConfig } = await dist('config.js');
const { ManualClock } = await dist('clock.js');
const { createBoardStore } = await dist('boards/index.js');
const { FanOut } = await dist('webhooks/index.js');
const { newId } = await dist('ids.js');
const { createLogger } = await dist('logger.js');

const dir = mkdtempSync(join(tmpdir(), 'flightstatus-heap-'));
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(204).end());
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${receiver.address().port}/`;
const config = loadConfig({
  DATABASE_URL: `sqlite:${join(dir, 'heap.db')}`,
  LOG_LEVEL: 'silent',
  FLIGHTSTATUS_WEBHOOK_ALLOW_HTTP: '1',
  FLIGHTSTATUS_WEBHOOK_ALLOW_PRIVATE: '1',
});
const clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
const app = await buildApp({ config, clock, logger: createLogger('silent') });
try {
  for (let a = 0; a < 10; a++) {
    const account = await app.accounts.createAccount({ slug: `heap-${a}`, plan: { included: 10 } });
    for (let i = 0; i < 100; i++)
      await app.webhooks.create(account.value.id, { name: `h${i}`, url: `${url}${a}-${i}`, airports: ['OTP'] });
  }
  // Saves fanned out to the endpoints' deliveries, as the board poll does.
  const store = createBoardStore(app.db, new FanOut(app.db));
  const heap = [];
  for (let batch = 0; batch < 8; batch++) {
    const at = clock.now();
    const events = Array.from({ length: 10 }, (_, i) => ({
      id: newId('evt'),
      type: 'flight.delay_changed',
      airport: 'OTP',
      board: 'departures',
      flight_id: `fl_${i}`,
      created_at: at,
      data: JSON.stringify({ flight: { id: `fl_${i}`, lastSeenAt: new Date(at).toISOString() }, previous: {} }),
    }));
    await store.save('OTP', 'departures', [], events);
    const report = await app.deliveries.cycle();
    if (report.delivered !== 10_000) throw new Error(`batch ${batch}: ${report.delivered} delivered`);
    clock.advance(1000);
    globalThis.gc();
    globalThis.gc();
    heap.push(process.memoryUsage().heapUsed);
  }
  process.stdout.write(JSON.stringify({ heap }));
} finally {
  await app.close();
  receiver.close();
  rmSync(dir, { recursive: true, force: true });
}
