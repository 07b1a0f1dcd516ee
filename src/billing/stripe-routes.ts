// Stripe's events (docs/billing.md): POST /api/billing/stripe/events, the URL given to Stripe's
// webhook endpoint. The Stripe-Signature header is checked against the raw body with the endpoint's
// signing secret before anything is read from it; a payment Stripe reports settles the invoice its
// metadata names when its amount, currency and customer are the invoice's (else it is recorded with
// the invoice and settles nothing), a failure it reports is recorded with the invoice. Every other
// event is acknowledged and ignored (Stripe retries anything that is not 2xx).
import { Type } from 'typebox';
import type { Clock } from '../clock.js';
import { ApiError } from '../http/errors.js';
import { Envelope, errors } from '../http/schemas.js';
import { envelope } from '../http/results.js';
import type { HttpServer } from '../http/server.js';
import type { BillingService } from './service.js';
import { verifyStripeSignature } from './stripe-signature.js';

/** Stripe's events are a few kilobytes; a PaymentIntent with long metadata stays far below this. */
const MAX_EVENT_BYTES = 256 * 1024;

type Json = Record<string, unknown>;
/** A customer id, or the id of an expanded Customer object. */
const customerId = (value: unknown): string | null => {
  const id = typeof value === 'string' ? value : object(value)?.id;
  return typeof id === 'string' ? id : null;
};
const integer = (value: unknown): number | null =>
  typeof value === 'number' && Number.isSafeInteger(value) ? value : null;
const object = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;

export function stripeEventRoutes(
  app: HttpServer,
  deps: { billing: BillingService; signingSecret: string; wallClock: Clock },
): void {
  const { billing, signingSecret, wallClock } = deps;
  app.register(async (scope) => {
    // The signature covers the bytes as sent: keep them as they are, parse after the check.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'string', bodyLimit: MAX_EVENT_BYTES },
      (_request, body, done) => done(null, body),
    );
    scope.post(
      '/api/billing/stripe/events',
      {
        schema: {
          summary: "Stripe's webhook events (payment succeeded or failed)",
          description:
            'Signed by Stripe (Stripe-Signature); refused with 400 unless the signature matches the raw body and is under five minutes old.',
          tags: ['billing'],
          // Stripe's door, not the customers': kept out of the public API description.
          hide: true,
          response: {
            200: Envelope(Type.Object({ received: Type.Literal(true), handled: Type.Boolean() }), 'Acknowledged'),
            ...errors(400, 413, 415),
          },
        },
      },
      async (request) => {
        const raw = typeof request.body === 'string' ? request.body : '';
        const header = request.headers['stripe-signature'];
        // Stripe's timestamp is real time, whatever the service clock says.
        const check = verifyStripeSignature(
          raw,
          typeof header === 'string' ? header : undefined,
          signingSecret,
          Math.floor(wallClock.now() / 1000),
        );
        if (!check.ok) throw new ApiError('invalid_request', `Stripe-Signature refused: ${check.reason}`);
        let event: Json | undefined;
        try {
          event = object(JSON.parse(raw));
        } catch {
          event = undefined;
        }
        if (!event || typeof event.type !== 'string')
          throw new ApiError('invalid_request', 'The body is not a Stripe event');
        const intent = object(object(event.data)?.object);
        const invoiceId = object(intent?.metadata)?.invoice_id;
        const intentId = typeof intent?.id === 'string' ? intent.id : 'unknown';
        if (typeof invoiceId !== 'string' || intent?.object !== 'payment_intent')
          return envelope({ received: true as const, handled: false });
        if (event.type === 'payment_intent.succeeded') {
          const paid = await billing.paidByGateway(invoiceId, {
            reference: intentId,
            amountMinor: integer(intent.amount_received) ?? integer(intent.amount),
            currency: typeof intent.currency === 'string' ? intent.currency : null,
            customer: customerId(intent.customer),
          });
          // Already paid (our own charge got there first), unknown, or not the invoice's money (recorded
          // with the invoice and logged): 200 all the same. A non-2xx makes Stripe redeliver the event
          // for three days, and no redelivery can change a verdict on a payment that does not match.
          return envelope({ received: true as const, handled: paid.kind === 'ok' });
        }
        if (event.type === 'payment_intent.payment_failed') {
          const error = object(intent.last_payment_error);
          const message = typeof error?.message === 'string' ? error.message : 'no reason given';
          const recorded = await billing.failedAtGateway(invoiceId, intentId, message);
          return envelope({ received: true as const, handled: recorded.kind === 'ok' });
        }
        return envelope({ received: true as const, handled: false });
      },
    );
  });
}
