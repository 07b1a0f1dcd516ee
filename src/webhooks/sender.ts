// One HTTP attempt of a delivery (docs/webhooks.md, "Delivery rules"): POST the exact bytes, succeed on any 2xx within the
// timeout, never follow a redirect, read at most a few kilobytes of the answer and discard them.
// Connections go only to public addresses (targets.ts), checked in the socket's DNS lookup and once
// more on the connected socket. Node's own http/https clients are used because they let the lookup
// be replaced per request; keep-alive agents reuse connections to busy receivers.
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { systemClock, type Clock } from '../clock.js';
import { retryAfterMs } from '../retry-after.js';
import {
  blockedAddress,
  checkTargetSyntax,
  guardedLookup,
  TargetRefusedError,
  type Resolver,
  type TargetPolicy,
} from './targets.js';

/** Largest part of a receiver's answer that is read (the rest is dropped with the connection). */
export const MAX_RESPONSE_BYTES = 4096;
/** How much of a failing answer's body is kept as the delivery's last error. */
const ERROR_EXCERPT = 200;

export interface Attempt {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export interface AttemptOutcome {
  ok: boolean;
  /** The receiver's status code, when it answered. */
  status: number | null;
  /** Why the attempt failed, in a sentence (null on success). */
  error: string | null;
  durationMs: number;
  /**
   * How long the receiver asked to be left alone (its `Retry-After` on a 429 or 503, in seconds or as
   * an HTTP date), in milliseconds; null when it asked nothing or the header does not parse.
   */
  retryAfterMs: number | null;
}

export interface SenderOptions {
  policy: TargetPolicy;
  timeoutMs: number;
  /** Sockets per receiver host kept open and used at once. */
  socketsPerHost: number;
  resolve?: Resolver;
  /** Real time, for a Retry-After given as an HTTP date (default: the system clock). */
  wallClock?: Clock;
}

export class Sender {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;
  private readonly lookup;

  constructor(private readonly options: SenderOptions) {
    this.lookup = guardedLookup(options.policy, options.resolve);
    const agentOptions = {
      keepAlive: true,
      maxSockets: options.socketsPerHost,
      maxFreeSockets: options.socketsPerHost,
      scheduling: 'lifo' as const,
    };
    this.httpAgent = new http.Agent(agentOptions);
    this.httpsAgent = new https.Agent(agentOptions);
  }

  send(attempt: Attempt): Promise<AttemptOutcome> {
    const started = performance.now();
    const done = (
      ok: boolean,
      status: number | null,
      error: string | null,
      asked: number | null = null,
    ): AttemptOutcome => ({
      ok,
      status,
      error,
      durationMs: Math.round(performance.now() - started),
      retryAfterMs: asked,
    });
    // The registration's rules again (scheme, and hosts written as addresses); names are checked
    // in the lookup below, on the address actually connected to.
    const target = checkTargetSyntax(attempt.url, this.options.policy);
    if (!target.ok) return Promise.resolve(done(false, null, `refused: ${target.message}`));
    const url = target.url;
    const secure = url.protocol === 'https:';

    return new Promise((resolve) => {
      let settled = false;
      const finish = (outcome: AttemptOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const request = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        lookup: this.lookup,
        headers: { ...attempt.headers, 'content-length': Buffer.byteLength(attempt.body) },
      });
      const timer = setTimeout(() => {
        request.destroy();
        finish(done(false, null, `no answer within ${this.options.timeoutMs / 1000} s`));
      }, this.options.timeoutMs);

      request.on('socket', (socket: Socket) => {
        const check = () => {
          const remote = socket.remoteAddress;
          if (this.options.policy.allowPrivate || !remote) return;
          const reason = blockedAddress(remote);
          if (reason) request.destroy(new TargetRefusedError(`connected to ${remote}, a ${reason}`));
        };
        if (socket.remoteAddress) check();
        else socket.once('connect', check);
      });
      request.on('error', (error: NodeJS.ErrnoException) => finish(done(false, null, describeError(error))));
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          // Success is decided by the status line; the body is drained (or dropped) on the side.
          finish(done(true, status, null));
          discard(response);
          return;
        }
        const chunks: Buffer[] = [];
        let received = 0;
        const complete = () => {
          // NUL as its visible stand-in ␀ (as pages show it): PostgreSQL text cannot hold U+0000, and
          // storing the attempt failed (a test send answered 500). Pages escape the other controls.
          const excerpt = Buffer.concat(chunks)
            .toString('utf8')
            .replace(/\s+/g, ' ')
            .replaceAll('\u0000', '\u2400')
            .trim()
            .slice(0, ERROR_EXCERPT);
          const what =
            status >= 300 && status < 400
              ? `redirect ${status} not followed${response.headers.location ? ` (Location: ${String(response.headers.location).slice(0, 200)})` : ''}`
              : `receiver answered ${status}`;
          const asked =
            status === 429 || status === 503
              ? retryAfterMs(response.headers['retry-after'], (this.options.wallClock ?? systemClock).now())
              : null;
          finish(done(false, status, excerpt ? `${what}: ${excerpt}` : what, asked));
        };
        response.on('data', (chunk: Buffer) => {
          const room = MAX_RESPONSE_BYTES - received;
          received += chunk.length;
          if (room > 0) chunks.push(chunk.subarray(0, room));
          if (received >= MAX_RESPONSE_BYTES) {
            response.destroy();
            complete();
          }
        });
        response.on('end', complete);
        response.on('close', complete);
      });
      request.end(attempt.body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

/** Reads and drops a successful answer's body: a few kilobytes at most, for at most a second. */
function discard(response: http.IncomingMessage): void {
  let received = 0;
  const drop = setTimeout(() => response.destroy(), 1000);
  drop.unref();
  response.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > MAX_RESPONSE_BYTES) response.destroy();
  });
  response.on('close', () => clearTimeout(drop));
  response.on('error', () => {});
}

function describeError(error: NodeJS.ErrnoException): string {
  if (error instanceof TargetRefusedError) return `refused: ${error.message}`;
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset by the receiver';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host not found (${error.code})`;
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'receiver unreachable';
    default:
      return error.code ? `${error.code}: ${error.message}` : error.message;
  }
}
