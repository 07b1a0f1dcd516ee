// Upgrade now (docs/billing.md, "Upgrade now"), through HTTP on both databases, on the manual clock:
// a dearer plan chosen on the dashboard applies at once (the new allowance for this window, what was
// used counting against it) and the difference of the fees, prorated for the time left of the window,
// is invoiced at once, to the cent the form said; a cheaper plan waits for the window's end; an
// upgrade drops a pending downgrade or cancellation; two upgrades at once bill once; the operator's
// `"effective": "now"`.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DAY, HOUR, MINUTE } from '../src/clock.js';
import { bearer, json, notFoundAnswer, startTestApp, STATUS_URL, T0, type TestApp } from './helpers/app.js';
import { describeEachDatabase } from './helpers/databases.js';
import { PASSWORD, text, Visitor } from './helpers/dashboard.js';
import { pdfText } from './helpers/pdf.js';

const plan = (id: string, fee: string, included: number, price: string) => ({
  id,
  name: id[0]!.toUpperCase() + id.slice(1),
  currency: 'EUR',
  monthlyFee: fee,
  included,
  overage: true,
  overagePrice: price,
  selfService: true,
});
/** The first window of an account subscribed at T0 (2026-03-01T12:00Z) ends here. */
const WINDOW_END = T0 + 30 * DAY;
/** 18 days 6 h before the window's end: 18.25 / 30 of it left. */
const MID = WINDOW_END - (18 * DAY + 6 * HOUR);

