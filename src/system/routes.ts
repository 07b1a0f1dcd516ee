// The probe (docs/operator.md, "Probes"), the OpenAPI document and its rendering at /docs.
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type } from 'typebox';
import type { Readiness } from '../db/index.js';
import type { HttpServer } from '../http/server.js';
import { TAGS, transformDocument, transformRoute } from '../http/openapi.js';
import { LOGO_SVG } from '../brand.js';
import { FAVICON_ICO } from '../brand-icon.js';

export const SERVICE_NAME = 'flight-status-service';
export const API_VERSION = '1.0';

const HealthResponse = Type.Object(
  { ok: Type.Boolean(), service: Type.String() },
  { additionalProperties: false, title: 'Health', description: 'The service is up' },
);

export interface SystemOptions {
  /** FLIGHTSTATUS_PUBLIC_URL: the document's server, and whether /docs asks for https. */
  publicUrl: string | null;
  /** The database's answer to the readiness probe. */
  readiness: () => Promise<Readiness>;
  /** Serve the API description (/api/v1/openapi.json, /docs); a worker process does not. Default true. */
  documents?: boolean;
}

const READY_REASONS = {
  unreachable: 'the database cannot be reached',
  not_writable: 'the database cannot be written',
  migrations_pending: 'the database lacks migrations this version needs',
} as const;

const ReadyResponse = (description: string) =>
  Type.Object(
    {
      ok: Type.Boolean(),
      service: Type.String(),
      reason: Type.Optional(
        Type.Union([Type.Literal('unreachable'), Type.Literal('not_writable'), Type.Literal('migrations_pending')]),
      ),
      message: Type.Optional(Type.String()),
    },
    { additionalProperties: false, description },
  );

/** Registers @fastify/swagger; must run before the routes it documents are added. */
export async function registerOpenApi(app: HttpServer, options: Pick<SystemOptions, 'publicUrl'>): Promise<void> {
  await app.register(swagger, {
    transform: transformRoute as never,
    transformObject: ((document: { openapiObject: Record<string, unknown> }) =>
      transformDocument(document.openapiObject)) as never,
    openapi: {
      openapi: '3.1.0',
      servers: [
        options.publicUrl
          ? { url: options.publicUrl, description: 'This deployment' }
          : { url: '/', description: 'The host that served this document' },
      ],
      info: {
        title: 'Flight Status Service',
        version: API_VERSION,
        description:
          'What really happened to a flight: a settled, explained verdict for a past flight, metered per lookup. ' +
          'Every response is JSON with a boolean `success` (the health probe answers `ok` and `service`).',
      },
      tags: TAGS,
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer flt_… (preferred)' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
          legacyApiKey: { type: 'apiKey', in: 'header', name: 'X-Service-Api-Key', description: 'Legacy alias' },
        },
      },
    },
  });
}

const OpenApiDocument = Type.Object(
  { openapi: Type.String({ description: 'OpenAPI version, 3.1.x' }) },
  { additionalProperties: true, description: 'The OpenAPI 3.1 document of this API' },
);

