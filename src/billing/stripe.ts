// The Stripe gateway (docs/billing.md, "Charging"): one PaymentIntent per charge attempt, created and
// confirmed off-session in a single POST /v1/payment_intents with the customer's saved payment
// method. It only translates our ChargeRequest into Stripe's form fields and Stripe's answer into a
// ChargeOutcome; scheduling, dunning and recording attempts belong to the caller.
//
// Idempotency: every request of one attempt carries `Idempotency-Key: flightstatus-<invoice>-<attempt>`.
// Stripe saves the first answer to a key for 24 hours and replays it, so retrying an attempt after a
// timeout, a network error or a 5xx can never charge twice (and returns the charge made if the first
// request did get through). A retry after a decline must be a new attempt number: the same key
// would only replay the decline.
//
// Outcomes: 2xx `succeeded` → succeeded; 402 (card_error) and a 2xx intent left needing a payment
// method, authentication or cancelled → declined (the customer's side); everything else (4xx of our
// configuration, 409, 429, 5xx, network, timeout, a body that is not Stripe's) → unavailable, tried
// again later with the same key. Nothing here throws for HTTP trouble, and the API key never appears
// in a message: Stripe's own error text is scrubbed of it too.
//
// API version: every request carries `Stripe-Version: STRIPE_API_VERSION`. Without it Stripe answers
// in the account's default version, whatever it was set to when the account was made or last
// upgraded in the Dashboard, and a Dashboard upgrade would change the shapes read here unannounced.
import type { ChargeOutcome, ChargeRequest, PaymentGateway } from './gateway.js';

export const STRIPE_API_URL = 'https://api.stripe.com';
/**
 * The Stripe API version this code is written against (docs/billing.md, "Stripe API version"). What
 * it relies on: a PaymentIntent's `status`, `amount`, `amount_received`, `currency`, `customer`,
 * `metadata`, `last_payment_error` and a 402's `error.payment_intent`, stable across these versions;
 * `off_session=true` confirming without a `return_url` although 2023-08-16 turned
 * `automatic_payment_methods` on by default; and no `charges` list on the PaymentIntent (removed in
 * 2022-11-15, `latest_charge` instead), which nothing here reads. The last dated version before
 * Stripe's named releases (2024-09-30.acacia onwards).
 */
export const STRIPE_API_VERSION = '2024-06-20';
/** Stripe's messages are short; anything longer is not Stripe's and is cut before it reaches a log or a row. */
const MAX_MESSAGE_CHARS = 300;

export interface StripeGatewayOptions {
  /** A secret (`sk_…`) or restricted (`rk_…`) key allowed to write PaymentIntents. */
  apiKey: string;
  /** Default https://api.stripe.com; a local fixture in tests. */
  baseUrl?: string;
  /** Deadline of one request, connection to last byte. */
  timeoutMs: number;
  fetchImpl?: typeof fetch;
}

