// What the OpenAPI document says beyond each route's own schema, decided in one place so that
// generated clients (openapi-typescript, @hey-api/openapi-ts) and linters (Redocly, Spectral) get
// the same answers for every route:
//   - an operationId per operation, and `security` from the route's access (public routes: none);
//   - every error status the route can really answer, from what the route is (keyed, metered, with
//     a path parameter, with a body), each with the `code` it carries;
//   - schemas with a `title` hoisted into components.schemas and referenced by $ref, so clients get
//     importable types (Account, FlightStatus, Webhook, Delivery, Compensation, Error, …);
//   - `servers`: the configured public URL, or the relative `/`.
// Routes keep declaring what only they know (their body, query and success schema).
import type { FastifySchema, RouteOptions } from 'fastify';
import { ERROR_STATUS, type ErrorKind } from './errors.js';
import { errors, type ErrorStatus } from './schemas.js';

export const KEY_SECURITY: { [scheme: string]: string[] }[] = [{ bearer: [] }, { apiKey: [] }, { legacyApiKey: [] }];

/** Names a generated client exposes as functions; a route missing here gets one derived from its path. */
const OPERATION_IDS: Record<string, string> = {
  'GET /api/health': 'getHealth',
  'GET /api/v1/openapi.json': 'getOpenApiDocument',
  'GET /api/v1/account': 'getAccount',
  'GET /api/v1/airports': 'listAirports',
  'GET /api/v1/flights/status': 'getFlightStatus',
  'GET /api/v1/flights/evidence': 'getFlightEvidence',
  'GET /api/v1/evidence/key': 'getEvidenceKey',
  'GET /api/v1/compensation': 'assessCompensation',
  'POST /api/v1/webhooks': 'createWebhook',
  'GET /api/v1/webhooks': 'listWebhooks',
  'GET /api/v1/webhooks/:id': 'getWebhook',
  'PATCH /api/v1/webhooks/:id': 'updateWebhook',
  'DELETE /api/v1/webhooks/:id': 'deleteWebhook',
  'POST /api/v1/webhooks/:id/rotate': 'rotateWebhookSecret',
  'POST /api/v1/webhooks/:id/test': 'sendWebhookTest',
  'POST /api/v1/webhooks/:id/enable': 'enableWebhook',
  'POST /api/v1/webhooks/:id/disable': 'disableWebhook',
  'GET /api/v1/webhooks/:id/deliveries': 'listWebhookDeliveries',
  'POST /api/v1/webhooks/:id/deliveries/resend': 'resendWebhookDeliveries',
  'POST /api/v1/webhooks/:id/deliveries/:delivery/resend': 'resendWebhookDelivery',
  'POST /api/v1/watches': 'createWatches',
  'GET /api/v1/watches': 'listWatches',
  'GET /api/v1/watches/:id': 'getWatch',
  'DELETE /api/v1/watches/:id': 'stopWatch',
};

export const TAGS = [
  { name: 'flights', description: 'The flight lookup (metered)' },
  { name: 'account', description: 'The credential and its credit position' },
  { name: 'airports', description: 'The watched airport catalogue' },
  { name: 'compensation', description: 'EU261 / UK261 assessment (free)' },
  { name: 'webhooks', description: 'Webhook endpoints of the account, their secrets and deliveries (free)' },
  {
    name: 'evidence',
    description:
      'Signed evidence PDFs of flights (metered like a lookup) and the public key that checks them (open to anyone)',
  },
  { name: 'batches', description: 'Batches of flights checked at once: one credit per row as it is resolved' },
  {
    name: 'watches',
    description: "Flights watched for the account's webhook endpoints: one credit per watch, at creation",
  },
  { name: 'billing', description: "The account's invoices, as JSON, HTML and PDF (free; readable while past due)" },
  { name: 'system', description: 'Probe and API description' },
];

/** The error codes each status carries (the one mapping of errors.ts, read backwards). */
function codesOf(status: number): ErrorKind[] {
  return (Object.keys(ERROR_STATUS) as ErrorKind[]).filter((kind) => ERROR_STATUS[kind] === status);
}

export function operationIdOf(method: string, url: string): string {
  const named = OPERATION_IDS[`${method} ${url}`];
  if (named) return named;
  const words = url
    .replace(/^\/api\/(v1\/)?/, '')
    .split(/[/.]/)
    .filter(Boolean)
    .map((part) => (part.startsWith(':') ? `by-${part.slice(1)}` : part))
    .flatMap((part) => part.split(/[-_]/));
  return [method.toLowerCase(), ...words.map((w) => w.charAt(0).toUpperCase() + w.slice(1))].join('');
}

type Route = Pick<RouteOptions, 'method' | 'url' | 'config'> & { schema?: FastifySchema };

