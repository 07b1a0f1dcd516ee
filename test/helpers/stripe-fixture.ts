// A stand-in for Stripe's API (https://docs.stripe.com/api), enough for off-session charges:
// POST /v1/payment_intents with a form body, confirmed at creation, answering like Stripe's test
// payment methods (pm_card_visa and any other pm_… succeed; pm_card_chargeDeclined,
// pm_card_chargeDeclinedInsufficientFunds and pm_card_authenticationRequired decline with 402), with
// Stripe's error shapes for a wrong key and missing parameters, and Idempotency-Key as Stripe
// documents it: the first answer that began execution is saved and replayed (same status, same
// body, header `Idempotent-Replayed: true`); another body under a saved key is refused with 400
// idempotency_error; authentication and validation failures are not saved. `failNext` injects 5xx
// answered before execution (nothing saved, `Stripe-Should-Retry: true`), so a retry under the same
// key goes through. `sendEvent` posts a signed webhook event the way Stripe delivers them.
// Every request must carry `Stripe-Version` (the fixture's assertion: real Stripe would fall back to
// the account's default version); a version other than the expected one is refused as Stripe
// refuses an unknown one, with 400.
import { randomBytes } from 'node:crypto';
import { signStripePayload } from '../../src/billing/stripe-signature.js';
import { STRIPE_API_VERSION } from '../../src/billing/stripe.js';
import { startFixtureServer, type FixtureReply, type FixtureRequest, type FixtureServer } from './fixture-server.js';

export const STRIPE_TEST_KEY = 'sk_test_flightstatus_fixture_9d2c41';

export interface StripePaymentIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_received: number;
  currency: string;
  status: 'succeeded' | 'requires_payment_method';
  customer: string;
  payment_method: string;
  description: string | null;
  metadata: Record<string, string>;
  latest_charge: string | null;
  last_payment_error: Record<string, string> | null;
  capture_method: 'automatic';
  confirmation_method: 'automatic';
  created: number;
  livemode: false;
}

export type StripeEventType = 'payment_intent.succeeded' | 'payment_intent.payment_failed';

export interface StripeFixtureOptions {
  /** The one secret key accepted (default STRIPE_TEST_KEY). */
  apiKey?: string;
  /** Hold every answer this long (a hang past the client's deadline); the work is done at once. */
  delayMs?: number;
  /** Unix seconds for `created` (default the system clock). */
  now?: () => number;
  /** The Stripe-Version every request must carry (default the one the gateway pins). */
  apiVersion?: string;
}

export interface StripeFixture extends FixtureServer {
  /** Every PaymentIntent created, declined ones too, by id. */
  intents: Map<string, StripePaymentIntent>;
  /** Settable: the hold on every answer, in ms. */
  delayMs: number;
  /** The next `n` requests answer `status` (500) with an api_error, before anything is executed or saved. */
  failNext(n: number, status?: number): void;
  sendEvent(
    targetUrl: string,
    type: StripeEventType,
    intent: StripePaymentIntent,
    secret: string,
    timestampSeconds: number,
  ): Promise<{ status: number; body: string }>;
}

/** Stripe's documented test payment methods that decline (https://docs.stripe.com/testing#declined-payments). */
const DECLINES: Record<string, Record<string, string>> = {
  pm_card_chargeDeclined: {
    code: 'card_declined',
    decline_code: 'generic_decline',
    message: 'Your card was declined.',
  },
  pm_card_chargeDeclinedInsufficientFunds: {
    code: 'card_declined',
    decline_code: 'insufficient_funds',
    message: 'Your card has insufficient funds.',
  },
  // Off-session, a card that needs 3-D Secure fails instead of waiting for the absent customer.
  pm_card_authenticationRequired: {
    code: 'authentication_required',
    decline_code: 'authentication_required',
    message: 'Your card was declined. This transaction requires authentication.',
  },
};

const REQUIRED = ['amount', 'currency', 'customer', 'payment_method', 'confirm'] as const;
const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const invalid = (status: number, error: Record<string, string>): FixtureReply => ({
  status,
  body: { error: { type: 'invalid_request_error', ...error } },
});