/** One key per invoice attempt (Stripe allows up to 255 characters). */
export function stripeIdempotencyKey(invoiceId: string, attempt: number): string {
  return `flightstatus-${invoiceId}-${attempt}`;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (object: Json | undefined, key: string): string | undefined =>
  typeof object?.[key] === 'string' ? (object[key] as string) : undefined;

export class StripeGateway implements PaymentGateway {
  readonly name = 'stripe';
  readonly charges = true;
  private readonly apiKey: string;
  private readonly endpoint: string;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(options: StripeGatewayOptions) {
    if (!options.apiKey) throw new Error('StripeGateway needs an API key');
    if (!(options.timeoutMs > 0 && Number.isFinite(options.timeoutMs)))
      throw new Error(`StripeGateway timeoutMs must be a positive number (got ${options.timeoutMs})`);
    this.apiKey = options.apiKey;
    this.endpoint = `${(options.baseUrl ?? STRIPE_API_URL).replace(/\/+$/, '')}/v1/payment_intents`;
    this.timeoutMs = options.timeoutMs;
    this.fetchImpl = options.fetchImpl ?? fetch;
  }

  async charge(request: ChargeRequest): Promise<ChargeOutcome> {
    if (!request.paymentMethod)
      return declined('no_payment_method', 'the account has no Stripe payment method to charge', null);
    if (!request.customer) return declined('no_customer', 'the account has no Stripe customer to charge', null);
    // A fractional or negative amount is a bug upstream, not a gateway answer.
    if (!Number.isSafeInteger(request.amountMinor) || request.amountMinor <= 0)
      throw new Error(`amountMinor must be a positive integer (got ${request.amountMinor})`);

    // Stripe's amounts are in the currency's smallest unit, as ours are (JPY has none below the yen).
    const form = new URLSearchParams({
      amount: String(request.amountMinor),
      currency: request.currency.toLowerCase(),
      customer: request.customer,
      payment_method: request.paymentMethod,
      confirm: 'true',
      off_session: 'true',
      description: `Invoice ${request.invoiceNumber}`,
      'metadata[invoice_id]': request.invoiceId,
      'metadata[invoice_number]': request.invoiceNumber,
      'metadata[account_id]': request.accountId,
    });

    let status: number;
    let text: string;
    try {
      const response = await this.fetchImpl(this.endpoint, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.apiKey}`,
          'content-type': 'application/x-www-form-urlencoded',
          'idempotency-key': stripeIdempotencyKey(request.invoiceId, request.attempt),
          'stripe-version': STRIPE_API_VERSION,
        },
        body: form.toString(),
        // The deadline covers the body too; a redirect is never Stripe's answer to a charge.
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'error',
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      return this.unavailable(
        timedOut ? `Stripe did not answer within ${this.timeoutMs} ms` : `could not reach Stripe: ${describe(error)}`,
      );
    }

    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return this.unavailable(`Stripe answered HTTP ${status} with a body that is not JSON`);
    }
    if (status >= 200 && status < 300) return this.intentOutcome(body);

    const error = isObject(body) && isObject(body.error) ? body.error : undefined;
    if (status === 402 && error) {
      const intent = isObject(error.payment_intent) ? error.payment_intent : undefined;
      return declined(
        str(error, 'decline_code') ?? str(error, 'code') ?? 'card_declined',
        this.scrub(str(error, 'message') ?? 'Stripe declined the payment'),
        str(intent, 'id') ?? null,
      );
    }
    // Our side: a wrong key (401), a missing permission (403), an unknown customer or payment method
    // (400/404), a changed request under the same key (400 idempotency_error), the same key still in
    // flight (409). Or Stripe's: rate limit (429), 5xx. Either way not the customer's doing.
    const what = [str(error, 'type'), str(error, 'code')].filter(Boolean).join('/');
    const why = str(error, 'message');
    return this.unavailable(`Stripe answered HTTP ${status}${what ? ` ${what}` : ''}${why ? `: ${why}` : ''}`);
  }

  /** A PaymentIntent answered with 2xx: confirmed at creation, so settled unless still processing. */
  private intentOutcome(body: unknown): ChargeOutcome {
    const id = isObject(body) ? str(body, 'id') : undefined;
    const state = isObject(body) ? str(body, 'status') : undefined;
    if (!isObject(body) || !id || !state) return this.unavailable('Stripe answered without a PaymentIntent');
    const lastError = isObject(body.last_payment_error) ? body.last_payment_error : undefined;
    const reason = (fallback: string) => str(lastError, 'decline_code') ?? str(lastError, 'code') ?? fallback;
    const message = (fallback: string) => this.scrub(str(lastError, 'message') ?? fallback);
    switch (state) {
      case 'succeeded':
        return { kind: 'succeeded', reference: id };
      case 'processing':
        // Bank debits settle later; Stripe sends payment_intent.succeeded or .payment_failed. Note that
        // a retry under the same key replays this very answer until the key expires (24 h).
        return this.unavailable(`payment ${id} is processing; its outcome arrives as a payment_intent webhook event`);
      case 'requires_action':
        return declined(
          reason('authentication_required'),
          message('the payment needs the customer to authenticate it'),
          id,
        );
      case 'requires_payment_method':
        return declined(reason('payment_failed'), message('the payment method was refused'), id);
      case 'canceled':
        return declined(reason('canceled'), message('the payment was canceled'), id);
      default:
        return this.unavailable(`payment ${id} is in unexpected state ${state}`);
    }
  }

  private unavailable(message: string): ChargeOutcome {
    return { kind: 'unavailable', message: this.scrub(message) };
  }

  /** Removes the API key from a message (Stripe echoes parts of keys; a proxy might echo all of it) and bounds its length. */
  private scrub(message: string): string {
    const clean = message.split(this.apiKey).join('[redacted]');
    return clean.length > MAX_MESSAGE_CHARS ? `${clean.slice(0, MAX_MESSAGE_CHARS - 1)}…` : clean;
  }
}

function declined(code: string, message: string, reference: string | null): ChargeOutcome {
  return { kind: 'declined', code, message, reference };
}

/** "ECONNREFUSED" rather than undici's bare "fetch failed". */
function describe(error: unknown): string {
  const cause = error instanceof Error && isObject(error.cause) ? error.cause : undefined;
  return str(cause, 'code') ?? (error instanceof Error ? error.message : String(error));
}