/** The error statuses a route can answer, beyond those its schema declares. */
export function routeErrorStatuses(method: string, route: Route): ErrorStatus[] {
  const access = (route.config as { access?: string } | undefined)?.access ?? 'public';
  const statuses = new Set<ErrorStatus>();
  if (access !== 'public') [401, 402, 403, 500].forEach((s) => statuses.add(s as ErrorStatus));
  if (access === 'metered') [400, 429].forEach((s) => statuses.add(s as ErrorStatus));
  if (/\/:\w/.test(route.url)) {
    // A path parameter: over its length (400 from the schema), over the router's limit (414), unknown (404).
    [400, 404, 414].forEach((s) => statuses.add(s as ErrorStatus));
  }
  if (route.schema?.querystring) statuses.add(400);
  if (method === 'POST' || method === 'PATCH' || method === 'PUT') {
    // A body that is not JSON (415), too large (413) or malformed (400); a reused Idempotency-Key (409).
    [400, 413, 415].forEach((s) => statuses.add(s as ErrorStatus));
    if (method === 'POST' && access !== 'public') statuses.add(409);
  }
  return [...statuses].sort();
}

/** @fastify/swagger's per-route transform: operationId, security, every error status. */
export function transformRoute({ schema, url, route }: { schema?: FastifySchema; url: string; route: Route }): {
  schema?: FastifySchema;
  url: string;
} {
  if (!schema || (schema as { hide?: boolean }).hide) return { schema, url };
  const method = (Array.isArray(route.method) ? route.method[0] : route.method) as string;
  const access = (route.config as { access?: string } | undefined)?.access ?? 'public';
  const declared = (schema.response ?? {}) as Record<string, unknown>;
  const missing = routeErrorStatuses(method, route).filter((status) => !(status in declared));
  const extra: FastifySchema = {};
  let response: Record<string, unknown> = declared;
  if (method === 'POST' && access !== 'public') {
    // Successes (and the refusals a handler answers, e.g. 404) may be replays of a first answer.
    response = Object.fromEntries(
      Object.entries(declared).map(([status, schema]) => [
        status,
        Number(status) < 300
          ? {
              ...(schema as object),
              headers: { ...(schema as { headers?: object }).headers, 'Idempotent-Replayed': REPLAYED_HEADER_DOC },
            }
          : schema,
      ]),
    );
    extra.headers = {
      type: 'object',
      properties: {
        'Idempotency-Key': {
          type: 'string',
          minLength: 1,
          maxLength: 255,
          description:
            'Makes a retry safe: the same key and body within 24 hours answers the first response again (with Idempotent-Replayed: true); the same key with another body is a 409. Keys are scoped per account.',
        },
      },
    };
  }
  return {
    url,
    schema: {
      ...schema,
      ...extra,
      operationId: (schema as { operationId?: string }).operationId ?? operationIdOf(method, route.url),
      security: access === 'public' ? [] : ((schema as { security?: unknown }).security ?? KEY_SECURITY),
      response: { ...response, ...errors(...missing) },
    } as FastifySchema,
  };
}

const REPLAYED_HEADER_DOC = {
  type: 'string',
  enum: ['true'],
  description: 'Present on a replay: this is the stored first answer to the same Idempotency-Key and request',
};

type Json = Record<string, unknown>;

/**
 * @fastify/swagger's whole-document transform: titled schemas become components referenced by $ref,
 * error responses name the codes they carry. Throws when two schemas share a title but not a shape,
 * so a name always means one type.
 */
export function transformDocument(document: Json): Json {
  const doc = structuredClone(document);
  const components = ((doc.components as Json).schemas ??= {}) as Record<string, Json>;
  const shapes = new Map<string, string>();

  const hoist = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(hoist);
    if (node === null || typeof node !== 'object') return node;
    const object = node as Json;
    const out: Json = {};
    for (const [key, value] of Object.entries(object)) out[key] = hoist(value);
    const title = out.title;
    if (typeof title !== 'string' || !('type' in out)) return out;
    const { description, ...shape } = out;
    let nullable = false;
    if (Array.isArray(shape.type) && shape.type.includes('null')) {
      nullable = true;
      const rest = (shape.type as string[]).filter((t) => t !== 'null');
      shape.type = rest.length === 1 ? rest[0] : rest;
    }
    const text = JSON.stringify(shape);
    const known = shapes.get(title);
    if (known === undefined) {
      shapes.set(title, text);
      components[title] = shape;
    } else if (known !== text) {
      throw new Error(`OpenAPI: two different schemas are titled ${title}`);
    }
    const ref = { $ref: `#/components/schemas/${title}` };
    if (nullable) return { anyOf: [ref, { type: 'null' }], ...(description === undefined ? {} : { description }) };
    return description === undefined ? ref : { ...ref, description };
  };

  doc.paths = hoist(doc.paths);
  for (const item of Object.values(doc.paths as Record<string, Json>)) {
    for (const operation of Object.values(item) as { responses?: Record<string, Json> }[]) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (Number(status) < 400) continue;
        const codes = codesOf(Number(status));
        const media = (response.content as Record<string, { schema: Json }> | undefined)?.['application/json'];
        if (!media || codes.length === 0) continue;
        // The error envelope, or a route's own extension of it (the lookup's LookupFailed adds sources).
        const own = (media.schema as Json).$ref;
        media.schema = {
          allOf: [{ $ref: typeof own === 'string' ? own : '#/components/schemas/Error' }],
          properties: { code: { type: 'string', enum: codes } },
        };
        response.description = `${String(response.description)} (\`code\`: ${codes.map((c) => `\`${c}\``).join(', ')})`;
      }
    }
  }
  return doc;
}