export async function systemRoutes(app: HttpServer, options: SystemOptions): Promise<void> {
  app.get(
    '/api/health',
    {
      config: { access: 'public' },
      // Probes come every few seconds: their requests are not logged at info (docs/deploy.md).
      logLevel: 'warn',
      schema: {
        summary: 'Liveness probe',
        description: 'No credential; answers at once without touching the database.',
        tags: ['system'],
        response: { 200: HealthResponse },
      },
    },
    async () => ({ ok: true, service: SERVICE_NAME }),
  );

  app.get(
    '/api/ready',
    {
      config: { access: 'public' },
      logLevel: 'warn',
      schema: {
        summary: 'Readiness probe',
        description:
          'No credential. 200 when the database is reachable, takes a write and has every migration this version ' +
          'needs; 503 otherwise, with `reason` (`unreachable`, `not_writable`, `migrations_pending`). Same shape as the health probe.',
        tags: ['system'],
        response: {
          200: ReadyResponse('Ready to serve'),
          503: ReadyResponse('Not ready: `reason` says why (details in the service log)'),
        },
      },
    },
    async (request, reply) => {
      const ready = await options.readiness();
      if (ready.ok) return { ok: true, service: SERVICE_NAME };
      // The database's own words (paths, hosts) go to the log, not to an unauthenticated caller.
      request.log.warn({ reason: ready.reason, detail: ready.detail }, 'not ready');
      return reply
        .code(503)
        .send({ ok: false, service: SERVICE_NAME, reason: ready.reason, message: READY_REASONS[ready.reason] });
    },
  );

  if (options.documents === false) return;
  // Browsers ask for it on every site: the mark, not a JSON 404 in the console and the log.
  app.get(
    '/favicon.ico',
    { config: { access: 'public' }, logLevel: 'warn', schema: { hide: true } },
    async (_request, reply) =>
      reply.type('image/x-icon').header('cache-control', 'public, max-age=86400').send(FAVICON_ICO),
  );
  app.get(
    '/api/v1/openapi.json',
    {
      config: { access: 'public' },
      compress: false,
      schema: {
        summary: 'This API description (OpenAPI 3.1)',
        description: 'No credential. Compressed (br or gzip) when the client accepts it.',
        tags: ['system'],
        response: { 200: OpenApiDocument },
      },
    },
    // Built and compressed once, on the first request (every route is known by then): brotli 9
    // takes the 110 KB to 7.4 KB in ~60 ms, which per request would cost far more than the rest.
    async (request, reply) => {
      document ??= encodeDocument(JSON.stringify(app.swagger()));
      const encoding = preferredEncoding(request.headers['accept-encoding']);
      reply.type('application/json; charset=utf-8').header('vary', 'accept-encoding');
      if (encoding === 'identity') return reply.send(document.identity as never);
      return reply.header('content-encoding', encoding).send(document[encoding] as never);
    },
  );
  let document: ReturnType<typeof encodeDocument> | undefined;

  const logo = Buffer.from(LOGO_SVG);
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
    logo: { type: 'image/svg+xml', content: logo, href: '/docs', target: '_self' },
    theme: {
      title: 'Flight Status Service API',
      favicon: [{ filename: 'logo.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: logo }],
      css: [{ filename: 'brand.css', content: DOCS_CSS }],
    },
    staticCSP: true,
    // The default policy ends in upgrade-insecure-requests: a browser on http://192.168.x.y:8080
    // then fetches the page's scripts over https, gets nothing and renders a blank page. Only a
    // deployment whose public URL is https asks for the upgrade.
    transformStaticCSP: (header) => docsCsp(header, options.publicUrl),
  });
}

/** The service's name beside its mark in the /docs top bar (the bar is dark). */
const DOCS_CSS = `.swagger-ui .topbar .topbar-wrapper a.link::after{content:'Flight Status Service API';color:#fff;font:700 1.1rem system-ui,sans-serif;margin-left:.75rem}`;

/**
 * The /docs Content-Security-Policy for the configured public URL. Swagger UI's React components
 * set inline styles, so style-src allows them (scripts stay 'self' only); without it every load
 * logs a violation and some panels lose their layout.
 */
export function docsCsp(header: string, publicUrl: string | null): string {
  const secure = publicUrl?.startsWith('https:') ?? false;
  const directives = header
    .split(';')
    .map((d) => d.trim())
    .filter((d) => d !== '' && (secure || d !== 'upgrade-insecure-requests'))
    .map((d) => (/^style-src\s/.test(d) && !d.includes("'unsafe-inline'") ? `${d} 'unsafe-inline'` : d));
  return `${directives.join('; ')};`;
}

function encodeDocument(text: string): { identity: string; br: Buffer; gzip: Buffer } {
  return {
    identity: text,
    br: brotliCompressSync(text, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }),
    gzip: gzipSync(text, { level: constants.Z_BEST_COMPRESSION }),
  };
}

/** br, else gzip, else the identity, as the client's Accept-Encoding allows (a q of 0 refuses). */
export function preferredEncoding(header: string | undefined): 'br' | 'gzip' | 'identity' {
  const accepted = new Map<string, number>();
  for (const part of (header ?? '').toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
    accepted.set(name.trim(), q ? Number(q[1]) : 1);
  }
  const quality = (name: string) => accepted.get(name) ?? accepted.get('*') ?? 0;
  const best = (['br', 'gzip'] as const).filter((name) => quality(name) > 0).sort((a, b) => quality(b) - quality(a))[0];
  return best ?? 'identity';
}
