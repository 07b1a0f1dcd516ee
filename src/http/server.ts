// The Fastify instance every route plugs into: request ids, the one error-to-HTTP mapping,
// 404/405 for unknown routes and methods, malformed and oversized input, security headers.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import FindMyWay from 'find-my-way';
import secureJson from 'secure-json-parse';
import type { Logger } from 'pino';
import { redactKeyParameters } from '../auth/index.js';
import { compilersFactory } from './compilers.js';
import { DISCARD_BOUNDS, Discarding, type DiscardBounds } from './discard.js';
import { ApiError, ERROR_STATUS, errorBody, INTERNAL_MESSAGE, type ErrorKind } from './errors.js';
import { formatSchemaErrors } from './validation.js';
import { requestStarted } from '../foreground.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route runs background work itself (the manual clock's move runs the jobs due): its own steps must not wait for it. */
    runsJobs?: boolean;
  }
}

export type HttpServer = FastifyInstance<
  import('node:http').Server,
  IncomingMessage,
  import('node:http').ServerResponse,
  Logger,
  TypeBoxTypeProvider
>;

/**
 * A plugin (an encapsulated scope) under a name. Fastify names a plugin registered without one by
 * searching the process's whole module cache for it (getPluginName): in the test suite's workers,
 * with thousands of modules loaded, 7 ms of each app build went there. The name also shows in
 * Fastify's plugin tree.
 */
export function named<Plugin extends (...args: never[]) => unknown>(name: string, plugin: Plugin): Plugin {
  return Object.assign(plugin, { [Symbol.for('fastify.display-name')]: name });
}

export interface HttpOptions {
  logger: Logger;
  bodyLimit: number;
  /**
   * Which peers' X-Forwarded-For/-Proto/-Host to believe (FLIGHTSTATUS_TRUST_PROXY): the proxies'
   * addresses and CIDR ranges. Unset or false: none, so `request.ip` is the TCP peer and a client
   * cannot choose the address that sign-up and sign-in limits count it under.
   */
  trustProxy?: false | string[];
  /** How much of a body answered before it arrived is read and thrown away (default DISCARD_BOUNDS; tests shorten it). */
  discard?: DiscardBounds;
}

/** An incoming X-Request-Id is kept when it looks like one (so a caller can correlate), else replaced. */
const REQUEST_ID_SHAPE = /^[A-Za-z0-9._:-]{8,64}$/;

const newRequestId = () => `req_${randomUUID().replace(/-/g, '')}`;

const REQUEST_ID = Symbol('flightstatus.requestId');
const REJECTED_BY_PARSER = Symbol('flightstatus.rejectedByParser');
type ParsedRequest = IncomingMessage & { [REQUEST_ID]?: string; [REJECTED_BY_PARSER]?: true };

/** The HTTP parser refused this request's body (a malformed chunk): it is answered 400 and never served. */
export function rejectedByParser(request: IncomingMessage): boolean {
  return (request as ParsedRequest)[REJECTED_BY_PARSER] === true;
}
const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