export async function startStripeFixture(options: StripeFixtureOptions = {}): Promise<StripeFixture> {
  const apiKey = options.apiKey ?? STRIPE_TEST_KEY;
  const apiVersion = options.apiVersion ?? STRIPE_API_VERSION;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const intents = new Map<string, StripePaymentIntent>();
  const saved = new Map<string, { params: string; reply: FixtureReply }>();
  const failures: number[] = [];

  const execute = (form: URLSearchParams): FixtureReply => {
    const metadata: Record<string, string> = {};
    for (const [name, value] of form) {
      const m = /^metadata\[(.+)\]$/.exec(name);
      if (m) metadata[m[1]!] = value;
    }
    const paymentMethod = form.get('payment_method')!;
    const decline = DECLINES[paymentMethod];
    const intent: StripePaymentIntent = {
      id: id('pi'),
      object: 'payment_intent',
      amount: Number(form.get('amount')),
      amount_received: decline ? 0 : Number(form.get('amount')),
      currency: form.get('currency')!,
      status: decline ? 'requires_payment_method' : 'succeeded',
      customer: form.get('customer')!,
      payment_method: paymentMethod,
      description: form.get('description'),
      metadata,
      latest_charge: id('ch'),
      last_payment_error: decline ? { type: 'card_error', ...decline } : null,
      capture_method: 'automatic',
      confirmation_method: 'automatic',
      created: now(),
      livemode: false,
    };
    intents.set(intent.id, intent);
    if (!decline) return { status: 200, body: intent };
    return {
      status: 402,
      body: { error: { type: 'card_error', ...decline, charge: intent.latest_charge, payment_intent: intent } },
    };
  };

  const answer = (request: FixtureRequest): FixtureReply => {
    const failure = failures.shift();
    if (failure !== undefined) {
      return {
        status: failure,
        headers: { 'stripe-should-retry': 'true' },
        body: { error: { type: 'api_error', message: 'An unknown error occurred while processing your request.' } },
      };
    }
    if (request.method !== 'POST' || request.path !== '/v1/payment_intents') {
      return invalid(404, { message: `Unrecognized request URL (${request.method}: ${request.path}).` });
    }
    const auth = request.headers.authorization;
    if (!auth) return invalid(401, { message: 'You did not provide an API key.' });
    if (auth !== `Bearer ${apiKey}`)
      return invalid(401, { message: `Invalid API Key provided: ${auth.replace(/^Bearer /, '').slice(0, 8)}****` });
    const version = request.headers['stripe-version'];
    if (version === undefined)
      return invalid(400, {
        message: 'Stripe fixture: the request has no Stripe-Version header (it would get the account default version)',
      });
    if (version !== apiVersion) return invalid(400, { message: `Invalid Stripe API version: ${String(version)}` });

    const form = new URLSearchParams(request.body);
    const params = JSON.stringify([...form].sort());
    const key = request.headers['idempotency-key'];
    const previous = typeof key === 'string' ? saved.get(key) : undefined;
    if (previous && previous.params !== params) {
      return {
        status: 400,
        body: {
          error: {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
          },
        },
      };
    }
    if (previous) return { ...previous.reply, headers: { ...previous.reply.headers, 'idempotent-replayed': 'true' } };

    const missing = REQUIRED.find((name) => !form.get(name));
    if (missing)
      return invalid(400, {
        code: 'parameter_missing',
        param: missing,
        message: `Missing required param: ${missing}.`,
      });
    if (!/^[1-9]\d{0,11}$/.test(form.get('amount')!))
      return invalid(400, {
        code: 'parameter_invalid_integer',
        param: 'amount',
        message: `Invalid integer: ${form.get('amount')}`,
      });
    if (!/^[a-z]{3}$/.test(form.get('currency')!))
      return invalid(400, {
        code: 'parameter_invalid',
        param: 'currency',
        message: `Invalid currency: ${form.get('currency')}.`,
      });
    if (!form.get('customer')!.startsWith('cus_'))
      return invalid(400, {
        code: 'resource_missing',
        param: 'customer',
        message: `No such customer: '${form.get('customer')}'`,
      });
    if (!form.get('payment_method')!.startsWith('pm_'))
      return invalid(400, {
        code: 'resource_missing',
        param: 'payment_method',
        message: `No such PaymentMethod: '${form.get('payment_method')}'`,
      });

    const reply = { ...execute(form), headers: { 'request-id': id('req') } };
    if (typeof key === 'string') saved.set(key, { params, reply });
    return reply;
  };

  // The handler runs only once the server is up, by which time `fixture` is set.
  let fixture: StripeFixture;
  const server = await startFixtureServer((request) => ({ ...answer(request), delayMs: fixture.delayMs }));
  fixture = Object.assign(server, {
    intents,
    delayMs: options.delayMs ?? 0,
    failNext(n: number, status = 500) {
      for (let i = 0; i < n; i++) failures.push(status);
    },
    sendEvent: sendStripeEvent,
  });
  return fixture;
}

/** POSTs a Stripe Event about `intent` to `targetUrl`, signed as Stripe signs deliveries. */
export async function sendStripeEvent(
  targetUrl: string,
  type: StripeEventType,
  intent: StripePaymentIntent,
  secret: string,
  timestampSeconds: number,
): Promise<{ status: number; body: string }> {
  const event = {
    id: id('evt'),
    object: 'event',
    api_version: STRIPE_API_VERSION,
    created: timestampSeconds,
    data: { object: intent },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
  const body = JSON.stringify(event);
  const response = await fetch(targetUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      'stripe-signature': signStripePayload(body, secret, timestampSeconds),
    },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, body: await response.text() };
}
