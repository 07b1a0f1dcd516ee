// The operator's plan catalogue (docs/billing.md) through the operator API on both databases, and
// through the CLI: exact money in and out, and each mistake named.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeEachDatabase, itWithoutDatabase } from './helpers/databases.js';
import { json, startTestApp, type TestApp } from './helpers/app.js';
import { runCli, scratchDir } from './helpers/process.js';
import { pdfText } from './helpers/pdf.js';

describeEachDatabase('the plan catalogue', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp(kind);
  });
  afterEach(async () => t?.close());

  const starter = {
    id: 'starter',
    name: 'Starter',
    currency: 'eur',
    monthlyFee: '49',
    included: 10_000,
    overage: true,
    overagePrice: '0.002',
  };

  it('creates, lists and shows plans with their prices as exact decimals', async () => {
    const created = await t.admin('POST', '/api/admin/v1/plans', starter);
    expect(created.statusCode).toBe(201);
    expect(json(created).data).toEqual({
      id: 'starter',
      name: 'Starter',
      currency: 'EUR',
      monthlyFee: '49.00',
      included: 10_000,
      overage: true,
      overagePrice: '0.002',
      selfService: false,
      createdAt: '2026-03-01T12:00:00.000Z',
      updatedAt: '2026-03-01T12:00:00.000Z',
    });
    await t.admin('POST', '/api/admin/v1/plans', {
      id: 'free',
      name: 'Free',
      currency: 'GBP',
      monthlyFee: '0',
      included: 100,
      overage: false,
    });
    const row = await t.app.db.kysely
      .selectFrom('plans')
      .selectAll()
      .where('id', '=', 'starter')
      .executeTakeFirstOrThrow();
    expect(Number(row.monthly_fee_minor)).toBe(4900);
    expect(Number(row.overage_price_micro_minor)).toBe(200_000);
    const list = json(await t.admin('GET', '/api/admin/v1/plans')).data.plans as {
      id: string;
      overagePrice: string | null;
    }[];
    // Oldest first; the same instant (the manual clock stood still) in id order.
    expect(list.map((p) => [p.id, p.overagePrice])).toEqual([
      ['free', null],
      ['starter', '0.002'],
    ]);
    expect(json(await t.admin('GET', '/api/admin/v1/plans/free')).data).toMatchObject({
      currency: 'GBP',
      monthlyFee: '0.00',
      overage: false,
    });
    expect((await t.admin('GET', '/api/admin/v1/plans/nope')).statusCode).toBe(404);
    expect((await t.get('/api/admin/v1/plans')).statusCode).toBe(401);
  });

  it('refuses a taken id, an unknown currency, inexact money and a price without overage, naming the field', async () => {
    await t.admin('POST', '/api/admin/v1/plans', starter);
    const cases: [Record<string, unknown>, number, RegExp][] = [
      [starter, 409, /already exists/],
      [{ ...starter, id: 'Pro Plan' }, 400, /id/],
      [{ ...starter, id: 'x2', currency: 'XYZ' }, 400, /currency must be one of EUR, GBP/],
      [
        { ...starter, id: 'x3', monthlyFee: '49.999' },
        400,
        /monthlyFee must be a EUR amount such as 49\.00, with at most 2 decimals/,
      ],
      [{ ...starter, id: 'x4', overagePrice: '0.000000001' }, 400, /overagePrice must be/],
      [{ ...starter, id: 'x5', overagePrice: undefined }, 400, /overagePrice is needed when overage is true/],
      [{ ...starter, id: 'x6', overage: false }, 400, /overagePrice is only for plans with overage/],
      [{ ...starter, id: 'x7', monthlyFee: 49 }, 400, /monthlyFee/],
    ];
    for (const [body, status, message] of cases) {
      const response = await t.admin('POST', '/api/admin/v1/plans', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(status);
      expect(json(response).message).toMatch(message);
    }
    expect(json(await t.admin('GET', '/api/admin/v1/plans')).data.plans).toHaveLength(1);
  });
});