describeEachDatabase('upgrades at once, prorated', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    // A seller registered for VAT in Germany: a buyer without a country pays 19 % on the proration.
    t = await startTestApp(kind, {
      resolver: { resolve: async (query) => notFoundAnswer(query) },
      pollIntervalMs: 24 * HOUR,
      webhooks: { intervalMs: 24 * HOUR },
      follow: { intervalMs: 24 * HOUR },
      seller: { name: 'Flight Status GmbH', country: 'DE', vatId: 'DE136695976' },
    });
    for (const p of [
      plan('starter', '10.00', 3, '0.5'),
      plan('pro', '49.00', 10, '0.1'),
      plan('max', '99.00', 100, '0.05'),
    ])
      expect((await t.admin('POST', '/api/admin/v1/plans', p)).statusCode).toBe(201);
  });
  afterEach(async () => t?.close());

  const advanceTo = async (at: number) =>
    expect((await t.admin('POST', '/api/admin/v1/clock', { to: new Date(at).toISOString() })).statusCode).toBe(200);
  const requests = async (key: string, n: number) => {
    for (let i = 0; i < n; i++) expect((await t.get(STATUS_URL, bearer(key))).statusCode).toBe(200);
  };
  const invoices = async (accountId: string, kind?: string) =>
    json(await t.admin('GET', `/api/admin/v1/invoices?account=${accountId}${kind ? `&kind=${kind}` : ''}`)).data
      .invoices as any[];
  const subscription = async (accountId: string) =>
    json(await t.admin('GET', `/api/admin/v1/accounts/${accountId}`)).data.subscription;

  /** An account on `planId` from T0 (its first window: T0 to WINDOW_END), with a key and a signed-in owner. */
  async function customer(planId: string, email = 'ana@example.com') {
    const account = await t.account({ plan: null });
    const patched = await t.admin('PATCH', `/api/admin/v1/accounts/${account.accountId}`, { planId });
    expect(patched.statusCode, patched.body).toBe(200);
    const { token } = await t.app.users.invite(account.accountId);
    expect((await t.app.users.acceptInvite(token, { email, password: PASSWORD })).kind).toBe('ok');
    const visitor = new Visitor(t);
    await signIn(visitor, email);
    return { ...account, visitor };
  }
  async function signIn(v: Visitor, email: string): Promise<void> {
    await v.get('/dashboard/sign-in');
    expect((await v.post('/dashboard/sign-in', { email, password: PASSWORD })).statusCode).toBe(303);
  }
  const quotedAt = (body: string, planId: string) =>
    new RegExp(`name="planId" value="${planId}"><input type="hidden" name="quotedAt" value="(\\d+)"`).exec(body)?.[1];

  it('applies an upgrade at once: the new allowance for this window, the proration invoiced at once to the cent the form said', async () => {
    const ana = await customer('starter');
    await requests(ana.key, 5); // Starter: 3 included, 2 overage
    await advanceTo(MID);
    await signIn(ana.visitor, 'ana@example.com'); // sessions last a week
    const page = await ana.visitor.get('/dashboard/billing');
    // (49.00 − 10.00) × 18.25 / 30 = 23.725: half up, 23.73; and 19 % VAT on it, 4.5087: 4.51.
    expect(text(page)).toMatch(
      /Pro 49\.00 EUR 10 0\.1 EUR a request past the allowance Starts now; you pay 28\.24 EUR now \(23\.73 EUR plus 19 % VAT\), prorated for the 18 days 6 h left of this window\. Upgrade to Pro now/,
    );
    expect(text(page)).toMatch(
      /Max 99\.00 EUR 100 0\.05 EUR .* Starts now; you pay 64\.43 EUR now \(54\.14 EUR plus 19 % VAT\)/,
    );
    const quote = quotedAt(page.body, 'pro');
    expect(quote).toBe(String(MID));

    // The customer reads for ten minutes, then confirms: billed as quoted (Stripe's proration_date).
    await advanceTo(MID + 10 * MINUTE);
    const chosen = await ana.visitor.post('/dashboard/billing/plan', { planId: 'pro', quotedAt: quote! });
    expect(chosen.statusCode, chosen.body).toBe(303);
    const location = chosen.headers.location as string;
    expect(location).toMatch(/^\/dashboard\/billing\?plan=upgraded&invoice=inv_[\w-]+#plan$/);
    const told = text(await ana.visitor.get(location));
    expect(told).toMatch(
      /Upgraded: your plan is Pro from now on, with its allowance for this window\. The prorated difference, 28\.24 EUR, is on invoice FS-000002 ?\./,
    );

    // Admitted under Pro at once: 10 included, the 5 used count against them.
    const next = await t.get(STATUS_URL, bearer(ana.key));
    expect(next.statusCode).toBe(200);
    expect(next.headers).toMatchObject({
      'x-credits-included': '10',
      'x-credits-used': '6',
      'x-credits-remaining': '4',
      'x-credits-overage': '0',
    });
    await requests(ana.key, 5); // 11 used: one past Pro's allowance, priced by Pro
    const account = json(await t.get('/api/v1/account', bearer(ana.key))).data;
    expect(account.plan).toMatchObject({ id: 'pro', included: 10, pendingChange: null });
    expect(account.credits).toMatchObject({ included: 10, used: 11, remaining: 0, overage: 1 });
    const usage = await t.app.db.kysely
      .selectFrom('usage_log')
      .select(['overage', 'plan_id'])
      .where('account_id', '=', ana.accountId)
      .orderBy('id')
      .execute();
    expect(usage.map((u) => `${Number(u.overage)}:${u.plan_id}`)).toEqual([
      ...Array(3).fill('0:starter'),
      ...Array(2).fill('1:starter'),
      ...Array(5).fill('0:pro'),
      '1:pro',
    ]);

    // The upgrade's invoice: opened at once, one line, from the quote to the window's end.
    const [upgrade, ...others] = await invoices(ana.accountId, 'upgrade');
    expect(others).toEqual([]);
    expect(upgrade).toMatchObject({
      kind: 'upgrade',
      state: 'open',
      currency: 'EUR',
      net: '23.73',
      tax: '4.51',
      total: '28.24',
      totalMinor: 2824,
      periodStart: new Date(MID).toISOString(),
      periodEnd: new Date(WINDOW_END).toISOString(),
      finalizedAt: new Date(MID + 10 * MINUTE).toISOString(),
      lines: [
        {
          planId: 'pro',
          description:
            'Upgrade from Starter to Pro, prorated: 18 days 6 h of 30 days left in the window 2026-03-01 to 2026-03-31',
          quantity: 1,
          unitPrice: '23.73',
          amount: '23.73',
          amountMinor: 2373,
        },
      ],
    });
    // Its HTML and PDF name the kind and the line as every invoice does.
    const html = await t.get(`/api/v1/invoices/${upgrade.id}/html`, bearer(ana.key));
    expect(html.body).toContain('Upgrade, prorated, billed at once');
    const pdf = pdfText((await t.get(`/api/v1/invoices/${upgrade.id}/pdf`, bearer(ana.key))).rawPayload);
    expect(pdf).toContain('Upgrade, prorated, billed at once');
    expect(pdf).toMatch(
      /Upgrade from Starter to Pro, prorated: 18 days 6 h of 30 days left in the window 2026-03-01 to ?2026-03-31/,
    );
    expect(pdf).toMatch(/Total due \(EUR\) 28\.24/);
    // The customer sees it too, and its record says what happened.
    const mine = json(await t.get('/api/v1/invoices', bearer(ana.key))).data.invoices as any[];
    expect(mine.map((i) => i.id)).toContain(upgrade.id);
    const history = json(await t.admin('GET', `/api/admin/v1/invoices/${upgrade.id}`)).data.history as any[];
    expect(history.map((h) => [h.subject, h.from, h.to])).toEqual([
      ['invoice', null, 'draft'],
      ['plan', 'starter', 'pro'],
      ['invoice', 'draft', 'open'],
    ]);

    // The window's fee stays Starter's (billed at its start); the next window is Pro's whole fee.
    await advanceTo(WINDOW_END + HOUR);
    const fees = (await invoices(ana.accountId, 'fee')).map((i) => [i.periodStart, i.net, i.lines[0].planId]);
    expect(fees).toEqual([
      [new Date(WINDOW_END).toISOString(), '49.00', 'pro'],
      [new Date(T0).toISOString(), '10.00', 'starter'],
    ]);
    // March's overage: a line per plan that priced it.
    await advanceTo(Date.UTC(2026, 3, 1, 1));
    const [march] = await invoices(ana.accountId, 'overage');
    expect(march.lines.map((l: any) => [l.planId, l.quantity, l.amount])).toEqual([
      ['pro', 1, '0.10'],
      ['starter', 2, '1.00'],
    ]);
  }, 90_000);

  it('prices a quote older than an hour again at the change (never more than it said), and a cheaper plan waits for the window’s end', async () => {
    const ana = await customer('pro');
    await advanceTo(MID);
    await signIn(ana.visitor, 'ana@example.com'); // sessions last a week
    const page = await ana.visitor.get('/dashboard/billing');
    // A downgrade says from when, and costs nothing now.
    expect(text(page)).toMatch(
      /Starter 10\.00 EUR 3 0\.5 EUR .* From 2026-03-31 12:00 UTC ?, when the next 30-day window starts; this window keeps Pro\. Switch to Starter/,
    );
    expect(quotedAt(page.body, 'starter')).toBeUndefined();
    const quote = quotedAt(page.body, 'max')!;
    // (99.00 − 49.00) × 18.25 / 30 = 30.4166…: 30.42, and 5.78 VAT.
    expect(text(page)).toContain('Starts now; you pay 36.20 EUR now (30.42 EUR plus 19 % VAT)');
    const down = await ana.visitor.post('/dashboard/billing/plan', { planId: 'starter' });
    expect(down.headers.location).toBe('/dashboard/billing?plan=changed#plan');
    expect(text(await ana.visitor.get('/dashboard/billing?plan=changed'))).toContain(
      'Plan changed: the new plan starts on 2026-03-31, with the next 30-day window.',
    );
    // Pending until the window's end: Pro's allowance meanwhile; the account call says so.
    const during = await t.get(STATUS_URL, bearer(ana.key));
    expect(during.headers['x-credits-included']).toBe('10');
    expect(json(await t.get('/api/v1/account', bearer(ana.key))).data.plan).toMatchObject({
      id: 'pro',
      pendingChange: { planId: 'starter', from: new Date(WINDOW_END).toISOString() },
    });
    expect(await invoices(ana.accountId, 'upgrade')).toEqual([]);

    // The customer upgrades after all, from a page read more than an hour ago.
    await advanceTo(MID + 2 * HOUR);
    const up = await ana.visitor.post('/dashboard/billing/plan', { planId: 'max', quotedAt: quote });
    expect(up.statusCode).toBe(303);
    // The pending downgrade gives way; the proration is from Pro, priced at the change.
    expect(await subscription(ana.accountId)).toMatchObject({
      status: 'active',
      planId: 'max',
      pendingPlan: null,
      cancelAt: null,
    });
    const [upgrade] = await invoices(ana.accountId, 'upgrade');
    // (99.00 − 49.00) × (18 days 4 h) / 30 days = 30.2777…: 30.28, and 5.75 VAT (less than the quote's 36.20).
    expect(upgrade).toMatchObject({
      net: '30.28',
      total: '36.03',
      periodStart: new Date(MID + 2 * HOUR).toISOString(),
    });
    expect(upgrade.lines[0].description).toBe(
      'Upgrade from Pro to Max, prorated: 18 days 4 h of 30 days left in the window 2026-03-01 to 2026-03-31',
    );
    expect((await t.get(STATUS_URL, bearer(ana.key))).headers['x-credits-included']).toBe('100');
    await advanceTo(WINDOW_END + HOUR);
    expect(await subscription(ana.accountId)).toMatchObject({ status: 'active', planId: 'max' });
    expect((await t.get(STATUS_URL, bearer(ana.key))).statusCode).toBe(200);
  }, 90_000);

  it('bills two upgrades at once only once, on either database', async () => {
    const ana = await customer('starter');
    const bea = new Visitor(t);
    const { token } = await t.app.users.invite(ana.accountId);
    expect((await t.app.users.acceptInvite(token, { email: 'bea@example.com', password: PASSWORD })).kind).toBe('ok');
    await advanceTo(MID);
    await signIn(ana.visitor, 'ana@example.com');
    await signIn(bea, 'bea@example.com');
    await Promise.all([ana.visitor.get('/dashboard/billing'), bea.get('/dashboard/billing')]);
    const stale = await t.app.accounts.find(ana.accountId);
    const [first, second, third] = await Promise.all([
      ana.visitor.post('/dashboard/billing/plan', { planId: 'pro', quotedAt: String(MID) }),
      bea.post('/dashboard/billing/plan', { planId: 'pro', quotedAt: String(MID) }),
      t.admin('PATCH', `/api/admin/v1/accounts/${ana.accountId}`, { planId: 'pro', effective: 'now' }),
    ]);
    expect([first.statusCode, second.statusCode, third.statusCode]).toEqual([303, 303, 200]);
    // One of them upgraded; the others found Pro already the plan (nothing pending, nothing billed).
    const told = [first, second].map((r) => String(r.headers.location).replace(/&invoice=inv_[\w-]+/, ''));
    for (const location of told) expect(location).toMatch(/^\/dashboard\/billing\?plan=(upgraded|changed)#plan$/);
    const upgrades = await invoices(ana.accountId, 'upgrade');
    expect(upgrades.map((i) => i.total)).toEqual(['28.24']);
    const planEvents = await t.app.db.kysely
      .selectFrom('billing_events')
      .select('to_state')
      .where('account_id', '=', ana.accountId)
      .where('subject', '=', 'plan')
      .execute();
    expect(planEvents.map((e) => e.to_state)).toEqual(['pro']);
    expect(await subscription(ana.accountId)).toMatchObject({ planId: 'pro', pendingPlan: null });
    // An upgrade made from a row read before another changed it changes nothing (the guarded statement).
    const max = { id: 'max', currency: 'EUR', included: 100, overage: true };
    const late = await t.app.db.kysely.executeQuery(t.app.accounts.upgradeQuery(stale!, max, MID + MINUTE));
    expect(Number(late.numAffectedRows ?? 0)).toBe(0);
    expect(await subscription(ana.accountId)).toMatchObject({ planId: 'pro' });
  }, 90_000);

  it('lets the operator upgrade at once with "effective": "now", billing the window’s fee first when the job has not yet', async () => {
    const account = await t.account({ plan: null });
    const url = `/api/admin/v1/accounts/${account.accountId}`;
    expect((await t.admin('PATCH', url, { planId: 'starter' })).statusCode).toBe(200); // its window starts now
    expect((await t.admin('PATCH', url, { cancelAtWindowEnd: true })).statusCode).toBe(200);
    // At once, before the invoicing job's next run: the whole window is left.
    const upgraded = await t.admin('PATCH', url, { planId: 'pro', effective: 'now' });
    expect(upgraded.statusCode, upgraded.body).toBe(200);
    // …and withdraws the cancellation, as choosing a plan does.
    expect(json(upgraded).data.subscription).toMatchObject({
      planId: 'pro',
      plan: { included: 10 },
      pendingPlan: null,
      cancelAt: null,
    });
    await advanceTo(T0 + HOUR); // the job runs: the window's fee is Starter's, written with the upgrade
    const all = (await invoices(account.accountId)).map((i) => [i.kind, i.net, i.lines[0].planId]);
    expect(all.sort()).toEqual([
      ['fee', '10.00', 'starter'],
      ['upgrade', '39.00', 'pro'],
    ]);
    // What would wait is refused with "now"; without it, it waits as before.
    const down = await t.admin('PATCH', url, { planId: 'starter', effective: 'now' });
    expect(down.statusCode).toBe(409);
    expect(json(down).message).toMatch(/only an upgrade .* applies now; this change would wait for the next window/);
    expect(
      json(await t.admin('PATCH', url, { planId: 'starter', effective: 'next_window' })).data.subscription,
    ).toMatchObject({
      planId: 'pro',
      pendingPlan: { planId: 'starter', from: new Date(WINDOW_END).toISOString() },
    });
    for (const body of [{ effective: 'now' }, { planId: 'max', effective: 'now', cancelAtWindowEnd: true }]) {
      const refused = await t.admin('PATCH', url, body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await t.admin('PATCH', url, { planId: 'max', effective: 'soon' })).statusCode).toBe(400);
    // A past-due subscription is not upgraded at once (it pays what it owes first).
    await t.admin('PATCH', url, { subscriptionStatus: 'past_due' });
    expect((await t.admin('PATCH', url, { planId: 'max', effective: 'now' })).statusCode).toBe(409);
    expect(await invoices(account.accountId, 'upgrade')).toHaveLength(1);
  }, 90_000);
});
