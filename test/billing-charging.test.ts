// Charging through Stripe (a local fixture speaking its API) on the manual clock, both databases:
// a declined card is retried 1, 3 and 5 days after the invoice opened, then the account is past due
// and metered requests answer 402 while invoices stay readable; a payment Stripe reports (signed
// event) restores active at once. A Stripe outage is retried with the same idempotency key and is
// not counted as an attempt. A signed payment that is not the invoice's money (amount, currency,
// customer) settles nothing and is recorded. Invoices as PDF and HTML.
import { Writable } from 'node:stream';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DAY, HOUR } from '../src/clock.js';
import { createLogger } from '../src/logger.js';
import { signStripePayload } from '../src/billing/stripe-signature.js';
import { bearer, json, notFoundAnswer, startTestApp, STATUS_URL, type TestApp } from './helpers/app.js';
import { describeEachDatabase, itWithoutDatabase } from './helpers/databases.js';
import { startStripeFixture, STRIPE_TEST_KEY, type StripeFixture } from './helpers/stripe-fixture.js';

const APRIL = Date.UTC(2026, 3, 1);
const SIGNING_SECRET = 'whsec_test0123456789abcdef';

describeEachDatabase('charging', (kind) => {
  let t: TestApp;
  let stripe: StripeFixture;
  let logs: string[];
  beforeEach(async () => {
    stripe = await startStripeFixture();
    logs = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logs.push(String(chunk));
        done();
      },
    });
    t = await startTestApp(kind, {
      logger: createLogger('warn', sink),
      resolver: { resolve: async (query) => notFoundAnswer(query) },
      pollIntervalMs: 24 * HOUR,
      webhooks: { intervalMs: 24 * HOUR },
      follow: { intervalMs: 24 * HOUR },
      billing: { stripe: { key: STRIPE_TEST_KEY, url: stripe.url, webhookSecret: SIGNING_SECRET } },
    });
    await t.admin('POST', '/api/admin/v1/plans', {
      id: 'starter',
      name: 'Starter',
      currency: 'EUR',
      monthlyFee: '0',
      included: 3,
      overage: true,
      overagePrice: '0.125',
    });
  });
  afterEach(async () => {
    await t?.close();
    await stripe?.close();
  });

  async function customer(paymentMethod: string) {
    const account = await t.account({ plan: null });
    const patched = await t.admin('PATCH', `/api/admin/v1/accounts/${account.accountId}`, {
      planId: 'starter',
      gatewayCustomer: 'cus_test1',
      paymentMethod,
    });
    expect(patched.statusCode, patched.body).toBe(200);
    for (let i = 0; i < 10; i++) await t.get(STATUS_URL, bearer(account.key)); // 7 overage: €0.88
    return account;
  }
  const advanceTo = (at: number) => t.admin('POST', '/api/admin/v1/clock', { to: new Date(at).toISOString() });
  /** The PaymentIntent of a payment of invoice €0.88 by the account's customer; `intent` changes what was paid. */
  const stripeEvent = (
    type: string,
    invoiceId: string,
    signedAt = Math.floor(Date.now() / 1000),
    secret = SIGNING_SECRET,
    intent: Record<string, unknown> = {},
  ) => {
    const body = JSON.stringify({
      id: 'evt_1',
      object: 'event',
      type,
      created: signedAt,
      livemode: false,
      data: {
        object: {
          id: 'pi_paid_by_customer',
          object: 'payment_intent',
          status: 'succeeded',
          amount: 88,
          amount_received: 88,
          currency: 'eur',
          customer: 'cus_test1',
          metadata: { invoice_id: invoiceId },
          ...intent,
        },
      },
    });
    return t.app.http.inject({
      method: 'POST',
      url: '/api/billing/stripe/events',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'stripe-signature': signStripePayload(body, secret, signedAt),
      },
      payload: body,
    });
  };

  it('charges the saved card once the invoice opens', async () => {
    const { key } = await customer('pm_card_visa');
    await advanceTo(APRIL + HOUR);
    const [invoice] = json(await t.get('/api/v1/invoices', bearer(key))).data.invoices;
    expect(invoice).toMatchObject({
      state: 'paid',
      total: '0.88',
      attempts: 1,
      paidAt: new Date(APRIL + HOUR).toISOString(),
    });
    expect(stripe.requests).toHaveLength(1);
    const form = new URLSearchParams(stripe.requests[0]!.body);
    expect(Object.fromEntries(form)).toMatchObject({
      amount: '88',
      currency: 'eur',
      customer: 'cus_test1',
      payment_method: 'pm_card_visa',
      confirm: 'true',
      off_session: 'true',
      'metadata[invoice_id]': invoice.id,
    });
    expect(stripe.requests[0]!.headers['idempotency-key']).toBe(`flightstatus-${invoice.id}-1`);

    // Its PDF and HTML, readable with the key; not another account's.
    const pdf = await t.get(`/api/v1/invoices/${invoice.id}/pdf`, bearer(key));
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const page = await t.get(`/api/v1/invoices/${invoice.id}/html`, bearer(key));
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('FS-000001');
    expect(page.body).toContain('0.88');
    const other = await t.account();
    expect((await t.get(`/api/v1/invoices/${invoice.id}/pdf`, bearer(other.key))).statusCode).toBe(404);
    // The operator downloads any invoice's PDF: the same document.
    const operator = await t.admin('GET', `/api/admin/v1/invoices/${invoice.id}/pdf`);
    expect(operator.statusCode).toBe(200);
    expect(operator.headers['content-type']).toBe('application/pdf');
    expect(operator.headers['content-disposition']).toBe('attachment; filename="FS-000001.pdf"');
    expect(operator.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect((await t.admin('GET', '/api/admin/v1/invoices/inv_missing/pdf')).statusCode).toBe(404);
  }, 60_000);

  it('retries a declined card on the dunning schedule, then past due answers 402 until Stripe reports the payment', async () => {
    const { accountId, key } = await customer('pm_card_chargeDeclined');
    stripe.failNext(1); // Stripe is down for the first try: not an attempt, retried an hour later with the same key
    await advanceTo(APRIL + HOUR);
    let [invoice] = json(await t.get('/api/v1/invoices', bearer(key))).data.invoices;
    expect(invoice).toMatchObject({
      state: 'open',
      attempts: 0,
      nextAttemptAt: new Date(APRIL + 2 * HOUR).toISOString(),
    });

    await advanceTo(APRIL + 2 * HOUR);
    [invoice] = json(await t.get('/api/v1/invoices', bearer(key))).data.invoices;
    expect(invoice).toMatchObject({
      state: 'open',
      attempts: 1,
      nextAttemptAt: new Date(APRIL + HOUR + DAY).toISOString(),
    });
    expect((await t.get(STATUS_URL, bearer(key))).statusCode).toBe(200); // not past due yet

    await advanceTo(APRIL + 5 * DAY + 2 * HOUR);
    [invoice] = json(await t.get('/api/v1/invoices', bearer(key))).data.invoices;
    expect(invoice).toMatchObject({ state: 'open', attempts: 4, nextAttemptAt: null });
    expect(stripe.requests.map((r) => r.headers['idempotency-key'])).toEqual(
      [1, 1, 2, 3, 4].map((n) => `flightstatus-${invoice.id}-${n}`),
    );
    const refused = await t.get(STATUS_URL, bearer(key));
    expect(refused.statusCode).toBe(402);
    expect(json(refused).message).toMatch(/past due/);
    // Still free to read what it owes.
    expect((await t.get(`/api/v1/invoices/${invoice.id}`, bearer(key))).statusCode).toBe(200);
    const billing = json(await t.admin('GET', `/api/admin/v1/accounts/${accountId}/billing`)).data;
    expect(billing.status).toBe('past_due');
    expect(billing.history).toEqual([
      {
        at: new Date(APRIL + 5 * DAY + HOUR).toISOString(),
        subject: 'account',
        from: 'active',
        to: 'past_due',
        reason: 'invoice FS-000001 unpaid after 4 attempts',
      },
    ]);

    // A forged or stale event changes nothing.
    expect(
      (await stripeEvent('payment_intent.succeeded', invoice.id, undefined, 'whsec_someone_else')).statusCode,
    ).toBe(400);
    expect(
      (await stripeEvent('payment_intent.succeeded', invoice.id, Math.floor(Date.now() / 1000) - 3600)).statusCode,
    ).toBe(400);
    expect((await t.get(STATUS_URL, bearer(key))).statusCode).toBe(402);

    // The customer pays (say, on Stripe's hosted page): Stripe's signed event restores active at once.
    const event = await stripeEvent('payment_intent.succeeded', invoice.id);
    expect(event.statusCode).toBe(200);
    expect(json(event).data).toEqual({ received: true, handled: true });
    expect((await t.get(STATUS_URL, bearer(key))).statusCode).toBe(200);
    const detail = json(await t.admin('GET', `/api/admin/v1/invoices/${invoice.id}`)).data;
    expect(detail.invoice).toMatchObject({ state: 'paid', paidAt: expect.any(String) });
    expect(detail.history.map((h: { subject: string; to: string }) => `${h.subject}:${h.to}`)).toEqual([
      'invoice:draft',
      'invoice:open',
      'charge:unavailable',
      'charge:declined',
      'charge:declined',
      'charge:declined',
      'charge:declined',
      'invoice:paid',
    ]);
    expect(
      json(await t.admin('GET', `/api/admin/v1/accounts/${accountId}/billing`)).data.history.map(
        (h: { to: string }) => h.to,
      ),
    ).toEqual(['past_due', 'active']);
    // The same event again (Stripe retries deliveries) is acknowledged and changes nothing.
    expect(json(await stripeEvent('payment_intent.succeeded', invoice.id)).data).toEqual({
      received: true,
      handled: false,
    });
  }, 60_000);

  it("settles nothing with a signed payment that is not the invoice's money: records it, logs it, answers 200", async () => {
    const { key } = await customer('pm_card_chargeDeclined');
    await advanceTo(APRIL + HOUR);
    const [invoice] = json(await t.get('/api/v1/invoices', bearer(key))).data.invoices;
    expect(invoice).toMatchObject({ state: 'open', total: '0.88', attempts: 1 });
    const now = Math.floor(Date.now() / 1000);
    const send = async (intent: Record<string, unknown>) => {
      const answer = await stripeEvent('payment_intent.succeeded', invoice.id, now, SIGNING_SECRET, intent);
      // Acknowledged: Stripe would otherwise redeliver the event for days, to the same verdict.
      expect(answer.statusCode, answer.body).toBe(200);
      expect(json(answer).data).toEqual({ received: true, handled: false });
      expect(json(await t.get(`/api/v1/invoices/${invoice.id}`, bearer(key))).data).toMatchObject({
        state: 'open',
        paidAt: null,
      });
    };
    // The attack: one cent in USD from another customer, naming the invoice.
    await send({ id: 'pi_attack', amount: 1, amount_received: 1, currency: 'usd', customer: 'cus_attacker' });
    await send({ id: 'pi_attack', amount: 1, amount_received: 1, currency: 'usd', customer: 'cus_attacker' }); // redelivered: recorded once
    await send({ id: 'pi_short', amount: 88, amount_received: 87 }); // wrong amount (amount_received decides)
    await send({ id: 'pi_dollars', currency: 'usd' }); // wrong currency
    await send({ id: 'pi_stranger', customer: 'cus_someone_else' }); // wrong customer
    await send({ id: 'pi_nobody', customer: null }); // no customer at all

    const detail = json(await t.admin('GET', `/api/admin/v1/invoices/${invoice.id}`)).data;
    expect(detail.invoice.state).toBe('open');
    const mismatches = detail.history.filter((h: { to: string }) => h.to === 'mismatch');
    expect(mismatches.map((h: { subject: string; reason: string }) => [h.subject, h.reason])).toEqual([
      [
        'charge',
        'stripe reports payment pi_attack naming invoice FS-000001, not settled: amount 1 (expected 88, minor units); currency usd (expected EUR); customer cus_attacker (expected cus_test1)',
      ],
      [
        'charge',
        'stripe reports payment pi_short naming invoice FS-000001, not settled: amount 87 (expected 88, minor units)',
      ],
      [
        'charge',
        'stripe reports payment pi_dollars naming invoice FS-000001, not settled: currency usd (expected EUR)',
      ],
      [
        'charge',
        'stripe reports payment pi_stranger naming invoice FS-000001, not settled: customer cus_someone_else (expected cus_test1)',
      ],
      [
        'charge',
        'stripe reports payment pi_nobody naming invoice FS-000001, not settled: customer none (expected cus_test1)',
      ],
    ]);
    // The operator's list still has it open.
    const open = json(await t.admin('GET', '/api/admin/v1/invoices?state=open')).data.invoices;
    expect(open.map((i: { id: string }) => i.id)).toContain(invoice.id);

    // A warning for each delivery, without the key or the signing secret.
    const warnings = logs.filter((line) => line.includes('does not match its invoice'));
    expect(warnings).toHaveLength(6);
    expect(JSON.parse(warnings[0]!)).toMatchObject({
      level: 40,
      invoiceId: invoice.id,
      invoiceNumber: 'FS-000001',
      payment: 'pi_attack',
      repeated: false,
    });
    expect(JSON.parse(warnings[1]!)).toMatchObject({ payment: 'pi_attack', repeated: true });
    for (const line of logs) {
      expect(line).not.toContain(STRIPE_TEST_KEY);
      expect(line).not.toContain(SIGNING_SECRET);
    }

    // The customer's own payment of the whole amount settles it.
    const paid = await stripeEvent('payment_intent.succeeded', invoice.id, now, SIGNING_SECRET, { id: 'pi_real' });
    expect(json(paid).data).toEqual({ received: true, handled: true });
    const settled = json(await t.admin('GET', `/api/admin/v1/invoices/${invoice.id}`)).data;
    expect(settled.invoice).toMatchObject({ state: 'paid', paidAt: expect.any(String) });
    expect(settled.history.at(-1)).toMatchObject({
      subject: 'invoice',
      from: 'open',
      to: 'paid',
      reason: 'stripe reports payment pi_real',
    });
  }, 60_000);

  it('lets the operator settle a past-due invoice by hand or write it off, which also restores the account', async () => {
    const { key } = await customer('pm_card_chargeDeclinedInsufficientFunds');
    await advanceTo(APRIL + 6 * DAY);
    const [invoice] = json(await t.get('/api/v1/invoices', bearer(key))).data.invoices;
    expect((await t.get(STATUS_URL, bearer(key))).statusCode).toBe(402);
    const written = await t.admin('POST', `/api/admin/v1/invoices/${invoice.id}/uncollectible`, {
      reason: 'customer insolvent',
    });
    expect(json(written).data.invoice.state).toBe('uncollectible');
    expect((await t.get(STATUS_URL, bearer(key))).statusCode).toBe(200);
    expect((await t.admin('POST', `/api/admin/v1/invoices/${invoice.id}/void`)).statusCode).toBe(409);
    expect(
      (await t.admin('POST', `/api/admin/v1/invoices/${invoice.id}/pay`, { reason: 'paid late by transfer' }))
        .statusCode,
    ).toBe(200);
    expect((await t.admin('POST', `/api/admin/v1/invoices/${invoice.id}/pay`, { reason: 7 })).statusCode).toBe(400);
  }, 60_000);
});