itWithoutDatabase(
  'plans create, list and get from the CLI',
  async () => {
    const t = await startTestApp('sqlite');
    try {
      const env = { DATABASE_URL: t.database.url };
      const created = await runCli(
        [
          'plans',
          'create',
          '--id',
          'pro',
          '--name',
          'Pro',
          '--currency',
          'EUR',
          '--fee',
          '199.00',
          '--included',
          '100000',
          '--overage',
          '--overage-price',
          '0.0015',
        ],
        env,
        undefined,
        20_000,
      );
      expect(created.code).toBe(0);
      expect(JSON.parse(created.stdout).data).toMatchObject({
        id: 'pro',
        monthlyFee: '199.00',
        overagePrice: '0.0015',
        selfService: false,
      });
      // Offered to customers, then withdrawn.
      expect(JSON.parse((await runCli(['plans', 'offer', 'pro'], env, undefined, 20_000)).stdout).data).toMatchObject({
        id: 'pro',
        selfService: true,
      });
      expect(
        JSON.parse((await runCli(['plans', 'withdraw', 'pro'], env, undefined, 20_000)).stdout).data,
      ).toMatchObject({
        id: 'pro',
        selfService: false,
      });
      expect((await runCli(['plans', 'offer', 'nope'], env, undefined, 20_000)).code).toBe(1);
      const listed = await runCli(['plans', 'list'], env, undefined, 20_000);
      expect(JSON.parse(listed.stdout).data.plans.map((p: { id: string }) => p.id)).toEqual(['pro']);
      const bad = await runCli(
        [
          'plans',
          'create',
          '--id',
          'x',
          '--currency',
          'EUR',
          '--fee',
          '1',
          '--included',
          '1',
          '--overage-price',
          '0.1',
        ],
        env,
        undefined,
        20_000,
      );
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--overage-price needs --overage');
    } finally {
      await t.close();
    }
  },
  60_000,
);

