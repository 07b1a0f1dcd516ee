// The probe (spec 2.3, 4.4), the OpenAPI document and its rendering at /docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type } from 'typebox';
import type { HttpServer } from '../http/server.js';

export const SERVICE_NAME = 'flight-status-service';
export const API_VERSION = '1.0';

const HealthResponse = Type.Object(
  { ok: Type.Boolean(), service: Type.String() },
  { additionalProperties: false, description: 'The service is up' },
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

export async function systemRoutes(app: HttpServer): Promise<void> {
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
