// /api/v1/webhooks: the programmatic interface to webhook endpoints (spec 4.5 leaves it open; the
// dashboard will use the same service). A key of the account is required; nothing is metered.
import { Type, type TSchema } from 'typebox';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors.js';
import { envelope, unwrap } from '../http/results.js';
import { integerQuery } from '../http/validation.js';
import { DateTime, Envelope, ErrorResponse, errors, withCreditHeaders } from '../http/schemas.js';
import type { HttpServer } from '../http/server.js';
import { DELIVERY_PAGE, ENDPOINT_PAGE, MAX_NAME_LENGTH, type WebhookService } from './service.js';
import { DELIVERY_STATES, RESENDABLE_STATES, type DeliveryState, type ResendableState } from './views.js';
import { parseInstant } from '../clock.js';
import { TEST_SEND_LIMITS } from './limits.js';
import type { Result } from '../result.js';
import { MAX_URL_LENGTH } from './targets.js';

const Name = Type.String({ minLength: 1, maxLength: MAX_NAME_LENGTH, description: 'What the endpoint is for' });
const Url = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description: 'Absolute https URL that receives the signed POSTs; must reach a public address',
});
const Airports = Type.Array(Type.String({ maxLength: 10 }), {
  minItems: 1,
  maxItems: 100,
  description: 'Catalogue IATA codes whose board events the endpoint receives; aliases (KIV, MLH, EAP) become their primary code',
});

const CreateBody = Type.Object({ name: Name, url: Url, airports: Airports }, { additionalProperties: false });
const UpdateBody = Type.Object(
  { name: Type.Optional(Name), url: Type.Optional(Url), airports: Type.Optional(Airports) },
  { additionalProperties: false, minProperties: 1 },
);
const Params = Type.Object({ id: Type.String({ maxLength: 100, description: 'Endpoint id (wh_…)' }) });

const WebhookView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  url: Type.String(),
  airports: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  consecutiveFailures: Type.Integer({ description: 'Failed attempts in a row across its deliveries (attempts in flight together count once); 25 disable the endpoint' }),
  pausedUntil: Type.Union([DateTime('After a failed attempt, nothing more is sent to it before this time'), Type.Null()]),
  disabledAt: Type.Union([DateTime('When it was disabled'), Type.Null()]),
  disabledReason: Type.Union([Type.String(), Type.Null()]),
  createdAt: DateTime('Created'),
  updatedAt: DateTime('Last changed'),
}, { title: 'Webhook' });
const WithSecret = Type.Object({
  ...WebhookView.properties,
  secret: Type.String({ description: 'Signing secret (whsec_…); shown when created or rotated, never listed' }),
}, { title: 'WebhookWithSecret' });
const Enabled = Type.Object({
  ...WebhookView.properties,
  resumedDeliveries: Type.Integer({ description: 'Deliveries that waited and are due again now' }),
}, { title: 'EnabledWebhook' });
const Delivery = Type.Object({
  id: Type.String({ description: 'Delivery id: X-Flight-Delivery and the body `id`, the idempotency key' }),
  event: Type.String({ description: 'Board event id, shared by every endpoint that receives the change' }),
  type: Type.String(),
  state: Type.String({ enum: [...DELIVERY_STATES] }),
  attempts: Type.Integer(),
  lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  lastAttemptAt: Type.Union([DateTime('Last attempt'), Type.Null()]),
  nextAttemptAt: Type.Union([DateTime('Next attempt due'), Type.Null()]),
  deliveredAt: Type.Union([DateTime('Delivered'), Type.Null()]),
  createdAt: DateTime('Queued (when the change was observed)'),
}, { title: 'Delivery' });
const TestOutcome = Type.Object({
  deliveryId: Type.String(),
  event: Type.String(),
  delivered: Type.Boolean({ description: 'The receiver answered 2xx within 10 seconds' }),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  durationMs: Type.Integer(),
  attemptedAt: DateTime('When it was sent'),
}, { title: 'WebhookTestOutcome' });
const DeliveriesQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: DELIVERY_PAGE.max, description: `Page size (default ${DELIVERY_PAGE.default})` })),
    state: Type.Optional(Type.String({ enum: [...DELIVERY_STATES] })),
    before: Type.Optional(Type.String({ maxLength: 100, description: 'A delivery id from the previous page (`nextBefore`)' })),
  },
  { additionalProperties: false },
);