itWithoutDatabase(
  'subscribes an account and lists, shows, settles and re-runs invoices from the CLI',
  async () => {
    const t = await startTestApp('sqlite');
    try {
      // The seller is VAT-registered in Germany: a German customer's invoice carries 19 %.
      const env = {
        DATABASE_URL: t.database.url,
        FLIGHTSTATUS_SELLER_COUNTRY: 'DE',
        FLIGHTSTATUS_SELLER_VAT_ID: 'DE129273398',
        FLIGHTSTATUS_SELLER_PAYMENT_DETAILS: 'IBAN DE89 3704 0044 0532 0130 00',
      };
      const cli = async (...args: string[]) => {
        const run = await runCli(args, env, undefined, 20_000);
        return { ...run, data: run.stdout ? JSON.parse(run.stdout).data : undefined };
      };
      // The catalogue through the API (its CLI is the test above): each CLI run is a process start.
      await t.admin('POST', '/api/admin/v1/plans', {
        id: 'starter',
        name: 'Starter',
        currency: 'EUR',
        monthlyFee: '0',
        included: 2,
        overage: true,
        overagePrice: '0.25',
      });
      const created = await cli('accounts', 'create', '--slug', 'cli-acme', '--plan', 'starter');
      expect(created.code, created.stderr).toBe(0);
      expect(created.data.subscription).toMatchObject({
        status: 'active',
        planId: 'starter',
        plan: { included: 2, overage: true },
      });
      const set = await cli(
        'accounts',
        'set',
        'cli-acme',
        '--gateway-customer',
        'cus_123',
        '--payment-method',
        'pm_card_visa',
      );
      expect(set.data.billing).toEqual({ gatewayCustomer: 'cus_123', paymentMethod: 'pm_card_visa' });
      // The buyer's details, checked as the API checks them.
      const details = await cli(
        'accounts',
        'billing',
        'cli-acme',
        '--name',
        'Acme GmbH',
        '--address',
        'Hauptstr. 1; 10115 Berlin',
        '--country',
        'de',
        '--vat-id',
        'DE 136 695 976',
      );
      expect(details.code, details.stderr).toBe(0);
      expect(details.data.billing).toEqual({
        name: 'Acme GmbH',
        address: ['Hauptstr. 1', '10115 Berlin'],
        country: 'DE',
        vatId: 'DE136695976',
        email: null,
        emailConfirmed: false,
      });
      // The operator vouches for a billing email it sets: confirmed at once, no link mailed.
      const books = await cli('accounts', 'billing', 'cli-acme', '--email', 'Books@Acme.example');
      expect(books.data.billing).toMatchObject({ email: 'books@acme.example', emailConfirmed: true });
      const wrongId = await cli('accounts', 'billing', 'cli-acme', '--vat-id', 'DE136695977');
      expect(wrongId.code).not.toBe(0);
      expect(wrongId.stderr).toContain('--vat-id is not a valid VAT id of Germany');
      expect((await cli('accounts', 'billing', 'cli-acme')).data.billing.vatId).toBe('DE136695976');
      // Four overage requests in March 2026, as the metering records them.
      const march = Date.UTC(2026, 2, 10);
      await t.app.db.kysely
        .insertInto('usage_log')
        .values(
          [0, 1, 2, 3].map((i) => ({
            at: march + i,
            account_id: created.data.id,
            key_id: 'key_x',
            endpoint: 'GET /api/v1/flights/status',
            status: 200,
            duration_ms: 1,
            query: '',
            overage: 1 as const,
            plan_id: 'starter',
          })),
        )
        .execute();
      const run = await cli('invoices', 'run', '--month', '2026-03');
      expect(run.data).toEqual({ month: '2026-03', created: 1, opened: 1 });
      const [invoice] = (await cli('invoices', 'list', '--account', 'cli-acme')).data.invoices;
      expect(invoice).toMatchObject({
        number: 'FS-000001',
        net: '1.00',
        tax: '0.19',
        total: '1.19',
        state: 'open',
        taxTreatment: 'domestic',
        buyer: { name: 'Acme GmbH', vatId: 'DE136695976' },
      });
      // The CLI runs on the system clock: due 14 days (the default terms) after it opened.
      const due = new Date(Date.parse(invoice.finalizedAt) + 14 * 86_400_000).toISOString().slice(0, 10);
      expect(invoice.dueDate).toBe(due);
      expect(invoice.paymentInstructions).toBe(
        `Pay by bank transfer to IBAN DE89 3704 0044 0532 0130 00, quoting FS-000001 by ${due}.`,
      );
      const paid = await cli('invoices', 'pay', invoice.id, '--reason', 'bank transfer');
      expect(paid.data).toMatchObject({ state: 'paid' });
      const shown = await cli('invoices', 'get', invoice.id);
      expect(shown.data.history.at(-1)).toMatchObject({ from: 'open', to: 'paid', reason: 'bank transfer' });
      // Its PDF, written to a file the operator names.
      const file = join(scratchDir(), 'march.pdf');
      const pdf = await cli('invoices', 'pdf', invoice.id, '--out', file);
      expect(pdf.code, pdf.stderr).toBe(0);
      expect(pdf.data).toEqual({ file, bytes: expect.any(Number) });
      expect(readFileSync(file).subarray(0, 5).toString()).toBe('%PDF-');
      expect(readFileSync(file).length).toBe(pdf.data.bytes);
      expect((await cli('invoices', 'pdf', 'inv_missing')).code).toBe(1);
      // A part refunded: a credit note of its own sequence, the tax at the invoice's rate, and its PDF.
      const credit = await cli(
        'invoices',
        'credit',
        invoice.id,
        '--reason',
        'refund of two lookups',
        '--amount',
        '0.50',
      );
      expect(credit.code, credit.stderr).toBe(0);
      expect(credit.data).toMatchObject({
        number: 'CN-000001',
        invoiceNumber: 'FS-000001',
        net: '0.50',
        tax: '0.10',
        total: '0.60',
      });
      const noteFile = join(scratchDir(), 'credit.pdf');
      const notePdf = await cli('invoices', 'credit-pdf', credit.data.id, '--out', noteFile);
      expect(notePdf.data).toEqual({ file: noteFile, bytes: readFileSync(noteFile).length });
      expect(pdfText(readFileSync(noteFile))).toContain('Credit note CN-000001');
      expect((await cli('invoices', 'credit', invoice.id)).stderr).toContain('--reason');
      const bad = await cli('invoices', 'run', '--month', '2026-13');
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--month must be a month as YYYY-MM');
    } finally {
      await t.close();
    }
  },
  120_000,
);
