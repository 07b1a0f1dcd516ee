// The README's local webhook demo, end to end: the example receiver (examples/webhook-receiver.mjs,
// importing the package's own `flight-status-service/webhooks`) gets a signed test event and then
// the board changes of the next poll, and turns away a forged request.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer, json, startTestApp, type TestApp } from './helpers/app.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

let t: TestApp;
let receiver: ChildProcess;
let output = '';

beforeAll(async () => {
  t = await startTestApp('sqlite');
});
afterAll(async () => {
  receiver?.kill();
  await t.close();
});

const waitForOutput = async (pattern: RegExp | ((text: string) => boolean), timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  const done = typeof pattern === 'function' ? pattern : (text: string) => pattern.test(text);
  while (!done(output)) {
    if (Date.now() > deadline) throw new Error(`receiver never printed ${pattern}; it printed:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

it('receives a signed test event and the next poll’s board changes, and rejects a forgery', async () => {
  const { key } = await t.account();
  const call = (method: 'POST' | 'PATCH', url: string, payload?: object) =>
    t.app.http.inject({ method, url, headers: bearer(key), ...(payload ? { payload } : {}) });
  const created = json(
    await call('POST', '/api/v1/webhooks', { name: 'demo', url: 'http://127.0.0.1:4000/hooks', airports: ['OTP'] }),
  ).data;

  receiver = spawn(process.execPath, ['examples/webhook-receiver.mjs'], {
    cwd: ROOT,
    env: { ...process.env, WEBHOOK_SECRET: created.secret, PORT: '0' },
  });
  receiver.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  receiver.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  await waitForOutput(/receiving webhooks on (\S+)/);
  const url = /receiving webhooks on (\S+)/.exec(output)![1]!;
  expect((await call('PATCH', `/api/v1/webhooks/${created.id}`, { url })).statusCode).toBe(200);

  const test = json(await call('POST', `/api/v1/webhooks/${created.id}/test`)).data;
  expect(test).toMatchObject({ delivered: true, statusCode: 204 });
  await waitForOutput(new RegExp(`webhook.test \\(delivery ${test.deliveryId}\\)`));

  await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 30 * 60 });
  const events = await t.app.db.kysely.selectFrom('board_events').select('id').where('airport', '=', 'OTP').execute();
  expect(events.length).toBeGreaterThan(10);
  const flightLines = (text: string) => text.split('\n').filter((line) => /^flight\.\w+ OTP /.test(line)).length;
  await waitForOutput((text) => flightLines(text) >= events.length);
  expect(flightLines(output)).toBe(events.length);
  expect(output).not.toMatch(/rejected/);

  const forged = await fetch(url, {
    method: 'POST',
    body: '{"id":"dlv_x"}',
    headers: { 'x-flight-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` },
  });
  expect(forged.status).toBe(400);
  await waitForOutput(/rejected: signature does not match/);
});
