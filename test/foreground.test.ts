// Requests first, through HTTP: while the service is answering a request, background work waits for
// its answer between its steps (src/foreground.ts); a request the client gives up on stops counting;
// the manual clock's move, which runs the jobs itself, never counts (its jobs would wait for it).
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { MINUTE } from '../src/clock.js';
import { backgroundTurn, requestsAnswering } from '../src/foreground.js';
import { describeEachDatabase } from './helpers/databases.js';
import { startTestApp, type TestApp } from './helpers/app.js';

describeEachDatabase('requests before background work', (kind) => {
  let t: TestApp;
  let port: number;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp(kind);
    await t.app.http.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.http.server.address() as { port: number }).port;
    key = (await t.account()).key;
  });
  afterAll(() => t.close());
  // The count is the process's, and test files share a process (vitest.config.ts, isolate: false): a
  // request of a file before this one may still be closing (its client gone, its server shut).
  beforeEach(async () => {
    await expect.poll(() => requestsAnswering(), { timeout: 15_000, interval: 20 }).toBe(0);
  });

  /** A watch's creation with its body half sent: the service is answering it until the rest arrives. */
  async function halfSent(): Promise<{ socket: Socket; rest: () => Promise<string> }> {
    const body = JSON.stringify({ flightNumber: 'W63101', flightDate: '2026-03-20', endpoints: ['whe_none'] });
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.write(
      `POST /api/v1/watches HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${key}\r\n` +
        `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n` +
        body.slice(0, 10),
    );
    while (requestsAnswering() === 0) await sleep(5);
    return {
      socket,
      rest: async () => {
        socket.write(body.slice(10));
        await new Promise((resolve) => socket.once('close', resolve));
        return answer;
      },
    };
  }

  it('holds a background turn until the request in flight is answered', async () => {
    const request = await halfSent();
    expect(requestsAnswering()).toBe(1);
    let turned = false;
    const turn = backgroundTurn(60_000).then(() => (turned = true));
    await sleep(100);
    expect(turned).toBe(false);
    const answer = await request.rest();
    // Answered (refused: the endpoint is not the account's), and the turn goes on.
    expect(answer).toMatch(/^HTTP\/1\.1 4\d\d /);
    await turn;
    expect(requestsAnswering()).toBe(0);
  });

  it('stops counting a request whose client went away', async () => {
    const request = await halfSent();
    expect(requestsAnswering()).toBe(1);
    request.socket.destroy();
    while (requestsAnswering() > 0) await sleep(5);
    let turned = false;
    await backgroundTurn(60_000).then(() => (turned = true));
    expect(turned).toBe(true);
  });

  it('does not count the clock move that runs the jobs: their turns do not wait for it', async () => {
    const seen: number[] = [];
    t.app.scheduler.register({
      name: 'foreground-probe',
      intervalMs: 30 * MINUTE,
      run: async () => {
        seen.push(requestsAnswering());
        await backgroundTurn(60_000);
      },
    });
    const moved = await t.admin('POST', '/api/admin/v1/clock', { advanceSeconds: 3600 });
    expect(moved.statusCode).toBe(200);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.every((n) => n === 0)).toBe(true);
  });
});
