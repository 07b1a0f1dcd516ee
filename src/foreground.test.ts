// Background work yields to the requests in flight, for a bounded time it earns back: the rule alone,
// on a Foreground of its own (the HTTP server's use of it: test/foreground.test.ts).
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { Foreground } from './foreground.js';

/** A response that closes when told to. */
const answer = () => {
  const emitter = new EventEmitter();
  return {
    once: (event: 'close', listener: () => void) => emitter.once(event, listener),
    close: () => emitter.emit('close'),
  };
};

/** Whether the turn has resolved, looked at after the timers and turns of `ms`. */
async function settledWithin(turn: Promise<void>, ms: number): Promise<boolean> {
  let done = false;
  void turn.then(() => (done = true));
  await sleep(ms);
  return done;
}

describe('a background turn', () => {
  it('is one turn of the event loop while no request is being answered', async () => {
    const foreground = new Foreground();
    expect(await settledWithin(foreground.turn(60_000), 20)).toBe(true);
  });

  it('waits while a request is being answered, and goes on once the last one is', async () => {
    const foreground = new Foreground();
    const first = answer();
    const second = answer();
    foreground.started(first);
    foreground.started(second);
    expect(foreground.requests).toBe(2);
    const turn = foreground.turn(60_000);
    expect(await settledWithin(turn, 50)).toBe(false);
    first.close();
    expect(await settledWithin(turn, 20)).toBe(false);
    second.close();
    expect(await settledWithin(turn, 20)).toBe(true);
    expect(foreground.requests).toBe(0);
  });

  it('does not count a request whose response had closed already (its close will not come again)', async () => {
    const foreground = new Foreground();
    foreground.started({ closed: true, once: () => undefined });
    expect(foreground.requests).toBe(0);
    expect(await settledWithin(foreground.turn(60_000), 20)).toBe(true);
  });

  it('stops counting a request whose connection closed though its response never did (pipelined behind another)', async () => {
    const foreground = new Foreground();
    const connection = new EventEmitter();
    const endless = answer();
    foreground.started(endless, connection);
    expect(foreground.requests).toBe(1);
    const turn = foreground.turn(60_000);
    connection.emit('close');
    expect(await settledWithin(turn, 20)).toBe(true);
    expect(foreground.requests).toBe(0);
    // Counted once: the response's late close does not count it down again, and left no listener.
    endless.close();
    expect(foreground.requests).toBe(0);
    expect(connection.listenerCount('close')).toBe(0);
    // A connection closed already: its close will not come again.
    foreground.started(answer(), { destroyed: true, once: () => 0, off: () => 0 });
    expect(foreground.requests).toBe(0);
  });

  it('leaves no listener on a keep-alive connection once its request is answered', () => {
    const foreground = new Foreground();
    const connection = new EventEmitter();
    for (let i = 0; i < 20; i++) {
      const a = answer();
      foreground.started(a, connection);
      a.close();
    }
    expect(connection.listenerCount('close')).toBe(0);
    expect(foreground.requests).toBe(0);
  });

  it('waits at most its bound for a request that is not answered', async () => {
    const foreground = new Foreground();
    foreground.started(answer());
    expect(await settledWithin(foreground.turn(30), 10)).toBe(false);
    const turn = foreground.turn(30);
    expect(await settledWithin(turn, 200)).toBe(true);
  });

  it('after waiting, runs as long again before it waits again: requests without end never stop it', async () => {
    const foreground = new Foreground();
    const endless = [answer(), answer()];
    foreground.started(endless[0]!);
    const waited = performance.now();
    await foreground.turn(100);
    const wait = performance.now() - waited;
    expect(wait).toBeGreaterThanOrEqual(90);
    // Within the time it earned, a turn is a turn, however many requests wait.
    foreground.started(endless[1]!);
    expect(await settledWithin(foreground.turn(60_000), 5)).toBe(true);
    // Once it has run as long as it waited, it waits again.
    await sleep(wait + 20);
    const again = foreground.turn(60_000);
    expect(await settledWithin(again, 20)).toBe(false);
    for (const a of endless) a.close();
    await again;
  });
});
