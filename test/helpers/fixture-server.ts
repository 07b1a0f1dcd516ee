// A local HTTP server standing in for an outside provider: a test gives it a handler that answers in
// the provider's documented schema, and reads back every request it received (path, query, headers).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FixtureRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The request body as text (a form for OAuth2 token requests). */
  body: string;
}

export interface FixtureReply {
  status: number;
  headers?: Record<string, string>;
  /** A string is sent as it is (malformed JSON too); anything else as JSON. */
  body?: unknown;
  /** Hold the answer this long (a hang past the deadline). */
  delayMs?: number;
}

export interface FixtureServer {
  url: string;
  requests: FixtureRequest[];
  close(): Promise<void>;
}

export async function startFixtureServer(
  handle: (request: FixtureRequest) => FixtureReply | Promise<FixtureReply>,
): Promise<FixtureServer> {
  const requests: FixtureRequest[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    const request: FixtureRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: '',
    };
    requests.push(request);
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (request.body += chunk));
    req.on('end', async () => {
      const reply = await handle(request);
      const send = () => {
        if (res.destroyed) return;
        const body =
          reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
        res.writeHead(reply.status, { ...(body ? { 'content-type': 'application/json' } : {}), ...reply.headers });
        res.end(body);
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
