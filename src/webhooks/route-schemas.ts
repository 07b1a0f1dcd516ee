// The schemas of /api/v1/webhooks (routes.ts): bodies, parameters and answers, from which requests are
// validated, answers serialised and the OpenAPI document written.
import { Type } from 'typebox';
import { DateTime, ErrorResponse } from '../http/schemas.js';
import { ROTATION_OVERLAP, TEST_SEND_LIMITS } from './limits.js';
import { ACCOUNT_EVENT_TYPES } from './account-events.js';
import { DELIVERY_PAGE, ENDPOINT_PAGE } from './service.js';
import { MAX_NAME_LENGTH } from './fields.js';
import { MAX_URL_LENGTH } from './targets.js';
import { DELIVERY_STATES, RESENDABLE_STATES } from './views.js';

export const Name = Type.String({ minLength: 1, maxLength: MAX_NAME_LENGTH, description: 'What the endpoint is for' });
export const Url = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description: 'Absolute https URL that receives the signed POSTs; must reach a public address',
});
export const Airports = Type.Array(Type.String({ maxLength: 10 }), {
  maxItems: 100,
  description:
    "Catalogue IATA codes whose board events the endpoint receives; aliases (KIV, MLH, EAP) become their primary code. May be empty: an endpoint for the account's watches (docs/watches.md) and account events only",
});

export const Events = Type.Array(Type.String({ enum: [...ACCOUNT_EVENT_TYPES] }), {
  maxItems: 10,
  description:
    "Account events the endpoint also receives, besides its airports' board events: `batch.completed` (a batch of this account finished). Default none.",
});

export const CreateBody = Type.Object(
  { name: Name, url: Url, airports: Airports, events: Type.Optional(Events) },
  { additionalProperties: false },
);
export const UpdateBody = Type.Object(
  {
    name: Type.Optional(Name),
    url: Type.Optional(Url),
    airports: Type.Optional(Airports),
    events: Type.Optional(Events),
  },
  { additionalProperties: false, minProperties: 1 },
);
export const Params = Type.Object({ id: Type.String({ maxLength: 100, description: 'Endpoint id (wh_…)' }) });

export const WebhookView = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    url: Type.String(),
    airports: Type.Array(Type.String()),
    events: Type.Array(Type.String(), { description: 'Account events it also receives' }),
    enabled: Type.Boolean(),
    consecutiveFailures: Type.Integer({
      description:
        'Failed attempts in a row across its deliveries (attempts in flight together count once); 25 disable the endpoint',
    }),
    pausedUntil: Type.Union([
      DateTime('After a failed attempt, nothing more is sent to it before this time'),
      Type.Null(),
    ]),
    disabledAt: Type.Union([DateTime('When it was disabled'), Type.Null()]),
    disabledReason: Type.Union([Type.String(), Type.Null()]),
    previousSecretUntil: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description:
        'Until when the secret before the last rotation also signs each attempt (a second v1 in X-Flight-Signature); null when the last rotation ended it at once, or there was none',
    }),
    createdAt: DateTime('Created'),
    updatedAt: DateTime('Last changed'),
  },
  { title: 'Webhook' },
);
export const WithSecret = Type.Object(
  {
    ...WebhookView.properties,
    secret: Type.String({ description: 'Signing secret (whsec_…); shown when created or rotated, never listed' }),
  },
  { title: 'WebhookWithSecret' },
);
export const Enabled = Type.Object(
  {
    ...WebhookView.properties,
    resumedDeliveries: Type.Integer({ description: 'Deliveries that waited and are due again now' }),
  },
  { title: 'EnabledWebhook' },
);
export const Delivery = Type.Object(
  {
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
  },
  { title: 'Delivery' },
);
export const TestOutcome = Type.Object(
  {
    deliveryId: Type.String(),
    event: Type.String(),
    delivered: Type.Boolean({ description: 'The receiver answered 2xx within 10 seconds' }),
    statusCode: Type.Union([Type.Integer(), Type.Null()]),
    error: Type.Union([Type.String(), Type.Null()]),
    durationMs: Type.Integer(),
    attemptedAt: DateTime('When it was sent'),
  },
  { title: 'WebhookTestOutcome' },
);
export const DeliveriesQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: DELIVERY_PAGE.max,
        description: `Page size (default ${DELIVERY_PAGE.default})`,
      }),
    ),
    state: Type.Optional(Type.String({ enum: [...DELIVERY_STATES] })),
    before: Type.Optional(
      Type.String({ maxLength: 100, description: 'A delivery id from the previous page (`nextBefore`)' }),
    ),
    type: Type.Optional(
      Type.String({
        pattern: '^[a-z_]+\\.[a-z_]+$',
        maxLength: 40,
        description: 'Only this event type, e.g. `flight.delayed` or `webhook.test`',
      }),
    ),
    flight: Type.Optional(
      Type.String({
        pattern: '^\\s*[A-Za-z0-9]{2,3} ?[0-9]{1,4}[A-Za-z]?\\s*$',
        description: 'Only the events of this flight, e.g. `W63101` or `W6 3101` (either case)',
      }),
    ),
    from: Type.Optional(
      Type.String({ format: 'date', description: 'Only deliveries created on or after this UTC day (YYYY-MM-DD)' }),
    ),
    to: Type.Optional(
      Type.String({ format: 'date', description: 'Only deliveries created on or before this UTC day (YYYY-MM-DD)' }),
    ),
  },
  { additionalProperties: false },
);

