// A body over its limit reaches its client as a 413, even while the client is still sending it:
// the server answers, then reads and throws away the rest (within bounds) instead of closing under
// the client, whose kernel would otherwise answer the unread bytes with a reset that can erase the
// answer before it is read (src/http/discard.ts). Tested with Node's own fetch (undici) against the
// built service as a process of its own, as a client meets it (in one process the client reads in
// time and the race does not show); the bounds against a server of our own on a real port.
import { connect, type Socket } from 'node:net';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer, type HttpServer } from '../src/http/server.js';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from './helpers/databases.js';
import { runCli, startService, type ServiceProcess } from './helpers/process.js';

const MB = 1024 * 1024;
const ADMIN = 'oversized-bodies-admin-token-0123';
const LIMIT = 65536; // FLIGHTSTATUS_BODY_LIMIT's default
/** A 2 MB JSON body, as a client would post it to create an account. */
const BIG_JSON = JSON.stringify({ slug: 'acme', name: 'x'.repeat(2 * MB) });

interface Answer {
  status: number;
  type: string | null;
  text: string;
}

/** The answer, or the network error a client would see instead (status 0). */
async function post(
  url: string,
  body: string | ReadableStream<Uint8Array>,
  headers: Record<string, string>,
): Promise<Answer> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body,
      ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
    } as RequestInit);
    return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
  } catch (error) {
    const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
    return { status: 0, type: null, text: `${(error as Error).message}: ${cause?.code ?? cause?.message ?? ''}` };
  }
}

/** `count` answers, one after the other or all at once. */
async function many(count: number, concurrent: boolean, send: () => Promise<Answer>): Promise<Answer[]> {
  if (concurrent) return Promise.all(Array.from({ length: count }, send));
  const answers: Answer[] = [];
  for (let i = 0; i < count; i++) answers.push(await send());
  return answers;
}

/** A chunked body of about `size` bytes of JSON, written as it is read (no Content-Length). */
function streamedJson(size: number): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const chunk = encoder.encode('x'.repeat(64 * 1024));
  let sent = -1;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === -1) {
        sent = 0;
        return controller.enqueue(encoder.encode('{"slug":"acme","name":"'));
      }
      if (sent >= size) {
        controller.enqueue(encoder.encode('"}'));
        return controller.close();
      }
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
}

const notRefused = (answers: Answer[]) =>
  answers.filter((a) => a.status !== 413).map((a) => `${a.status} ${a.text.slice(0, 100)}`);

describeEachDatabase('oversized bodies reach their client as a 413', (kind) => {
  let database: TestDatabase;
  let service: ServiceProcess;
  let key: string;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    service = await startService({ DATABASE_URL: database.url, LOG_LEVEL: 'warn', FLIGHTSTATUS_ADMIN_TOKEN: ADMIN });
    const cli = async (...args: string[]) => {
      const result = await runCli(args, { DATABASE_URL: database.url });
      expect(result.code, result.stdout + result.stderr).toBe(0);
      return JSON.parse(result.stdout).data;
    };
    await cli('accounts', 'create', '--slug', 'uploader', '--included', '100');
    key = (await cli('keys', 'create', '--account', 'uploader', '--name', 'upload')).key;
  });
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
  const envelope = {
    success: false,
    code: 'payload_too_large',
    message: `Request body is larger than this route's limit of ${LIMIT} bytes (64 KiB)`,
  };

  for (const concurrent of [false, true]) {
    it(`answers twenty 2 MB JSON posts ${concurrent ? 'sent at once' : 'in a row'} with the 413 envelope (Content-Length declared)`, async () => {
      const answers = await many(20, concurrent, () => post(`${service.url}/api/admin/v1/accounts`, BIG_JSON, admin));
      expect(notRefused(answers)).toEqual([]);
      for (const answer of answers) {
        expect(answer.type).toMatch(/^application\/json/);
        expect(JSON.parse(answer.text)).toEqual(envelope);
      }
    });

    it(`answers twenty chunked 2 MB posts ${concurrent ? 'sent at once' : 'in a row'} with the 413 envelope (refused while streaming)`, async () => {
      const answers = await many(20, concurrent, () =>
        post(`${service.url}/api/admin/v1/accounts`, streamedJson(2 * MB), admin),
      );
      expect(notRefused(answers)).toEqual([]);
      for (const answer of answers) expect(JSON.parse(answer.text)).toEqual(envelope);
    });
  }

  it('answers bodies over the other limits with a 413 too: a batch over 4 MB, a dashboard form over 32 KB', async () => {
    const csv = `flightNumber,flightDate\n${'W63101,2026-02-20\n'.repeat(Math.ceil((6 * MB) / 18))}`;
    const batches = await many(10, false, () =>
      post(`${service.url}/api/v1/batches`, csv, { authorization: `Bearer ${key}`, 'content-type': 'text/csv' }),
    );
    expect(notRefused(batches)).toEqual([]);
    // Each route's message names its own limit: a batch's 4 MiB, not the server's 64 KiB.
    for (const answer of batches)
      expect(JSON.parse(answer.text)).toEqual({
        success: false,
        code: 'payload_too_large',
        message: "Request body is larger than this route's limit of 4194304 bytes (4 MiB)",
      });
    const asJson = await many(10, true, () =>
      post(`${service.url}/api/v1/batches`, JSON.stringify({ rows: [], padding: 'x'.repeat(6 * MB) }), {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
      }),
    );
    expect(notRefused(asJson)).toEqual([]);

    const form = `email=a%40example.com&password=${'x'.repeat(2 * MB)}`;
    const forms = await many(10, true, () =>
      post(`${service.url}/dashboard/sign-in`, form, { 'content-type': 'application/x-www-form-urlencoded' }),
    );
    expect(notRefused(forms)).toEqual([]);
    for (const answer of forms) {
      expect(answer.type).toMatch(/^text\/html/);
      expect(answer.text).toContain('The form is larger than 32 KB');
    }
  });

  it('still serves afterwards, and created nothing', async () => {
    const list = await fetch(`${service.url}/api/admin/v1/accounts`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(list.status).toBe(200);
    expect(
      ((await list.json()) as { data: { accounts: { slug: string }[] } }).data.accounts.map((a) => a.slug),
    ).toEqual(['uploader']);
    expect(service.output().stdout).not.toMatch(/"level":(50|60)/);
  });
});

