// Invoicing on the manual clock across months (docs/billing.md), through HTTP on both databases:
// overage in a month → one invoice after the 1st's grace period with the exact count and amount; no
// overage → none; a window across two months split by month; a plan change taking effect at the next
// window; the plan fee per window; numbers without gaps; customer and operator views.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DAY, HOUR } from '../src/clock.js';
import { bearer, json, notFoundAnswer, startTestApp, STATUS_URL, type TestApp } from './helpers/app.js';
import { describeEachDatabase } from './helpers/databases.js';

/** 2026-03-01T12:00Z: the test clock's start (T0), the first window's anchor. */
const MARCH = Date.UTC(2026, 2, 1);
const APRIL = Date.UTC(2026, 3, 1);
const MAY = Date.UTC(2026, 4, 1);

const plan = (id: string, included: number, price: string, fee = '0') => ({
  id,
  name: id[0]!.toUpperCase() + id.slice(1),
  currency: 'EUR',
  monthlyFee: fee,
  included,
  overage: true,
  overagePrice: price,
});

describeEachDatabase('invoicing', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    // A resolver that answers at once: these tests are about what requests cost, not flights.
    // Board polls, delivery cycles and following once a day: months pass in seconds.
    t = await startTestApp(kind, {
      resolver: { resolve: async (query) => notFoundAnswer(query) },
      pollIntervalMs: 24 * HOUR,
      webhooks: { intervalMs: 24 * HOUR },
      follow: { intervalMs: 24 * HOUR },
    });
  });
  afterEach(async () => t?.close());

  async function subscriber(planId: string): Promise<{ accountId: string; key: string }> {
    const account = await t.account({ plan: null });
    const patched = await t.admin('PATCH', `/api/admin/v1/accounts/${account.accountId}`, { planId });
    expect(patched.statusCode, patched.body).toBe(200);
    return account;
  }
  const requests = async (key: string, n: number) => {
    for (let i = 0; i < n; i++) expect((await t.get(STATUS_URL, bearer(key))).statusCode).toBe(200);
  };
  const invoices = async (key: string) => json(await t.get('/api/v1/invoices', bearer(key))).data.invoices as any[];
  const advanceTo = (at: number) => t.admin('POST', '/api/admin/v1/clock', { to: new Date(at).toISOString() });

  it('invoices a month of overage once, after the grace period, with the exact count and amount; a month without none', async () => {
    await t.admin('POST', '/api/admin/v1/plans', plan('starter', 3, '0.125'));
    const { key } = await subscriber('starter');
    await requests(key, 10); // 3 included, 7 overage
    const last = await t.get(STATUS_URL, bearer(key));
    expect(last.headers['x-credits-overage']).toBe('8');
    // One more that fails on our side is not billed: a 5xx is never charged as overage.
    await t.app.db.kysely
      .updateTable('usage_log')
      .set({ status: 503 })
      .where('id', '=', (await lastUsageId()) as never)
      .execute();

    expect((await advanceTo(APRIL + 59 * 60_000)).statusCode).toBe(200);
    expect(await invoices(key)).toEqual([]); // within the grace period: not yet
    // A run asked to stop (the process is shutting down) ends before its first step; the next does the work.
    const stopping = AbortSignal.abort();
    expect(await t.app.billing.run(APRIL + HOUR, stopping)).toMatchObject({
      monthsClosed: [],
      overageInvoices: 0,
      stopped: true,
    });
    await advanceTo(APRIL + HOUR);
    const [invoice, ...rest] = await invoices(key);
    expect(rest).toEqual([]);
    expect(invoice).toMatchObject({
      number: 'FS-000001',
      kind: 'overage',
      state: 'open',
      currency: 'EUR',
      total: '0.88', // 7 × 0.125 = 0.875, rounded once, half up
      totalMinor: 88,
      periodStart: new Date(MARCH).toISOString(),
      periodEnd: new Date(APRIL).toISOString(),
      finalizedAt: new Date(APRIL + HOUR).toISOString(),
      nextAttemptAt: null, // the manual gateway charges nothing
      lines: [{ planId: 'starter', quantity: 7, unitPrice: '0.125', amount: '0.88', amountMinor: 88 }],
    });
    // The same invoice, one by id, and not another account's.
    expect(json(await t.get(`/api/v1/invoices/${invoice.id}`, bearer(key))).data).toEqual(invoice);
    const other = await t.account();
    expect((await t.get(`/api/v1/invoices/${invoice.id}`, bearer(other.key))).statusCode).toBe(404);

    // April: no overage → no invoice on May 1st.
    await requests(key, 2);
    await advanceTo(MAY + 2 * HOUR);
    expect((await invoices(key)).map((i) => i.number)).toEqual(['FS-000001']);
    // The job ran again every hour; re-running March by hand writes nothing either.
    const rerun = await t.admin('POST', '/api/admin/v1/invoicing/runs', { month: '2026-03' });
    expect(json(rerun).data).toEqual({ month: '2026-03', created: 0, opened: 0 });
    expect(await t.app.db.kysely.selectFrom('invoices').select('id').execute()).toHaveLength(1);
  }, 60_000);

  async function lastUsageId(): Promise<number> {
    const row = await t.app.db.kysely
      .selectFrom('usage_log')
      .select('id')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  it('splits the overage of a window that spans two months by month', async () => {
    await t.admin('POST', '/api/admin/v1/plans', plan('starter', 3, '0.5'));
    const { key } = await subscriber('starter'); // windows: Mar 1 12:00, Mar 31 12:00, Apr 30 12:00
    await advanceTo(Date.UTC(2026, 2, 31, 13));
    await requests(key, 5); // second window: 3 included, 2 overage in March
    await advanceTo(Date.UTC(2026, 3, 2));
    await requests(key, 4); // same window, 4 overage in April
    await advanceTo(MAY + HOUR);
    const byMonth = (await invoices(key)).map((i) => [i.periodStart.slice(0, 7), i.lines[0].quantity, i.total]);
    expect(byMonth).toEqual([
      ['2026-04', 4, '2.00'],
      ['2026-03', 2, '1.00'],
    ]);
  }, 60_000);

  it('changes plan at the next window: the window in progress keeps its plan, the month is billed per plan', async () => {
    await t.admin('POST', '/api/admin/v1/plans', plan('starter', 3, '0.5'));
    await t.admin('POST', '/api/admin/v1/plans', plan('pro', 5, '0.1'));
    const { accountId, key } = await subscriber('starter');
    await advanceTo(Date.UTC(2026, 2, 10));
    const changed = json(await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, { planId: 'pro' })).data;
    expect(changed.subscription).toMatchObject({
      planId: 'starter',
      pendingPlan: { planId: 'pro', included: 5, from: new Date(Date.UTC(2026, 2, 31, 12)).toISOString() },
    });
    await requests(key, 4);
    const during = await t.get(STATUS_URL, bearer(key));
    expect(during.headers['x-credits-included']).toBe('3'); // still starter's
    // The next window starts on pro by itself: no job ran at the boundary.
    await advanceTo(Date.UTC(2026, 2, 31, 12, 0, 1));
    await requests(key, 7);
    const account = json(await t.get('/api/v1/account', bearer(key))).data;
    expect(account.credits.included).toBe(5);
    expect(account.plan).toMatchObject({ id: 'pro', included: 5, overagePrice: '0.1', pendingChange: null });
    await advanceTo(APRIL + HOUR);
    const [march] = await invoices(key);
    expect(march.lines.map((l: any) => [l.planId, l.quantity, l.amount])).toEqual([
      ['pro', 2, '0.20'],
      ['starter', 2, '1.00'],
    ]);
    expect(march.total).toBe('1.20');
    // Another currency is refused: an account's invoices never mix currencies.
    await t.admin('POST', '/api/admin/v1/plans', { ...plan('gbp', 5, '0.1'), currency: 'GBP' });
    const refused = await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, { planId: 'gbp' });
    expect(refused.statusCode).toBe(400);
    expect(json(refused).message).toMatch(/one currency/);
  }, 60_000);

  it('bills the plan fee per 30-day window at its start, numbers without gaps, and lets the operator void and pay', async () => {
    await t.admin('POST', '/api/admin/v1/plans', plan('basic', 100, '0.01', '49.00'));
    const { accountId, key } = await subscriber('basic');
    await advanceTo(T0PlusHours(1));
    await advanceTo(Date.UTC(2026, 2, 31, 13));
    const fees = await invoices(key);
    expect(fees.map((i) => [i.number, i.kind, i.periodStart, i.total, i.lines[0].unitPrice])).toEqual([
      ['FS-000002', 'fee', new Date(Date.UTC(2026, 2, 31, 12)).toISOString(), '49.00', '49.00'],
      ['FS-000001', 'fee', new Date(Date.UTC(2026, 2, 1, 12)).toISOString(), '49.00', '49.00'],
    ]);
    const [second, first] = fees;
    const paid = await t.admin('POST', `/api/admin/v1/invoices/${first.id}/pay`, {
      reason: 'bank transfer 2026-03-05',
    });
    expect(json(paid).data.invoice).toMatchObject({ state: 'paid', paidAt: expect.any(String) });
    expect(json(paid).data.history.map((h: any) => [h.from, h.to])).toEqual([
      [null, 'draft'],
      ['draft', 'open'],
      ['open', 'paid'],
    ]);
    expect((await t.admin('POST', `/api/admin/v1/invoices/${first.id}/pay`)).statusCode).toBe(409);
    expect(json(await t.admin('POST', `/api/admin/v1/invoices/${second.id}/void`)).data.invoice.state).toBe('void');
    // The operator sees every account's invoices, filtered.
    const listed = json(await t.admin('GET', `/api/admin/v1/invoices?account=${accountId}&state=void`)).data.invoices;
    expect(listed.map((i: any) => i.id)).toEqual([second.id]);
    // A paused (canceled) account is not billed its next fee.
    await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, { subscriptionStatus: 'canceled' });
    await advanceTo(Date.UTC(2026, 3, 30, 13));
    expect(await t.app.db.kysely.selectFrom('invoices').select('id').execute()).toHaveLength(2);
  }, 60_000);

  it('writes the overage record with the credit, also for requests granted together in one statement', async () => {
    await t.admin('POST', '/api/admin/v1/plans', plan('starter', 5, '0.01'));
    const { accountId, key } = await subscriber('starter');
    // Twenty at once: on PostgreSQL they share one credit statement, on SQLite one group transaction.
    const answers = await Promise.all(Array.from({ length: 20 }, () => t.get(STATUS_URL, bearer(key))));
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    const rows = await t.app.db.kysely
      .selectFrom('usage_log')
      .select(['id', 'overage', 'plan_id'])
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute();
    expect(rows).toHaveLength(20);
    // The first five of the window are included, every later one is overage, priced by starter.
    expect(rows.map((r) => Number(r.overage))).toEqual([...Array(5).fill(0), ...Array(15).fill(1)]);
    expect(new Set(rows.map((r) => r.plan_id))).toEqual(new Set(['starter']));
    // Each answer's X-Credits-Overage agrees with the records written so far.
    expect(answers.map((a) => Number(a.headers['x-credits-overage'])).sort((a, b) => a - b)).toEqual([
      0,
      0,
      0,
      0,
      0,
      ...Array.from({ length: 15 }, (_, i) => i + 1),
    ]);
    // A plan without overage refuses past the allowance: a 429 writes neither credit nor record.
    await t.admin('POST', '/api/admin/v1/plans', {
      ...plan('capped', 1, '0.01'),
      overage: false,
      overagePrice: undefined,
    });
    const capped = await subscriber('capped');
    expect((await t.get(STATUS_URL, bearer(capped.key))).statusCode).toBe(200);
    expect((await t.get(STATUS_URL, bearer(capped.key))).statusCode).toBe(429);
    const cappedRows = await t.app.db.kysely
      .selectFrom('usage_log')
      .select('overage')
      .where('account_id', '=', capped.accountId)
      .execute();
    expect(cappedRows.map((r) => Number(r.overage))).toEqual([0]);
  });

  it('answers bad invoice requests with the envelope', async () => {
    const { key } = await t.account();
    expect((await t.get('/api/v1/invoices')).statusCode).toBe(401);
    expect((await t.get('/api/v1/invoices?limit=0', bearer(key))).statusCode).toBe(400);
    expect(json(await t.get('/api/v1/invoices?before=inv_nope', bearer(key))).message).toMatch(/before/);
    expect((await t.get('/api/v1/invoices/inv_nope', bearer(key))).statusCode).toBe(404);
    expect((await t.admin('POST', '/api/admin/v1/invoicing/runs', { month: '2026-13' })).statusCode).toBe(400);
    const early = await t.admin('POST', '/api/admin/v1/invoicing/runs', { month: '2026-03' });
    expect(early.statusCode).toBe(400);
    expect(json(early).message).toMatch(/can be invoiced from 2026-04-01T01:00/);
    const account = (await t.account()).accountId;
    expect((await t.admin('PATCH', `/api/admin/v1/accounts/${account}`, { planId: 'nope' })).statusCode).toBe(400);
    const badMethod = await t.admin('PATCH', `/api/admin/v1/accounts/${account}`, { paymentMethod: 'pm with spaces' });
    expect(json(badMethod).message).toMatch(/paymentMethod must be the gateway's id/);
  });
});

const T0PlusHours = (hours: number) => Date.UTC(2026, 2, 1, 12) + hours * HOUR;
void DAY;