export const ResendBody = Type.Object(
  {
    since: Type.String({
      maxLength: 40,
      description:
        'ISO 8601 instant with its zone (or a date, meaning its UTC midnight): deliveries created at or after it are resent',
    }),
    states: Type.Optional(
      Type.Array(Type.String({ enum: [...RESENDABLE_STATES] }), {
        minItems: 1,
        maxItems: RESENDABLE_STATES.length,
        description:
          'Which deliveries to resend (default both): `skipped`, observed while the endpoint was disabled; `failed`, retries used up',
      }),
    ),
  },
  { additionalProperties: false },
);
export const Resent = Type.Object(
  {
    resent: Type.Integer({ description: 'Deliveries put back in the queue' }),
    since: DateTime('The `since` given'),
    states: Type.Array(Type.String({ enum: [...RESENDABLE_STATES] })),
    nextAttemptAt: DateTime('When they are due: now; they go out on the next delivery cycle'),
  },
  { title: 'WebhookResend' },
);
export const OneResent = Type.Object(
  { deliveryId: Type.String(), nextAttemptAt: DateTime('When it is due: now') },
  { title: 'DeliveryResend' },
);
export const DeliveryParams = Type.Object({
  ...Params.properties,
  delivery: Type.String({ maxLength: 100, description: 'Delivery id (dlv_…)' }),
});

export const ListQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: ENDPOINT_PAGE.max,
        description: `Page size (default ${ENDPOINT_PAGE.default})`,
      }),
    ),
    after: Type.Optional(
      Type.String({ maxLength: 100, description: 'An endpoint id from the previous page (`nextAfter`)' }),
    ),
  },
  { additionalProperties: false },
);
export const EndpointPage = Type.Object({
  webhooks: Type.Array(WebhookView),
  hasMore: Type.Boolean({ description: 'More endpoints follow this page' }),
  nextAfter: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as `after` for the next page; null on the last page',
  }),
});
export const DeliveryPage = Type.Object({
  deliveries: Type.Array(Delivery),
  hasMore: Type.Boolean({ description: 'More (older) deliveries follow this page' }),
  nextBefore: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as `before` for the next page; null on the last page',
  }),
});
export const TestSendLimited = {
  ...ErrorResponse,
  description: `Test sends over their limit (${TEST_SEND_LIMITS.perEndpoint} a minute per endpoint, ${TEST_SEND_LIMITS.perAccount} per account); code \`rate_limited\``,
  headers: { 'Retry-After': { type: 'integer', description: 'Seconds until the limit resets' } },
};

export const RotateBody = Type.Object(
  {
    overlapSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: ROTATION_OVERLAP.maxSeconds,
        description: `How long the old secret goes on signing beside the new one, in seconds: default ${ROTATION_OVERLAP.defaultSeconds} (a day), at most ${ROTATION_OVERLAP.maxSeconds} (7 days); 0 ends it at once`,
      }),
    ),
  },
  { additionalProperties: false },
);