describe('the rest of a refused body is read within bounds', () => {
  const BOUNDS = { bytes: 1 * MB, totalMs: 1500, idleMs: 600 };
  let app: HttpServer;
  let port: number;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    app = createHttpServer({ logger: pino({ level: 'silent' }), bodyLimit: 1024, discard: BOUNDS });
    app.post('/echo', async (request) => ({ success: true, data: request.body }));
    app.get('/ping', async () => ({ success: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  afterEach(() => sockets.splice(0).forEach((s) => s.destroy()));
  afterAll(async () => app?.close());

  /** A raw client: what it received, when the server closed it, and how many bytes it wrote. */
  function rawClient() {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    const state = { received: '', closedAt: 0, written: 0 };
    socket.on('data', (chunk) => (state.received += chunk.toString('latin1')));
    socket.on('error', () => {});
    const closed = new Promise<void>((resolve) =>
      socket.once('close', () => resolve(void (state.closedAt = Date.now()))),
    );
    const write = (data: string | Buffer) => {
      if (socket.destroyed) return false;
      state.written += Buffer.byteLength(data);
      return socket.write(data);
    };
    return { socket, state, closed, write };
  }
  const HEADERS = (length: number | 'chunked') =>
    `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`}\r\n\r\n`;

  it('reads an honest oversized body to its end and keeps the connection for the next request', async () => {
    const client = rawClient();
    client.write(HEADERS(512 * 1024));
    client.write(Buffer.alloc(512 * 1024, 0x20));
    client.write('GET /ping HTTP/1.1\r\nHost: x\r\n\r\n');
    await expect
      .poll(() => client.state.received, { timeout: 5000 })
      .toMatch(/HTTP\/1\.1 413[\s\S]*HTTP\/1\.1 200[\s\S]*"success":true/);
    expect(client.state.received).toContain('"code":"payload_too_large"');
    expect(client.socket.destroyed).toBe(false);
  });

  it('cuts off a sender that goes on past the byte bound, after answering it', async () => {
    const client = rawClient();
    const started = Date.now();
    client.write(HEADERS(1024 ** 3));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = () => {
      while (client.write(chunk));
      if (!client.socket.destroyed) client.socket.once('drain', pump);
    };
    pump();
    await client.closed;
    expect(client.state.received).toMatch(/^HTTP\/1\.1 413/);
    // Read up to the bound, plus what the two sockets' buffers held when it was cut.
    expect(client.state.written).toBeGreaterThan(BOUNDS.bytes);
    expect(client.state.written).toBeLessThan(BOUNDS.bytes + 16 * MB);
    expect(client.state.closedAt - started).toBeLessThan(BOUNDS.totalMs); // cut by bytes, not by time
  });

  it('cuts off a slow sender at the time bound, and serves others meanwhile', async () => {
    const client = rawClient();
    const started = Date.now();
    client.write(HEADERS('chunked'));
    client.write(`800\r\n${' '.repeat(0x800)}\r\n`); // over the limit of 1024: refused while streaming
    const trickle = setInterval(() => client.write(`40\r\n${' '.repeat(0x40)}\r\n`), 100);
    try {
      await expect.poll(() => client.state.received).toMatch(/^HTTP\/1\.1 413/);
      // Others are served while the trickle goes on.
      for (let i = 0; i < 5; i++) {
        const ping = await fetch(`http://127.0.0.1:${port}/ping`);
        expect(ping.status).toBe(200);
      }
      expect(client.socket.destroyed).toBe(false);
      await client.closed;
    } finally {
      clearInterval(trickle);
    }
    const took = client.state.closedAt - started;
    expect(took).toBeGreaterThanOrEqual(BOUNDS.totalMs - 100);
    expect(took).toBeLessThan(BOUNDS.totalMs + 2000);
  });

  it('cuts off a sender that goes quiet before the end of its body, at the idle bound', async () => {
    const client = rawClient();
    const started = Date.now();
    client.write(HEADERS(10 * 1024));
    client.write(Buffer.alloc(4 * 1024, 0x20)); // declared over the limit: answered at once
    await client.closed;
    expect(client.state.received).toMatch(/^HTTP\/1\.1 413/);
    const took = client.state.closedAt - started;
    expect(took).toBeGreaterThanOrEqual(BOUNDS.idleMs - 100);
    expect(took).toBeLessThan(BOUNDS.totalMs);
  });

  it('cuts off what is still being read when the server closes', async () => {
    const other = createHttpServer({ logger: pino({ level: 'silent' }), bodyLimit: 1024 });
    other.post('/echo', async () => ({ success: true }));
    await other.listen({ port: 0, host: '127.0.0.1' });
    const socket = connect((other.server.address() as { port: number }).port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', () => {});
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(HEADERS(10 * MB));
    socket.write(Buffer.alloc(64 * 1024, 0x20));
    await expect.poll(() => received).toMatch(/^HTTP\/1\.1 413/);
    const started = Date.now();
    await other.close(); // the default bounds would wait 30 s
    await closed;
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