const ResendBody = Type.Object(
  {
    since: Type.String({
      maxLength: 40,
      description: 'ISO 8601 instant with its zone (or a date, meaning its UTC midnight): deliveries created at or after it are resent',
    }),
    states: Type.Optional(
      Type.Array(Type.String({ enum: [...RESENDABLE_STATES] }), {
        minItems: 1,
        maxItems: RESENDABLE_STATES.length,
        description: 'Which deliveries to resend (default both): `skipped`, observed while the endpoint was disabled; `failed`, retries used up',
      }),
    ),
  },
  { additionalProperties: false },
);
const Resent = Type.Object({
  resent: Type.Integer({ description: 'Deliveries put back in the queue' }),
  since: DateTime('The `since` given'),
  states: Type.Array(Type.String({ enum: [...RESENDABLE_STATES] })),
  nextAttemptAt: DateTime('When they are due: now; they go out on the next delivery cycle'),
}, { title: 'WebhookResend' });
const OneResent = Type.Object({ deliveryId: Type.String(), nextAttemptAt: DateTime('When it is due: now') }, { title: 'DeliveryResend' });
const DeliveryParams = Type.Object({
  id: Type.String({ maxLength: 100, description: 'Endpoint id (wh_…)' }),
  delivery: Type.String({ maxLength: 100, description: 'Delivery id (dlv_…)' }),
});

const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: ENDPOINT_PAGE.max, description: `Page size (default ${ENDPOINT_PAGE.default})` })),
    after: Type.Optional(Type.String({ maxLength: 100, description: 'An endpoint id from the previous page (`nextAfter`)' })),
  },
  { additionalProperties: false },
);
const EndpointPage = Type.Object({
  webhooks: Type.Array(WebhookView),
  hasMore: Type.Boolean({ description: 'More endpoints follow this page' }),
  nextAfter: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `after` for the next page; null on the last page' }),
});
const DeliveryPage = Type.Object({
  deliveries: Type.Array(Delivery),
  hasMore: Type.Boolean({ description: 'More (older) deliveries follow this page' }),
  nextBefore: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `before` for the next page; null on the last page' }),
});
const TestSendLimited = {
  ...ErrorResponse,
  description: `Test sends over their limit (${TEST_SEND_LIMITS.perEndpoint} a minute per endpoint, ${TEST_SEND_LIMITS.perAccount} per account); code \`rate_limited\``,
  headers: { 'Retry-After': { type: 'integer', description: 'Seconds until the limit resets' } },
};


const KEY_SECURITY: { [scheme: string]: string[] }[] = [{ bearer: [] }, { apiKey: [] }, { legacyApiKey: [] }];

