// The Stripe gateway against a local stand-in for Stripe's API: the request Stripe receives (form
// fields, key, idempotency key), each documented answer mapped to succeeded, declined or
// unavailable, retries under one key charging once, and the key kept out of every message. Then
// webhook signatures: Stripe's scheme, its tolerance and its rolled secrets.
import { afterEach, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../../test/helpers/fixture-server.js';
import { STRIPE_TEST_KEY, startStripeFixture, type StripeFixture } from '../../test/helpers/stripe-fixture.js';
import type { ChargeRequest } from './gateway.js';
import { signStripePayload, verifyStripeSignature } from './stripe-signature.js';
import { STRIPE_API_VERSION, StripeGateway } from './stripe.js';

let fixture: StripeFixture | undefined;
let other: FixtureServer | undefined;
afterEach(async () => {
  await fixture?.close();
  await other?.close();
  fixture = other = undefined;
});

const request = (over: Partial<ChargeRequest> = {}): ChargeRequest => ({
  invoiceId: 'inv_01HZX',
  invoiceNumber: 'FS-000042',
  accountId: 'acct_7q2',
  amountMinor: 4900,
  currency: 'EUR',
  attempt: 1,
  customer: 'cus_Q1w2e3',
  paymentMethod: 'pm_card_visa',
  ...over,
});

async function gatewayWith(
  options: { apiKey?: string; timeoutMs?: number } = {},
): Promise<{ gateway: StripeGateway; stripe: StripeFixture }> {
  const stripe = (fixture = await startStripeFixture());
  return {
    stripe,
    gateway: new StripeGateway({
      apiKey: options.apiKey ?? STRIPE_TEST_KEY,
      baseUrl: stripe.url,
      timeoutMs: options.timeoutMs ?? 2000,
    }),
  };
}

const succeeded = (stripe: StripeFixture) =>
  [...stripe.intents.values()].filter((intent) => intent.status === 'succeeded');

describe('StripeGateway.charge', () => {
  it('creates and confirms one off-session PaymentIntent with the invoice in its metadata', async () => {
    const { gateway, stripe } = await gatewayWith();
    expect(gateway).toMatchObject({ name: 'stripe', charges: true });
    const outcome = await gateway.charge(request());
    const [intent] = stripe.intents.values();
    expect(outcome).toEqual({ kind: 'succeeded', reference: intent!.id });
    expect(intent).toMatchObject({
      status: 'succeeded',
      amount: 4900,
      currency: 'eur',
      customer: 'cus_Q1w2e3',
      payment_method: 'pm_card_visa',
    });

    const [sent] = stripe.requests;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/payment_intents' });
    expect(sent!.headers).toMatchObject({
      authorization: `Bearer ${STRIPE_TEST_KEY}`,
      'content-type': 'application/x-www-form-urlencoded',
      'idempotency-key': 'flightstatus-inv_01HZX-1',
      'stripe-version': '2024-06-20',
    });
    expect(STRIPE_API_VERSION).toBe('2024-06-20');
    expect(Object.fromEntries(new URLSearchParams(sent!.body))).toEqual({
      amount: '4900',
      currency: 'eur',
      customer: 'cus_Q1w2e3',
      payment_method: 'pm_card_visa',
      confirm: 'true',
      off_session: 'true',
      description: 'Invoice FS-000042',
      'metadata[invoice_id]': 'inv_01HZX',
      'metadata[invoice_number]': 'FS-000042',
      'metadata[account_id]': 'acct_7q2',
    });
  });

  it('pins Stripe-Version on every request, retries included; the fixture refuses a request without it', async () => {
    const { gateway, stripe } = await gatewayWith();
    stripe.failNext(1, 503);
    await gateway.charge(request());
    await gateway.charge(request());
    await gateway.charge(request({ invoiceId: 'inv_2', paymentMethod: 'pm_card_chargeDeclined' }));
    expect(stripe.requests.map((r) => r.headers['stripe-version'])).toEqual(Array(3).fill(STRIPE_API_VERSION));

    const bare = await fetch(`${stripe.url}/v1/payment_intents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${STRIPE_TEST_KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'amount=100&currency=eur&customer=cus_1&payment_method=pm_card_visa&confirm=true',
    });
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as { error: { message: string } }).error.message).toMatch(/no Stripe-Version header/);
    // Pinned to another version, the same gateway's charge is refused (as Stripe refuses an unknown one).
    await stripe.close();
    fixture = await startStripeFixture({ apiVersion: '2020-08-27' });
    const elsewhere = new StripeGateway({ apiKey: STRIPE_TEST_KEY, baseUrl: fixture.url, timeoutMs: 2000 });
    expect(await elsewhere.charge(request())).toEqual({
      kind: 'unavailable',
      message: 'Stripe answered HTTP 400 invalid_request_error: Invalid Stripe API version: 2024-06-20',
    });
  });

  it('sends zero-decimal amounts as they are (JPY)', async () => {
    const { gateway, stripe } = await gatewayWith();
    expect((await gateway.charge(request({ amountMinor: 5000, currency: 'JPY' }))).kind).toBe('succeeded');
    expect([...stripe.intents.values()][0]).toMatchObject({ amount: 5000, currency: 'jpy' });
  });

  it.each([
    ['pm_card_chargeDeclined', 'generic_decline', 'Your card was declined.'],
    ['pm_card_chargeDeclinedInsufficientFunds', 'insufficient_funds', 'Your card has insufficient funds.'],
    [
      'pm_card_authenticationRequired',
      'authentication_required',
      'Your card was declined. This transaction requires authentication.',
    ],
  ])('maps %s to a decline with the PaymentIntent as reference', async (paymentMethod, code, message) => {
    const { gateway, stripe } = await gatewayWith();
    const outcome = await gateway.charge(request({ paymentMethod }));
    const [intent] = stripe.intents.values();
    expect(intent!.status).toBe('requires_payment_method');
    expect(outcome).toEqual({ kind: 'declined', code, message, reference: intent!.id });
  });

  it('declines without calling Stripe when the account has no payment method or no customer', async () => {
    const { gateway, stripe } = await gatewayWith();
    expect(await gateway.charge(request({ paymentMethod: null }))).toMatchObject({
      kind: 'declined',
      code: 'no_payment_method',
      reference: null,
    });
    expect(await gateway.charge(request({ customer: null }))).toMatchObject({
      kind: 'declined',
      code: 'no_customer',
      reference: null,
    });
    expect(stripe.requests).toHaveLength(0);
  });

  it('is unavailable on a 5xx, and the retry under the same key charges once', async () => {
    const { gateway, stripe } = await gatewayWith();
    stripe.failNext(1, 503);
    const first = await gateway.charge(request());
    expect(first).toMatchObject({ kind: 'unavailable', message: expect.stringContaining('HTTP 503 api_error') });
    const second = await gateway.charge(request());
    expect(second.kind).toBe('succeeded');
    // A duplicate retry (say, after a crash before the outcome was recorded) replays the same charge.
    expect(await gateway.charge(request())).toEqual(second);
    expect(stripe.requests.map((r) => r.headers['idempotency-key'])).toEqual(Array(3).fill('flightstatus-inv_01HZX-1'));
    expect(stripe.requests[2]!.body).toBe(stripe.requests[0]!.body);
    expect(succeeded(stripe)).toHaveLength(1);
  });

  it('is unavailable on a timeout; the retry under the same key returns the charge Stripe made meanwhile', async () => {
    const { stripe } = await gatewayWith();
    const gateway = new StripeGateway({ apiKey: STRIPE_TEST_KEY, baseUrl: stripe.url, timeoutMs: 100 });
    stripe.delayMs = 1000;
    expect(await gateway.charge(request())).toEqual({
      kind: 'unavailable',
      message: 'Stripe did not answer within 100 ms',
    });
    stripe.delayMs = 0;
    const retry = await gateway.charge(request());
    expect(retry).toEqual({ kind: 'succeeded', reference: [...stripe.intents.keys()][0] });
    expect(stripe.intents.size).toBe(1);
  });

  it('makes a new PaymentIntent for the next dunning attempt, while the same attempt replays its decline', async () => {
    const { gateway, stripe } = await gatewayWith();
    const declined = await gateway.charge(request({ paymentMethod: 'pm_card_chargeDeclined' }));
    expect(await gateway.charge(request({ paymentMethod: 'pm_card_chargeDeclined' }))).toEqual(declined);
    expect(stripe.intents.size).toBe(1);
    const next = await gateway.charge(request({ paymentMethod: 'pm_card_visa', attempt: 2 }));
    expect(next.kind).toBe('succeeded');
    expect(stripe.requests.at(-1)!.headers['idempotency-key']).toBe('flightstatus-inv_01HZX-2');
    expect(stripe.intents.size).toBe(2);
  });

  it('is unavailable, naming the error, when the same key comes with another body or Stripe refuses the customer', async () => {
    const { gateway, stripe } = await gatewayWith();
    await gateway.charge(request());
    expect(await gateway.charge(request({ amountMinor: 5000 }))).toMatchObject({
      kind: 'unavailable',
      message: expect.stringContaining('HTTP 400 idempotency_error'),
    });
    expect(await gateway.charge(request({ invoiceId: 'inv_2', customer: 'nobody' }))).toEqual({
      kind: 'unavailable',
      message: "Stripe answered HTTP 400 invalid_request_error/resource_missing: No such customer: 'nobody'",
    });
    expect(stripe.intents.size).toBe(1);
  });

  it('is unavailable with a wrong key, and never repeats the key', async () => {
    const wrongKey = 'sk_test_not_the_right_one_55aa';
    const { gateway, stripe } = await gatewayWith({ apiKey: wrongKey });
    const outcome = await gateway.charge(request());
    expect(outcome).toMatchObject({
      kind: 'unavailable',
      message: expect.stringContaining('HTTP 401 invalid_request_error: Invalid API Key provided'),
    });
    expect(JSON.stringify(outcome)).not.toContain(wrongKey);
    expect(stripe.intents.size).toBe(0);

    // Even a proxy that echoes the whole key back does not get it into the outcome.
    other = await startFixtureServer((r) => ({
      status: 401,
      body: { error: { type: 'invalid_request_error', message: `bad key ${r.headers.authorization}` } },
    }));
    const echoed = await new StripeGateway({ apiKey: wrongKey, baseUrl: other.url, timeoutMs: 2000 }).charge(request());
    expect(echoed).toEqual({
      kind: 'unavailable',
      message: 'Stripe answered HTTP 401 invalid_request_error: bad key Bearer [redacted]',
    });
  });

  it('is unavailable when the answer is not JSON, not a PaymentIntent, or still processing', async () => {
    const replies = [
      { status: 502, body: '<html>Bad Gateway</html>' },
      { status: 200, body: 'OK' },
      { status: 200, body: { object: 'list', data: [] } },
      { status: 200, body: { id: 'pi_123', object: 'payment_intent', status: 'processing' } },
      {
        status: 429,
        body: { error: { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests.' } },
      },
    ];
    other = await startFixtureServer(() => replies.shift()!);
    const gateway = new StripeGateway({ apiKey: STRIPE_TEST_KEY, baseUrl: other.url, timeoutMs: 2000 });
    const messages = [];
    for (let i = 0; i < 5; i++) {
      const outcome = await gateway.charge(request());
      expect(outcome.kind).toBe('unavailable');
      messages.push(outcome.kind === 'unavailable' ? outcome.message : '');
    }
    expect(messages).toEqual([
      'Stripe answered HTTP 502 with a body that is not JSON',
      'Stripe answered HTTP 200 with a body that is not JSON',
      'Stripe answered without a PaymentIntent',
      'payment pi_123 is processing; its outcome arrives as a payment_intent webhook event',
      'Stripe answered HTTP 429 invalid_request_error/rate_limit: Too many requests.',
    ]);
  });

  it('maps a 2xx PaymentIntent left needing action or a payment method to a decline', async () => {
    const replies = [
      { status: 200, body: { id: 'pi_a', status: 'requires_action' } },
      {
        status: 200,
        body: {
          id: 'pi_b',
          status: 'requires_payment_method',
          last_payment_error: {
            code: 'card_declined',
            decline_code: 'do_not_honor',
            message: 'Your card was declined.',
          },
        },
      },
      { status: 200, body: { id: 'pi_c', status: 'canceled' } },
    ];
    other = await startFixtureServer(() => replies.shift()!);
    const gateway = new StripeGateway({ apiKey: STRIPE_TEST_KEY, baseUrl: other.url, timeoutMs: 2000 });
    expect(await gateway.charge(request())).toMatchObject({
      kind: 'declined',
      code: 'authentication_required',
      reference: 'pi_a',
    });
    expect(await gateway.charge(request())).toEqual({
      kind: 'declined',
      code: 'do_not_honor',
      message: 'Your card was declined.',
      reference: 'pi_b',
    });
    expect(await gateway.charge(request())).toMatchObject({ kind: 'declined', code: 'canceled', reference: 'pi_c' });
  });

  it('is unavailable when Stripe cannot be reached', async () => {
    other = await startFixtureServer(() => ({ status: 200 }));
    const url = other.url;
    await other.close();
    other = undefined;
    const outcome = await new StripeGateway({ apiKey: STRIPE_TEST_KEY, baseUrl: url, timeoutMs: 2000 }).charge(
      request(),
    );
    expect(outcome).toEqual({ kind: 'unavailable', message: 'could not reach Stripe: ECONNREFUSED' });
  });
});

describe('Stripe webhook signatures', () => {
  const SECRET = 'whsec_test_5f0e9a7c';
  const NOW = 1_767_225_600;
  const BODY = '{"id":"evt_1","object":"event","type":"payment_intent.succeeded"}';
  const v1 = (header: string) => header.split(',v1=')[1]!;

  it('accepts a body signed with the secret, as a string or as bytes', () => {
    const header = signStripePayload(BODY, SECRET, NOW - 10);
    expect(header).toMatch(/^t=1767225590,v1=[0-9a-f]{64}$/);
    expect(verifyStripeSignature(BODY, header, SECRET, NOW)).toEqual({ ok: true });
    expect(verifyStripeSignature(Buffer.from(BODY), header, SECRET, NOW)).toEqual({ ok: true });
  });

  it('refuses a tampered body and a wrong secret', () => {
    const header = signStripePayload(BODY, SECRET, NOW);
    expect(verifyStripeSignature(BODY.replace('succeeded', 'payment_failed'), header, SECRET, NOW)).toEqual({
      ok: false,
      reason: 'no v1 signature matches the body and the secret',
    });
    expect(verifyStripeSignature(`${BODY} `, header, SECRET, NOW).ok).toBe(false);
    expect(verifyStripeSignature(BODY, header, 'whsec_other', NOW).ok).toBe(false);
    expect(verifyStripeSignature(BODY, header, '', NOW)).toEqual({
      ok: false,
      reason: 'no webhook signing secret is configured',
    });
  });

  it('refuses a signature outside the tolerance, either way', () => {
    expect(verifyStripeSignature(BODY, signStripePayload(BODY, SECRET, NOW - 300), SECRET, NOW)).toEqual({ ok: true });
    expect(verifyStripeSignature(BODY, signStripePayload(BODY, SECRET, NOW - 301), SECRET, NOW)).toEqual({
      ok: false,
      reason: 'signature timestamp is 301 s away from now (tolerance 300 s)',
    });
    expect(verifyStripeSignature(BODY, signStripePayload(BODY, SECRET, NOW + 301), SECRET, NOW).ok).toBe(false);
    expect(verifyStripeSignature(BODY, signStripePayload(BODY, SECRET, NOW - 3600), SECRET, NOW, 7200)).toEqual({
      ok: true,
    });
    expect(verifyStripeSignature(BODY, signStripePayload(BODY, SECRET, NOW), SECRET, Number.NaN).ok).toBe(false);
  });

  it('accepts any matching v1 among several (a secret being rolled) and ignores v0', () => {
    const good = v1(signStripePayload(BODY, SECRET, NOW));
    const old = v1(signStripePayload(BODY, 'whsec_old', NOW));
    expect(verifyStripeSignature(BODY, `t=${NOW},v1=${old},v1=${good},v0=${'0'.repeat(64)}`, SECRET, NOW)).toEqual({
      ok: true,
    });
    expect(verifyStripeSignature(BODY, `t=${NOW},v1=${old}`, SECRET, NOW).ok).toBe(false);
    // v0 alone, even a correct HMAC, is not a v1.
    expect(verifyStripeSignature(BODY, `t=${NOW},v0=${good}`, SECRET, NOW)).toEqual({
      ok: false,
      reason: 'Stripe-Signature header has no v1 signature',
    });
  });

  it('refuses missing and malformed headers', () => {
    const good = v1(signStripePayload(BODY, SECRET, NOW));
    const cases: Array<[string | undefined, string]> = [
      [undefined, 'missing Stripe-Signature header'],
      ['', 'missing Stripe-Signature header'],
      ['garbage', 'malformed Stripe-Signature header'],
      [`v1=${good}`, 'Stripe-Signature header has no timestamp (t=…)'],
      [`t=${NOW}`, 'Stripe-Signature header has no v1 signature'],
      [`t=soon,v1=${good}`, 'malformed timestamp in Stripe-Signature header'],
      [`t=${NOW},t=${NOW - 1},v1=${good}`, 'malformed timestamp in Stripe-Signature header'],
      [`t=${NOW},v1=${good.slice(2)}`, 'Stripe-Signature header has no v1 signature'],
      [`t=${NOW},v1=${good.toUpperCase()}`, 'Stripe-Signature header has no v1 signature'],
    ];
    for (const [header, reason] of cases)
      expect(verifyStripeSignature(BODY, header, SECRET, NOW)).toEqual({ ok: false, reason });
  });

  it("verifies the fixture's signed events as a receiver would", async () => {
    const { gateway, stripe } = await gatewayWith();
    await gateway.charge(request());
    const [intent] = stripe.intents.values();
    other = await startFixtureServer((r) => {
      const check = verifyStripeSignature(r.body, r.headers['stripe-signature'] as string | undefined, SECRET, NOW);
      return check.ok
        ? { status: 200, body: { received: JSON.parse(r.body).type } }
        : { status: 400, body: check.reason };
    });
    expect(await stripe.sendEvent(other.url, 'payment_intent.succeeded', intent!, SECRET, NOW - 5)).toEqual({
      status: 200,
      body: '{"received":"payment_intent.succeeded"}',
    });
    expect(await stripe.sendEvent(other.url, 'payment_intent.payment_failed', intent!, 'whsec_wrong', NOW)).toEqual({
      status: 400,
      body: 'no v1 signature matches the body and the secret',
    });
    const event = JSON.parse(other.requests[0]!.body);
    expect(event).toMatchObject({
      object: 'event',
      type: 'payment_intent.succeeded',
      created: NOW - 5,
      livemode: false,
      data: { object: { id: intent!.id } },
    });
    expect(event.id).toMatch(/^evt_/);
  });
});
