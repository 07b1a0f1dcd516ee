// The probe (spec 2.3, 4.4), the OpenAPI document and its rendering at /docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type } from 'typebox';
import type { Readiness } from '../db/index.js';
import type { HttpServer } from '../http/server.js';

export const SERVICE_NAME = 'flight-status-service';
export const API_VERSION = '1.0';

const HealthResponse = Type.Object(
  { ok: Type.Boolean(), service: Type.String() },
  { additionalProperties: false, description: 'The service is up' },
);

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
      reason: Type.Optional(Type.Union([Type.Literal('unreachable'), Type.Literal('not_writable'), Type.Literal('migrations_pending')])),
      message: Type.Optional(Type.String()),
    },
    { additionalProperties: false, description },
  );

/** Registers @fastify/swagger; must run before the routes it documents are added. */
export async function registerOpenApi(app: HttpServer): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Flight Status Service',
        version: API_VERSION,
        description:
          'What really happened to a flight: a settled, explained verdict for a past flight, metered per lookup. ' +
          'Every response is JSON with a boolean `success` (the health probe answers `ok` and `service`).',
      },
      tags: [
        { name: 'flights', description: 'The flight lookup (metered)' },
        { name: 'account', description: 'The credential and its credit position' },
        { name: 'airports', description: 'The watched airport catalogue' },
        { name: 'compensation', description: 'EU261 / UK261 assessment (free)' },
        { name: 'system', description: 'Probe and API description' },
      ],
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

export async function systemRoutes(app: HttpServer, deps: { readiness: () => Promise<Readiness> }): Promise<void> {
  app.get(
    '/api/health',
    {
      config: { access: 'public' },
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
      const ready = await deps.readiness();
      if (ready.ok) return { ok: true, service: SERVICE_NAME };
      // The database's own words (paths, hosts) go to the log, not to an unauthenticated caller.
      request.log.warn({ reason: ready.reason, detail: ready.detail }, 'not ready');
      return reply.code(503).send({ ok: false, service: SERVICE_NAME, reason: ready.reason, message: READY_REASONS[ready.reason] });
    },
  );

  app.get(
    '/api/v1/openapi.json',
    {
      config: { access: 'public' },
      schema: { summary: 'This API description (OpenAPI 3)', tags: ['system'] },
    },
    async (_request, reply) => reply.type('application/json; charset=utf-8').send(app.swagger()),
  );

  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
    staticCSP: true,
  });
}
