// /api/v1/webhooks: the programmatic interface to webhook endpoints (docs/webhooks.md, "Managing endpoints"; the
// dashboard uses the same service). A key of the account is required; nothing is metered. The
// schemas are route-schemas.ts.
import { Type, type TSchema } from 'typebox';
import type { FastifyRequest, FastifySchema } from 'fastify';
import { ApiError } from '../http/errors.js';
import { envelope, unwrap } from '../http/results.js';
import { integerQuery } from '../http/validation.js';
import { Envelope, errors, withCreditHeaders } from '../http/schemas.js';
import type { HttpServer } from '../http/server.js';
import { parseInstant } from '../clock.js';
import type { Result } from '../result.js';
import { TEST_SEND_LIMITS } from './limits.js';
import {
  CreateBody,
  DeliveriesQuery,
  DeliveryPage,
  DeliveryParams,
  Enabled,
  EndpointPage,
  ListQuery,
  OneResent,
  Params,
  ResendBody,
  Resent,
  RotateBody,
  TestOutcome,
  TestSendLimited,
  UpdateBody,
  WebhookView,
  WithSecret,
} from './route-schemas.js';
import { DELIVERY_PAGE, ENDPOINT_PAGE, type WebhookService } from './service.js';
import { deliveryFilter } from './delivery-log.js';
import type { DeliveryState, ResendableState } from './views.js';

const KEY_SECURITY: { [scheme: string]: string[] }[] = [{ bearer: [] }, { apiKey: [] }, { legacyApiKey: [] }];
const common = { tags: ['webhooks'], security: KEY_SECURITY };

/** A route's options: an account's key required, the webhooks tag, and its schema. */
const keyed = <S extends FastifySchema>(schema: S) => ({
  config: { access: 'key' as const },
  schema: { ...common, ...schema },
});
/** A paged list: its `limit` comes as a query string and is read as an integer. */
const paged = <S extends FastifySchema>(schema: S) => ({ ...keyed(schema), preValidation: integerQuery('limit') });
const ok = <T extends TSchema>(schema: T, description: string) => withCreditHeaders(Envelope(schema, description));

const account = (request: FastifyRequest): string => {
  if (!request.principal) throw new ApiError('unauthorized', 'Missing API key');
  return request.principal.account.id;
};