interface RequestLike {
  method?: string;
  url?: unknown;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** Fastify's request serializer, with key-carrying query parameters and tokens redacted from the URL. */
const requestForLog = (req: RequestLike) => ({
  method: req.method,
  url: typeof req.url === 'string' ? redactKeyParameters(req.url) : req.url,
  host: req.host,
  remoteAddress: req.ip,
  remotePort: req.socket?.remotePort,
});

export function createHttpServer(options: HttpOptions): HttpServer {
  const app = Fastify({
    // Every request's log lines go through this serializer, whatever logger the service was given.
    loggerInstance: options.logger.child({}, { serializers: { req: requestForLog } }),
    bodyLimit: options.bodyLimit,
    trustProxy: options.trustProxy ?? false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && REQUEST_ID_SHAPE.test(given) ? given : newRequestId();
      // Kept on the raw request too, for the parser's answer should its body turn out malformed.
      (req as ParsedRequest)[REQUEST_ID] = id;
      return id;
    },
    // Route parameters longer than this are refused rather than looked up.
    routerOptions: { maxParamLength: 200 },
    // A request already on an open connection when closing starts is served, not shed with
    // Fastify's own 503 body (which is not our envelope); its connection then closes.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    ajv: {
      customOptions: {
        // Bodies are JSON: a string is not a number and an unknown field is an error, not silence.
        coerceTypes: false,
        removeAdditional: false,
        allErrors: true,
        verbose: true,
      },
    },
    // Route schemas compiled once per process, not once per server (compilers.ts).
    schemaController: { compilersFactory },
    schemaErrorFormatter: (errors, dataVar) => new Error(formatSchemaErrors(errors, dataVar)),
    clientErrorHandler: (error, socket) => answerClientError(error, socket, options.logger),
    // URLs the router cannot even match (bad percent-encoding, a path parameter over the limit):
    // answered in the envelope with a request id, like everything else.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
        return sendError(reply, 'uri_too_long', 'A path segment of the URL is too long (at most 200 characters)');
      }
      if (error.code === 'FST_ERR_BAD_URL') {
        return sendError(reply, 'invalid_request', 'The URL path is not valid (bad percent-encoding)');
      }
      request.log.error({ err: error }, 'framework error');
      return sendError(reply, 'internal', INTERNAL_MESSAGE);
    },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as HttpServer;

  // Bodies are JSON or nothing: Fastify's built-in text/plain parser would hand a string to routes
  // without a body schema (a text/plain POST …/rotate succeeded); without it, any non-JSON body is
  // a 415 (docs/errors.md).
  app.removeContentTypeParser('text/plain');

  // JSON bodies: the same secure parser Fastify uses, but with messages that say what is wrong.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '')
      return done(new ApiError('invalid_request', 'Request body is empty; send a JSON object'), undefined);
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch (error) {
      const poisoned = /forbidden prototype/.test((error as Error).message);
      const message = poisoned
        ? 'Request body contains a forbidden key (__proto__ or constructor.prototype)'
        : `Request body is not valid JSON (${(error as Error).message})`;
      done(new ApiError('invalid_request', message), undefined);
    }
  });

  // Every route the app knows, to tell a wrong method (405) from an unknown path (404).
  const known = FindMyWay({ ignoreTrailingSlash: false });
  const allowed = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let set = allowed.get(route.url);
    if (!set) {
      set = new Set();
      allowed.set(route.url, set);
      known.on('GET', route.url, () => {}, { url: route.url });
    }
    for (const method of methods) set.add(method);
  });

  // Once closing, answers to in-flight requests also close their connection: a keep-alive socket
  // that turns idle after close() began would otherwise hold the server open until it times out.
  let closing = false;
  const discarding = new Discarding(options.discard ?? DISCARD_BOUNDS);
  app.addHook('preClose', async () => {
    closing = true;
    discarding.cutAll();
  });

  // The request id is logged with every line of the request (as reqId) and returned to the caller.
  app.addHook('onRequest', async (request, reply) => {
    // Background work in this process waits for the request's answer between its steps (foreground.ts).
    if (!request.routeOptions.config.runsJobs) requestStarted(reply.raw, request.raw.socket);
    reply.header('x-request-id', request.id);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    // Answered before the body arrived whole (too large, refused at the door): the rest is read and
    // thrown away, within bounds, instead of closing under a client still sending it (discard.ts).
    if (closing) reply.header('connection', 'close');
    else if (discarding.rest(request.raw)) reply.removeHeader('connection');
    reply.header('x-content-type-options', 'nosniff');
    // The route that matched decides, not the URL as written (`/%61pi/…` reaches an /api/ route).
    if ((request.routeOptions.url ?? request.url).startsWith('/api/')) reply.header('cache-control', 'no-store');
    return payload;
  });

  app.setNotFoundHandler((request, reply) => {
    // Echoed in the message, so cut short: a hostile URL must not become a large answer.
    const path = (request.url.split('?')[0] ?? '/').slice(0, 200);
    const match = known.find('GET', path);
    const url = (match?.store as { url?: string } | undefined)?.url;
    if (url !== undefined) {
      const methods = [...(allowed.get(url) ?? [])].filter((m) => (HTTP_METHODS as readonly string[]).includes(m));
      reply.header('allow', methods.join(', '));
      return sendError(
        reply,
        'method_not_allowed',
        `Method ${request.method} is not allowed on ${path}; use ${methods.join(', ')}`,
      );
    }
    return sendError(reply, 'not_found', `No route ${request.method} ${path}; see /api/v1/openapi.json for the API`);
  });

  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError) {
      reply.headers(error.headers);
      return sendError(reply, error.kind, error.message, error.extra);
    }
    // Each route's own limit (a batch upload's 4 MB, not the server's 64 KB default).
    const mapped = mapFrameworkError(error, request.routeOptions?.bodyLimit ?? options.bodyLimit);
    if (mapped) return sendError(reply, mapped.kind, mapped.message);
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, 'internal', INTERNAL_MESSAGE);
  });

  return app;
}

