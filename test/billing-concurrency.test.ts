// The invoicing job never writes an invoice twice (docs/billing.md): two processes running one month
// at once, a run after a crash that left drafts, and a run again later each leave exactly one invoice
// per account and month, numbered 1..N without gaps. On SQLite and PostgreSQL, with real processes.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { HOUR } from '../src/clock.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { describeEachDatabase } from './helpers/databases.js';
import { runCli } from './helpers/process.js';

const MARCH = Date.UTC(2026, 2, 1);
const ACCOUNTS = 250; // more than one transaction's worth (200 invoices each)

describeEachDatabase('invoicing runs at once', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp(kind, {
      pollIntervalMs: 24 * HOUR,
      webhooks: { intervalMs: 24 * HOUR },
      follow: { intervalMs: 24 * HOUR },
    });
    await t.app.db.kysely
      .insertInto('plans')
      .values({
        id: 'starter',
        name: 'Starter',
        currency: 'EUR',
        monthly_fee_minor: 0,
        included: 10,
        overage: 1,
        overage_price_micro_minor: 1_000_000,
        self_service: 0,
        created_at: MARCH,
        updated_at: MARCH,
      })
      .execute();
    // Accounts with overage in March, written directly: this test is about the job, not the metering.
    const accounts = Array.from({ length: ACCOUNTS }, (_, i) => ({
      id: `acct_bulk${String(i).padStart(5, '0')}`,
      slug: `bulk-${i}`,
      name: `Bulk ${i}`,
      unlimited: 0 as const,
      disabled: 0 as const,
      billing_status: 'active' as const,
      plan_included: 10,
      plan_overage: 1 as const,
      window_anchor: MARCH,
      created_at: MARCH,
      updated_at: MARCH,
      plan_id: 'starter',
      next_plan_id: null,
      next_plan_from: null,
      next_plan_included: null,
      next_plan_overage: null,
      gateway_customer: null,
      cancel_at: null,
      payment_method: null,
    }));
    for (let i = 0; i < accounts.length; i += 100)
      await t.app.db.kysely
        .insertInto('accounts')
        .values(accounts.slice(i, i + 100))
        .execute();
    const usage = accounts.flatMap((a, i) =>
      Array.from({ length: 1 + (i % 3) }, (_, n) => ({
        at: MARCH + (i + n) * 60_000,
        account_id: a.id,
        key_id: 'key_x',
        endpoint: 'GET /api/v1/flights/status',
        status: 200,
        duration_ms: 1,
        query: '',
        overage: 1 as const,
        plan_id: 'starter',
      })),
    );
    for (let i = 0; i < usage.length; i += 200)
      await t.app.db.kysely
        .insertInto('usage_log')
        .values(usage.slice(i, i + 200))
        .execute();
  });
  afterEach(async () => t?.close());

  /** `totals`: what the invoices come to, in cents (with the seller's VAT, when it charges one). */
  async function expectOneInvoiceEach(totals = [1, 2, 3], treatment = 'not_registered'): Promise<void> {
    const rows = await t.app.db.kysely
      .selectFrom('invoices')
      .select([
        'account_id',
        'number',
        'total_minor',
        'state',
        'net_minor',
        'tax_treatment',
        'due_at',
        'seller_json',
        'buyer_json',
      ])
      .execute();
    expect(rows).toHaveLength(ACCOUNTS);
    expect(new Set(rows.map((r) => r.account_id)).size).toBe(ACCOUNTS);
    expect(rows.map((r) => Number(r.number)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: ACCOUNTS }, (_, i) => i + 1),
    );
    expect(rows.every((r) => r.state === 'open')).toBe(true);
    // 1, 2 or 3 overage requests at €0.01 each; each invoice opened with its tax, parties and due date.
    expect(new Set(rows.map((r) => Number(r.net_minor)))).toEqual(new Set([1, 2, 3]));
    expect(new Set(rows.map((r) => Number(r.total_minor)))).toEqual(new Set(totals));
    expect(
      rows.every(
        (r) => r.tax_treatment === treatment && r.due_at !== null && r.seller_json !== null && r.buyer_json !== null,
      ),
    ).toBe(true);
  }

  it('two processes invoicing the same month at once write each invoice once, numbered without gaps', async () => {
    // A seller registered for VAT in Germany: 19 % on 1, 2 and 3 cents is 0, 0 and 1 (0.57, half up).
    const env = {
      DATABASE_URL: t.database.url,
      FLIGHTSTATUS_SELLER_COUNTRY: 'DE',
      FLIGHTSTATUS_SELLER_VAT_ID: 'DE136695976',
    };
    const runs = await Promise.all(
      [1, 2].map(() => runCli(['invoices', 'run', '--month', '2026-03'], env, undefined, 120_000)),
    );
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const created = runs.map((r) => JSON.parse(r.stdout).data.created as number);
    expect(created[0]! + created[1]!).toBe(ACCOUNTS);
    await expectOneInvoiceEach([1, 2, 4], 'domestic');
    // And once more, later: nothing.
    const again = await runCli(['invoices', 'run', '--month', '2026-03'], env, undefined, 120_000);
    expect(JSON.parse(again.stdout).data).toEqual({ month: '2026-03', created: 0, opened: 0 });
  }, 180_000);

  it('a run after a crash that left drafts opens them and writes nothing twice', async () => {
    // The crash: drafts written, the process gone before opening them.
    await t.app.billing.closeMonth(MARCH, Date.UTC(2026, 3, 1, 1));
    expect(
      await t.app.db.kysely.selectFrom('invoices').select('id').where('state', '=', 'draft').execute(),
    ).toHaveLength(ACCOUNTS);
    const rerun = await t.app.billing.rerunMonth(MARCH, Date.UTC(2026, 3, 1, 2));
    expect(rerun).toEqual({ kind: 'ok', value: { month: '2026-03', created: 0, opened: ACCOUNTS } });
    await expectOneInvoiceEach();
  }, 120_000);
});
