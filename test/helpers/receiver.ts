// A real local HTTP receiver for webhook tests: records every request as received (raw bytes and
// headers) and answers as the test tells it to (a status, a delay, a redirect, or no answer at all).
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  at: number;
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: {
    id: string;
    event: string;
    type: string;
    createdAt: string;
    webhook: { id: string; name: string; airports: string[] };
    watches?: { id: string; reference: string | null }[];
    airport: { iata: string };
    data: any;
  };
}

/** What to answer: a status (default 204), optionally after a delay; 'hang' never answers. */
export type Answer =
  number | { status: number; delayMs?: number; headers?: Record<string, string>; body?: string } | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  /** Requests received and not yet answered or dropped by the sender; the most there were at once. */
  open: number;
  mostOpen: number;
  /** Decides each answer; defaults to 204. */
  answer: (request: Received) => Answer;
  /** Resolves once `n` requests in all have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(answer: (request: Received) => Answer = () => 204): Promise<Receiver> {
  const hanging = new Set<ServerResponse>();
  const waiters: { n: number; resolve: () => void }[] = [];
  const receiver: Receiver = {
    url: '',
    received: [],
    open: 0,
    mostOpen: 0,
    answer,
    waitFor(n, timeoutMs = 10_000) {
      if (receiver.received.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${receiver.received.length} of ${n} requests`)),
          timeoutMs,
        );
        waiters.push({ n, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: Received['body'];
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = {} as Received['body'];
      }
      const entry: Received = { at: Date.now(), path: request.url ?? '', headers: request.headers, raw, body };
      receiver.received.push(entry);
      receiver.mostOpen = Math.max(receiver.mostOpen, ++receiver.open);
      response.on('close', () => receiver.open--);
      for (const w of [...waiters]) {
        if (receiver.received.length < w.n) continue;
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const decided = receiver.answer(entry);
      if (decided === 'hang') {
        hanging.add(response);
        response.on('close', () => hanging.delete(response));
        return;
      }
      const spec = typeof decided === 'number' ? { status: decided } : decided;
      const send = () => {
        if (response.destroyed) return;
        response.writeHead(spec.status, spec.headers);
        response.end(spec.body);
      };
      if (spec.delayMs) setTimeout(send, spec.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}