export function sendError(
  reply: FastifyReply,
  kind: ErrorKind,
  message: string,
  extra?: Record<string, unknown>,
): FastifyReply {
  return reply
    .code(ERROR_STATUS[kind])
    .type('application/json; charset=utf-8')
    .send(errorBody(kind, message, extra));
}

/** A byte count as people read it: 65536 bytes (64 KiB), 4194304 bytes (4 MiB). */
const bytes = (n: number) =>
  n >= 2 ** 20 && n % 2 ** 20 === 0
    ? `${n} bytes (${n / 2 ** 20} MiB)`
    : n >= 1024 && n % 1024 === 0
      ? `${n} bytes (${n / 1024} KiB)`
      : `${n} bytes`;

/** Framework errors caused by the request itself, in words a client can act on. */
function mapFrameworkError(error: FastifyError, bodyLimit: number): { kind: ErrorKind; message: string } | null {
  if (error.validation) return { kind: 'invalid_request', message: error.message };
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        kind: 'payload_too_large',
        message: `Request body is larger than this route's limit of ${bytes(bodyLimit)}`,
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { kind: 'unsupported_media_type', message: 'Unsupported Content-Type; send application/json' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { kind: 'invalid_request', message: 'Content-Length does not match the body' };
  }
  return null;
}

/**
 * Requests so malformed that no route sees them (bad HTTP syntax, headers or URL over the limit, a
 * malformed chunked body) still get the JSON envelope and a request id, then the connection closes.
 * A request whose body the parser rejected after its headers were routed is marked, so the guard
 * refuses it before authentication (no credit, no usage row). An answer already in flight on the
 * connection for an earlier request is let out first, so it reaches the client it was accounted to.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket, logger: Logger): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const connection = socket as Socket & {
    parser?: { incoming?: ParsedRequest | null } | null;
    _httpMessage?: ServerResponse | null;
    [ANSWERED]?: true;
  };
  if (connection[ANSWERED]) return;
  connection[ANSWERED] = true;
  const incoming = connection.parser?.incoming;
  const failed = incoming && !incoming.complete ? incoming : undefined;
  if (failed) failed[REJECTED_BY_PARSER] = true;
  const requestId = failed?.[REQUEST_ID] ?? newRequestId();
  logger.info({ reqId: requestId, code: error.code }, 'request rejected by the HTTP parser');

  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const kind: ErrorKind = tooLarge ? 'header_too_large' : 'invalid_request';
  const message = tooLarge
    ? 'Request line or headers are too large (the URL and headers together must stay under 16 KB)'
    : 'Malformed HTTP request';
  const body = JSON.stringify(errorBody(kind, message));
  const status = ERROR_STATUS[kind];
  const reason = tooLarge ? 'Request Header Fields Too Large' : 'Bad Request';
  const answer = () => {
    if (!socket.writable) return void socket.destroy();
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nX-Request-Id: ${requestId}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
  const inFlight = connection._httpMessage;
  if (!inFlight) return answer();
  if (inFlight.req === failed) {
    // The rejected request's own answer: ours replaces it, unless it has begun to leave.
    return inFlight.headersSent ? void socket.destroy() : answer();
  }
  // An earlier request's answer is on its way: it goes first, then ours.
  inFlight.once('finish', () => {
    const next = connection._httpMessage;
    if (next && next !== inFlight && next.headersSent) return void socket.end();
    answer();
  });
}

const ANSWERED = Symbol('flightstatus.answeredClientError');