itWithoutDatabase(
  'the simulated gateway answers like Stripe test cards: declined to past due, and paid back to active (the walkthrough)',
  async () => {
    const t = await startTestApp('sqlite', {
      resolver: { resolve: async (query) => notFoundAnswer(query) },
      pollIntervalMs: 24 * HOUR,
      webhooks: { intervalMs: 24 * HOUR },
      follow: { intervalMs: 24 * HOUR },
      billing: { gateway: 'simulated' },
    });
    try {
      await t.admin('POST', '/api/admin/v1/plans', {
        id: 'starter',
        name: 'Starter',
        currency: 'EUR',
        monthlyFee: '0',
        included: 3,
        overage: true,
        overagePrice: '0.125',
      });
      const { accountId, key } = await t.account({ plan: null });
      await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, {
        planId: 'starter',
        gatewayCustomer: 'cus_demo',
        paymentMethod: 'pm_card_chargeDeclined',
      });
      for (let i = 0; i < 10; i++) await t.get(STATUS_URL, bearer(key));
      await t.admin('POST', '/api/admin/v1/clock', { to: new Date(APRIL + 5 * DAY + 2 * HOUR).toISOString() });
      const [invoice] = json(await t.get('/api/v1/invoices', bearer(key))).data.invoices;
      expect(invoice).toMatchObject({ state: 'open', attempts: 4, total: '0.88' });
      expect((await t.get(STATUS_URL, bearer(key))).statusCode).toBe(402);
      const history = json(await t.admin('GET', `/api/admin/v1/invoices/${invoice.id}`)).data.history;
      expect(history.filter((h: { to: string }) => h.to === 'declined')[0].reason).toMatch(
        /simulated declined attempt 1 \(card_declined/,
      );
      await t.admin('POST', `/api/admin/v1/invoices/${invoice.id}/pay`, { reason: 'paid by bank transfer' });
      expect((await t.get(STATUS_URL, bearer(key))).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  },
  60_000,
);