export function webhookRoutes(app: HttpServer, deps: { webhooks: WebhookService }): void {
  const { webhooks } = deps;
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
      ...keyed({
        summary: doc.summary,
        ...(doc.description ? { description: doc.description } : {}),
        params: Params,
        response: { 200: ok(doc.answer, doc.answered), ...errors(401, 402, 403, 404) },
      }),
      handler: async (request) => envelope(unwrap(await call(account(request), (request.params as { id: string }).id))),
    });

  app.post(
    '/api/v1/webhooks',
    keyed({
      summary: 'Register a webhook endpoint',
      description:
        'Creates an endpoint for the board events of the selected airports and returns its signing secret (docs/webhooks.md).',
      body: CreateBody,
      response: { 201: ok(WithSecret, 'The endpoint and its secret'), ...errors(400, 401, 402, 403, 409, 413) },
    }),
    async (request, reply) =>
      reply.code(201).send(envelope(unwrap(await webhooks.create(account(request), request.body)))),
  );

  app.get(
    '/api/v1/webhooks',
    paged({
      summary: "List the account's webhook endpoints",
      querystring: ListQuery,
      response: { 200: ok(EndpointPage, 'A page of endpoints, oldest first'), ...errors(400, 401, 402, 403) },
    }),
    async (request) =>
      envelope(
        unwrap(
          await webhooks.list(account(request), {
            limit: request.query.limit ?? ENDPOINT_PAGE.default,
            after: request.query.after,
          }),
        ),
      ),
  );

  onEndpoint('get', '', { summary: 'One webhook endpoint', answer: WebhookView, answered: 'The endpoint' }, (a, id) =>
    webhooks.get(a, id),
  );

  app.patch(
    '/api/v1/webhooks/:id',
    keyed({
      summary: 'Change the name, URL or airports of an endpoint',
      description: 'Airports added later receive events observed from then on; nothing is backfilled.',
      params: Params,
      body: UpdateBody,
      response: { 200: ok(WebhookView, 'The endpoint'), ...errors(400, 401, 402, 403, 404, 413) },
    }),
    async (request) => envelope(unwrap(await webhooks.update(account(request), request.params.id, request.body))),
  );

  onEndpoint(
    'delete',
    '',
    {
      summary: 'Delete an endpoint and its deliveries',
      answer: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }),
      answered: 'Deleted',
    },
    (a, id) => webhooks.remove(a, id),
  );

  app.post(
    '/api/v1/webhooks/:id/rotate',
    {
      // The body is optional: none is an empty object (the defaults), checked by the schema as one.
      preValidation: async (request) => {
        request.body ??= {};
      },
      ...keyed({
        summary: 'Replace the signing secret',
        description:
          'The new secret signs every attempt from now on. The old one goes on signing beside it (a second `v1` in `X-Flight-Signature`) for `overlapSeconds` (default a day, at most 7 days; 0 ends it at once), so receivers move to the new one without rejecting a delivery. The body is optional.',
        params: Params,
        body: RotateBody,
        response: { 200: ok(WithSecret, 'The endpoint and its new secret'), ...errors(400, 401, 402, 403, 404) },
      }),
    },
    async (request) =>
      envelope(
        unwrap(
          await webhooks.rotate(
            account(request),
            request.params.id,
            (request.body as { overlapSeconds?: number } | undefined)?.overlapSeconds,
          ),
        ),
      ),
  );

  app.post(
    '/api/v1/webhooks/:id/test',
    keyed({
      summary: 'Send a signed test event now',
      description:
        'Sends one `webhook.test` event and answers with the outcome; a 2xx resets the failure counter. Works on a disabled endpoint too. ' +
        `Listed among the endpoint's deliveries; at most ${TEST_SEND_LIMITS.perEndpoint} a minute per endpoint and ${TEST_SEND_LIMITS.perAccount} per account (429 with Retry-After).`,
      params: Params,
      response: { 200: ok(TestOutcome, 'The attempt'), ...errors(401, 402, 403, 404), 429: TestSendLimited },
    }),
    async (request) => {
      const result = await webhooks.test(account(request), request.params.id);
      if (result.kind === 'rate_limited')
        throw new ApiError('rate_limited', result.message, { 'retry-after': String(result.retryAfterSeconds) });
      return envelope(unwrap(result));
    },
  );

  onEndpoint(
    'post',
    '/enable',
    {
      summary: 'Re-enable an endpoint and resume its queue',
      description:
        'Resets the failure counter; deliveries that waited are due at once with the attempts they had. Failed deliveries stay failed.',
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
      description:
        'Nothing is sent until it is enabled again; what is observed meanwhile is kept as skipped deliveries, resendable (POST …/deliveries/resend).',
      answer: WebhookView,
      answered: 'The endpoint',
    },
    (a, id) => webhooks.disable(a, id),
  );

  app.post(
    '/api/v1/webhooks/:id/deliveries/resend',
    keyed({
      summary: 'Resend everything since a time',
      description:
        'Puts every `skipped` and `failed` delivery of the endpoint created at or after `since` back in the queue, due now, with its id, body and attempts ' +
        '(a failed one gets one more attempt). The endpoint must be enabled. Test events are not resent (docs/webhooks.md, "When a receiver fails").',
      params: Params,
      body: ResendBody,
      response: { 200: ok(Resent, 'How many were resent'), ...errors(400, 401, 402, 403, 404, 413) },
    }),
    async (request) => {
      const since = parseInstant(request.body.since);
      if (since === null)
        throw new ApiError(
          'invalid_request',
          `since: not an ISO 8601 instant with a zone, or a date (got ${JSON.stringify(request.body.since)})`,
        );
      return envelope(
        unwrap(
          await webhooks.resendSince(account(request), request.params.id, {
            since,
            states: request.body.states as ResendableState[] | undefined,
          }),
        ),
      );
    },
  );

  app.post(
    '/api/v1/webhooks/:id/deliveries/:delivery/resend',
    keyed({
      summary: 'Resend one delivery now',
      description: 'The same id and body, its attempts kept; any state but a test event. The endpoint must be enabled.',
      params: DeliveryParams,
      response: { 200: ok(OneResent, 'The delivery is due now'), ...errors(400, 401, 402, 403, 404) },
    }),
    async (request) =>
      envelope(unwrap(await webhooks.resend(account(request), request.params.id, request.params.delivery))),
  );

  app.get(
    '/api/v1/webhooks/:id/deliveries',
    paged({
      summary: 'Recent deliveries of an endpoint, newest first',
      params: Params,
      querystring: DeliveriesQuery,
      response: { 200: ok(DeliveryPage, 'A page of deliveries'), ...errors(400, 401, 402, 403, 404) },
    }),
    async (request) => {
      const { limit = DELIVERY_PAGE.default, state, before, type, flight, from, to } = request.query;
      const filter = deliveryFilter({ type, flight, from, to });
      if ('problem' in filter) throw new ApiError('invalid_request', filter.problem);
      return envelope(
        unwrap(
          await webhooks.deliveries(account(request), request.params.id, {
            limit,
            state: state as DeliveryState | undefined,
            before,
            ...filter,
          }),
        ),
      );
    },
  );
}