export function webhookRoutes(app: HttpServer, deps: { webhooks: WebhookService }): void {
  const { webhooks } = deps;
  const common = { tags: ['webhooks'], security: KEY_SECURITY };
  const account = (request: FastifyRequest): string => {
    if (!request.principal) throw new ApiError('unauthorized', 'Missing API key');
    return request.principal.account.id;
  };
  const ok = <T extends TSchema>(schema: T, description: string) => withCreditHeaders(Envelope(schema, description));
  /** A route on one endpoint that takes nothing but its id, answered by one service call. */
  const onEndpoint = (
    method: 'get' | 'post' | 'delete',
    action: string,
    doc: { summary: string; description?: string; answer: TSchema; answered: string },
    call: (accountId: string, id: string) => Promise<Result<unknown>>,
  ) =>
    app.route({
      method: method.toUpperCase() as 'GET' | 'POST' | 'DELETE',
      url: `/api/v1/webhooks/:id${action}`,
      config: { access: 'key' },
      schema: {
        ...common,
        summary: doc.summary,
        ...(doc.description ? { description: doc.description } : {}),
        params: Params,
        response: { 200: ok(doc.answer, doc.answered), ...errors(401, 402, 403, 404) },
      },
      handler: async (request) => envelope(unwrap(await call(account(request), (request.params as { id: string }).id))),
    });

  app.post(
    '/api/v1/webhooks',
    {
      config: { access: 'key' },
      schema: {
        ...common,
        summary: 'Register a webhook endpoint',
        description: 'Creates an endpoint for the board events of the selected airports and returns its signing secret (docs/webhooks.md).',
        body: CreateBody,
        response: { 201: ok(WithSecret, 'The endpoint and its secret'), ...errors(400, 401, 402, 403, 409, 413) },
      },
    },
    async (request, reply) => reply.code(201).send(envelope(unwrap(await webhooks.create(account(request), request.body)))),
  );

  app.get(
    '/api/v1/webhooks',
    {
      config: { access: 'key' },
      preValidation: integerQuery('limit'),
      schema: {
        ...common,
        summary: "List the account's webhook endpoints",
        querystring: ListQuery,
        response: { 200: ok(EndpointPage, 'A page of endpoints, oldest first'), ...errors(400, 401, 402, 403) },
      },
    },
    async (request) =>
      envelope(unwrap(await webhooks.list(account(request), { limit: request.query.limit ?? ENDPOINT_PAGE.default, after: request.query.after }))),
  );

  onEndpoint('get', '', { summary: 'One webhook endpoint', answer: WebhookView, answered: 'The endpoint' }, (a, id) => webhooks.get(a, id));

  app.patch(
    '/api/v1/webhooks/:id',
    {
      config: { access: 'key' },
      schema: {
        ...common,
        summary: 'Change the name, URL or airports of an endpoint',
        description: 'Airports added later receive events observed from then on; nothing is backfilled.',
        params: Params,
        body: UpdateBody,
        response: { 200: ok(WebhookView, 'The endpoint'), ...errors(400, 401, 402, 403, 404, 413) },
      },
    },
    async (request) => envelope(unwrap(await webhooks.update(account(request), request.params.id, request.body))),
  );

  onEndpoint(
    'delete',
    '',
    { summary: 'Delete an endpoint and its deliveries', answer: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }), answered: 'Deleted' },
    (a, id) => webhooks.remove(a, id),
  );

  onEndpoint(
    'post',
    '/rotate',
    {
      summary: 'Replace the signing secret',
      description: 'The new secret signs every attempt from now on; the old one stops verifying at once.',
      answer: WithSecret,
      answered: 'The endpoint and its new secret',
    },
    (a, id) => webhooks.rotate(a, id),
  );

  app.post(
    '/api/v1/webhooks/:id/test',
    {
      config: { access: 'key' },
      schema: {
        ...common,
        summary: 'Send a signed test event now',
        description:
          'Sends one `webhook.test` event and answers with the outcome; a 2xx resets the failure counter. Works on a disabled endpoint too. ' +
          `Listed among the endpoint's deliveries; at most ${TEST_SEND_LIMITS.perEndpoint} a minute per endpoint and ${TEST_SEND_LIMITS.perAccount} per account (429 with Retry-After).`,
        params: Params,
        response: { 200: ok(TestOutcome, 'The attempt'), ...errors(401, 402, 403, 404), 429: TestSendLimited },
      },
    },
    async (request) => {
      const result = await webhooks.test(account(request), request.params.id);
      if (result.kind === 'rate_limited') throw new ApiError('rate_limited', result.message, { 'retry-after': String(result.retryAfterSeconds) });
      return envelope(unwrap(result));
    },
  );

  onEndpoint(
    'post',
    '/enable',
    {
      summary: 'Re-enable an endpoint and resume its queue',
      description: 'Resets the failure counter; deliveries that waited are due at once with the attempts they had. Failed deliveries stay failed.',
      answer: Enabled,
      answered: 'The endpoint',
    },
    (a, id) => webhooks.enable(a, id),
  );

  onEndpoint(
    'post',
    '/disable',
    {
      summary: 'Pause an endpoint',
      description: 'Nothing is sent until it is enabled again; what is observed meanwhile is kept as skipped deliveries, resendable (POST …/deliveries/resend).',
      answer: WebhookView,
      answered: 'The endpoint',
    },
    (a, id) => webhooks.disable(a, id),
  );

  app.post(
    '/api/v1/webhooks/:id/deliveries/resend',
    {
      config: { access: 'key' },
      schema: {
        ...common,
        summary: 'Resend everything since a time',
        description:
          'Puts every `skipped` and `failed` delivery of the endpoint created at or after `since` back in the queue, due now, with its id, body and attempts ' +
          '(a failed one gets one more attempt). The endpoint must be enabled. Test events are not resent (docs/webhooks.md, "When a receiver fails").',
        params: Params,
        body: ResendBody,
        response: { 200: ok(Resent, 'How many were resent'), ...errors(400, 401, 402, 403, 404, 413) },
      },
    },
    async (request) => {
      const since = parseInstant(request.body.since);
      if (since === null) throw new ApiError('invalid_request', `since: not an ISO 8601 instant with a zone, or a date (got ${JSON.stringify(request.body.since)})`);
      return envelope(
        unwrap(await webhooks.resendSince(account(request), request.params.id, { since, states: request.body.states as ResendableState[] | undefined })),
      );
    },
  );

  app.post(
    '/api/v1/webhooks/:id/deliveries/:delivery/resend',
    {
      config: { access: 'key' },
      schema: {
        ...common,
        summary: 'Resend one delivery now',
        description: 'The same id and body, its attempts kept; any state but a test event. The endpoint must be enabled.',
        params: DeliveryParams,
        response: { 200: ok(OneResent, 'The delivery is due now'), ...errors(400, 401, 402, 403, 404) },
      },
    },
    async (request) => envelope(unwrap(await webhooks.resend(account(request), request.params.id, request.params.delivery))),
  );

  app.get(
    '/api/v1/webhooks/:id/deliveries',
    {
      config: { access: 'key' },
      preValidation: integerQuery('limit'),
      schema: {
        ...common,
        summary: 'Recent deliveries of an endpoint, newest first',
        params: Params,
        querystring: DeliveriesQuery,
        response: {
          200: ok(DeliveryPage, 'A page of deliveries'),
          ...errors(400, 401, 402, 403, 404),
        },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DELIVERY_PAGE.default;
      return envelope(
        unwrap(
          await webhooks.deliveries(account(request), request.params.id, {
            limit,
            state: request.query.state as DeliveryState | undefined,
            before: request.query.before,
          }),
        ),
      );
    },
  );
}
