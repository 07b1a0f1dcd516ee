// Invoices a business can book (docs/billing.md), through HTTP on both databases: the seller from the
// configuration and each account's billing details (operator API), the tax treatment of each case
// (domestic, reverse charge, OSS consumer, outside the EU), due dates and payment instructions, all
// frozen when the invoice opens; the PDF says so; credit notes with their own sequence, never an edit.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOUR } from '../src/clock.js';
import { INVOICE_CSP } from '../src/billing/index.js';
import { bearer, json, notFoundAnswer, startTestApp, STATUS_URL, type TestApp } from './helpers/app.js';
import { describeEachDatabase } from './helpers/databases.js';
import { pdfText } from './helpers/pdf.js';

const APRIL = Date.UTC(2026, 3, 1);
const IBAN = 'IBAN DE89 3704 0044 0532 0130 00, BIC COBADEFFXXX';
const seller = {
  name: 'Flight Status GmbH',
  address: ['Hauptstr. 1', '10115 Berlin'],
  country: 'DE',
  vatId: 'DE136695976',
  email: 'billing@flightstatus.example',
  paymentDetails: IBAN,
  paymentTermsDays: 30,
};

describeEachDatabase('invoices a business can book', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp(kind, {
      seller,
      resolver: { resolve: async (query) => notFoundAnswer(query) },
      pollIntervalMs: 24 * HOUR,
      webhooks: { intervalMs: 24 * HOUR },
      follow: { intervalMs: 24 * HOUR },
    });
    await t.admin('POST', '/api/admin/v1/plans', {
      id: 'starter',
      name: 'Starter',
      currency: 'EUR',
      monthlyFee: '0',
      included: 3,
      overage: true,
      overagePrice: '1.00',
    });
  });
  afterEach(async () => t?.close());

  /** An account on Starter with the billing details given and 7 requests of overage in March (7.00 EUR net). */
  async function customer(
    billing?: Record<string, string | null>,
  ): Promise<{ accountId: string; key: string; slug: string }> {
    const account = await t.account({ plan: null });
    const patched = await t.admin('PATCH', `/api/admin/v1/accounts/${account.accountId}`, {
      planId: 'starter',
      ...(billing ? { billing } : {}),
    });
    expect(patched.statusCode, patched.body).toBe(200);
    for (let i = 0; i < 10; i++) expect((await t.get(STATUS_URL, bearer(account.key))).statusCode).toBe(200);
    return { ...account, slug: json(patched).data.slug };
  }
  const invoiceOf = async (key: string) =>
    (json(await t.get('/api/v1/invoices', bearer(key))).data.invoices as any[])[0];
  const invoiceMonth = () => t.admin('POST', '/api/admin/v1/clock', { to: new Date(APRIL + HOUR).toISOString() });

  it('states each tax case once, on the total, with both parties, the due date and how to pay, frozen when it opens', async () => {
    const domestic = await customer({
      name: 'Muster GmbH',
      address: 'Musterweg 5\n80331 München',
      country: 'DE',
      vatId: 'DE 129 273 398',
      email: 'Buchhaltung@Muster.example',
    });
    const reverse = await customer({
      name: 'Acme Claims SARL',
      address: '12 rue de la Paix; 75002 Paris',
      country: 'fr',
      vatId: 'FR40303265045',
    });
    const consumer = await customer({ name: 'Aino Virtanen', country: 'FI' });
    const abroad = await customer({ name: 'Claims Inc.', country: 'US', vatId: '12-3456789' });
    const unknown = await customer();
    await invoiceMonth();

    const cases = [
      [domestic, 'domestic', '19', 'DE', '1.33', '8.33'],
      [reverse, 'reverse_charge', '0', null, '0.00', '7.00'],
      [consumer, 'oss', '25.5', 'FI', '1.79', '8.79'], // 1.785, half up
      [abroad, 'outside_eu', '0', null, '0.00', '7.00'],
      [unknown, 'domestic', '19', 'DE', '1.33', '8.33'], // no country given: the seller's
    ] as const;
    for (const [who, treatment, rate, country, tax, total] of cases) {
      const invoice = await invoiceOf(who.key);
      expect(invoice, treatment).toMatchObject({
        state: 'open',
        net: '7.00',
        netMinor: 700,
        tax,
        total,
        totalMinor: Math.round(Number(total) * 100),
        taxTreatment: treatment,
        taxLines: [{ ratePercent: rate, country, taxable: '7.00', taxableMinor: 700, tax }],
        seller: {
          name: 'Flight Status GmbH',
          address: ['Hauptstr. 1', '10115 Berlin'],
          country: 'DE',
          countryName: 'Germany',
          vatId: 'DE136695976',
          email: 'billing@flightstatus.example',
        },
        finalizedAt: new Date(APRIL + HOUR).toISOString(),
        dueDate: '2026-05-01', // 30 days of payment terms
        periodFirstDay: '2026-03-01',
        periodLastDay: '2026-03-31',
        paymentInstructions: `Pay by bank transfer to ${IBAN}, quoting ${invoice.number} by 2026-05-01.`,
        creditNotes: [],
      });
    }
    const [d, r, c, a, u] = await Promise.all(cases.map(([who]) => invoiceOf(who.key)));
    expect(d.buyer).toEqual({
      name: 'Muster GmbH',
      address: ['Musterweg 5', '80331 München'],
      country: 'DE',
      countryName: 'Germany',
      vatId: 'DE129273398',
      email: 'buchhaltung@muster.example',
    });
    expect(r.taxNote).toBe(
      'Reverse charge: VAT to be accounted for by the recipient (Article 196 of Council Directive 2006/112/EC).',
    );
    expect(c.taxNote).toContain('One-Stop Shop');
    expect(a.taxNote).toContain('Outside the scope of EU VAT');
    expect(u.buyer).toMatchObject({ name: expect.stringMatching(/\S/), country: null, vatId: null }); // the account's name
    expect(new Set([d, r, c, a, u].map((i) => i.number)).size).toBe(5);

    // The accounts department's copy: the PDF says who sells, who buys, the tax and when it is due.
    const pdf = await t.get(`/api/v1/invoices/${r.id}/pdf`, bearer(reverse.key));
    expect(pdf.headers['content-type']).toBe('application/pdf');
    const text = pdfText(pdf.rawPayload);
    for (const words of [
      `Invoice ${r.number}`,
      'Flight Status GmbH Hauptstr. 1 10115 Berlin Germany VAT id DE136695976 billing@flightstatus.example',
      'Acme Claims SARL 12 rue de la Paix 75002 Paris France VAT id FR40303265045',
      'Issue date 2026-04-01 Due date 2026-05-01 Period (UTC) 2026-03-01 to 2026-03-31',
      'Net (EUR) 7.00 VAT 0 % on 7.00 0.00 Total due (EUR) 7.00',
      'Reverse charge: VAT to be accounted for by the recipient (Article 196 of Council Directive 2006/112/EC).',
      `Pay by bank transfer to ${IBAN}, quoting ${r.number} by 2026-05-01.`,
    ]) {
      expect(text, words).toContain(words);
    }
    const consumerPdf = await t.get(`/api/v1/invoices/${c.id}/pdf`, bearer(consumer.key));
    expect(consumerPdf.statusCode, consumerPdf.body).toBe(200);
    expect(pdfText(consumerPdf.rawPayload)).toContain(
      'Net (EUR) 7.00 VAT 25.5 % (FI) on 7.00 1.79 Total due (EUR) 8.79',
    );
    const page = await t.get(`/api/v1/invoices/${d.id}/html`, bearer(domestic.key));
    expect(page.headers['content-security-policy']).toBe(INVOICE_CSP);
    expect(page.body).toContain(
      '<tr><th scope="row" colspan="4">VAT 19 % (DE) on 7.00</th><td class="n">1.33</td></tr>',
    );

    // Details changed after the invoice was issued leave it as it was: the next invoice takes them.
    const moved = await t.admin('PATCH', `/api/admin/v1/accounts/${reverse.accountId}`, {
      billing: { country: 'DE', vatId: 'DE129273398', name: 'Acme GmbH' },
    });
    expect(json(moved).data.billing).toMatchObject({
      name: 'Acme GmbH',
      country: 'DE',
      vatId: 'DE129273398',
      address: ['12 rue de la Paix', '75002 Paris'],
    });
    expect(await invoiceOf(reverse.key)).toEqual(r);
    const operatorPdf = await t.admin('GET', `/api/admin/v1/invoices/${r.id}/pdf`);
    expect(pdfText(operatorPdf.rawPayload)).toContain(
      'Acme Claims SARL 12 rue de la Paix 75002 Paris France VAT id FR40303265045',
    );
    // An invoice opened before parties were frozen (migration 0020) shows what it showed then, not today's details.
    await t.app.db.kysely
      .updateTable('invoices')
      .set({
        seller_json: null,
        buyer_json: null,
        tax_treatment: null,
        net_minor: null,
        tax_minor: null,
        tax_rate_bp: null,
        due_at: null,
      })
      .where('id', '=', d.id)
      .execute();
    expect(await invoiceOf(domestic.key)).toMatchObject({
      seller: { name: 'Flight Status GmbH', address: [], vatId: null },
      buyer: { name: expect.not.stringMatching(/Muster GmbH/), address: [], vatId: null },
      taxTreatment: null,
      taxLines: [],
      net: '8.33',
      dueDate: null,
    });
  });

  it('refuses billing details that do not fit, naming the field, and changes nothing of the request', async () => {
    const account = await t.account({ plan: null });
    const url = `/api/admin/v1/accounts/${account.accountId}`;
    for (const [billing, field] of [
      [{ country: 'DE', vatId: 'DE136695977' }, 'billing.vatId is not a valid VAT id of Germany'],
      [{ country: 'DE', vatId: 'FR40303265045' }, 'billing.vatId must start with DE'],
      [{ vatId: 'DE136695976' }, 'billing.vatId needs a country'],
      [{ country: 'Germany' }, 'billing.country must be an ISO 3166-1 alpha-2 country code'],
      [{ email: 'accounts at example' }, 'billing.email must be an email address'],
      [
        { address: Array.from({ length: 7 }, (_, i) => `line ${i}`).join('\n') },
        'billing.address must be at most 6 lines',
      ],
    ] as const) {
      const refused = await t.admin('PATCH', url, {
        planId: 'starter',
        billing: { name: 'Should Not Stick', ...billing },
      });
      expect(refused.statusCode, field).toBe(400);
      expect(json(refused).message).toContain(field);
    }
    const after = json(await t.admin('GET', url)).data;
    expect(after.billing).toMatchObject({ name: null, address: [], country: null, vatId: null, email: null });
    expect(after.subscription.planId).toBeNull();
    const unknownField = await t.admin('PATCH', url, { billing: { iban: 'x' } });
    expect(unknownField.statusCode).toBe(400);
    expect(json(unknownField).message).toMatch(/iban/);
    expect(
      (await t.admin('PATCH', '/api/admin/v1/accounts/acct_missing', { billing: { country: 'DE' } })).statusCode,
    ).toBe(404);
  });

  it('keeps every one of several billing changes made at once (each applies to what the others left)', async () => {
    const account = await t.account({ plan: null });
    const url = `/api/admin/v1/accounts/${account.accountId}`;
    const changes = [
      { name: 'Acme GmbH' },
      { email: 'accounts@acme.example' },
      { address: 'Hauptstr. 1; 10115 Berlin' },
      { country: 'DE' },
    ];
    const answers = await Promise.all(changes.map((billing) => t.admin('PATCH', url, { billing })));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    expect(json(await t.admin('GET', url)).data.billing).toMatchObject({
      name: 'Acme GmbH',
      email: 'accounts@acme.example',
      address: ['Hauptstr. 1', '10115 Berlin'],
      country: 'DE',
    });
  });

  it('corrects with credit notes of their own sequence: an open invoice in full (void), a paid one in parts, never beyond it', async () => {
    const first = await customer({ country: 'DE' });
    const second = await customer({ country: 'DE' });
    const third = await customer({ country: 'DE' });
    await invoiceMonth();
    const [a, b, c] = await Promise.all([first, second, third].map((who) => invoiceOf(who.key)));
    const credit = (id: string, body: object) => t.admin('POST', `/api/admin/v1/invoices/${id}/credit-notes`, body);

    // Open: in full only, and it becomes void.
    const partOfOpen = await credit(a.id, { reason: 'goodwill', amount: '1.00' });
    expect(partOfOpen.statusCode).toBe(409);
    expect(json(partOfOpen).message).toContain('credited in full');
    const full = await credit(a.id, { reason: 'Issued to the wrong company' });
    expect(full.statusCode, full.body).toBe(201);
    expect(json(full).data).toMatchObject({
      number: 'CN-000001',
      invoiceNumber: a.number,
      net: '7.00',
      tax: '1.33',
      total: '8.33',
      reason: 'Issued to the wrong company',
    });
    const voided = await invoiceOf(first.key);
    expect(voided).toMatchObject({
      state: 'void',
      total: '8.33',
      creditedMinor: 833,
      creditNotes: [{ number: 'CN-000001', total: '8.33' }],
    });
    expect((await credit(a.id, { reason: 'again' })).statusCode).toBe(409);

    // Paid: in parts, the tax at the invoice's rate, the last part takes what is left to the cent.
    expect((await t.admin('POST', `/api/admin/v1/invoices/${b.id}/pay`, { reason: 'transfer' })).statusCode).toBe(200);
    const part = await credit(b.id, { reason: 'Two lookups counted twice', amount: '3.00' });
    expect(json(part).data).toMatchObject({ number: 'CN-000002', net: '3.00', tax: '0.57', total: '3.57' });
    const tooMuch = await credit(b.id, { reason: 'x', amount: '4.01' });
    expect(tooMuch.statusCode).toBe(400);
    expect(json(tooMuch).message).toContain('at most 4.00 EUR');
    expect((await credit(b.id, { reason: 'x', amount: '1.234' })).statusCode).toBe(400);
    const rest = await credit(b.id, { reason: 'The rest' });
    expect(json(rest).data).toMatchObject({ number: 'CN-000003', net: '4.00', tax: '0.76', total: '4.76' });
    expect(await invoiceOf(second.key)).toMatchObject({ state: 'paid', total: '8.33', creditedMinor: 833 });
    expect((await credit(b.id, { reason: 'more' })).statusCode).toBe(409);

    // Voiding an open invoice is a credit note too: the issued invoice is never changed.
    expect((await t.admin('POST', `/api/admin/v1/invoices/${c.id}/void`, { reason: 'test account' })).statusCode).toBe(
      200,
    );
    expect((await invoiceOf(third.key)).creditNotes).toMatchObject([{ number: 'CN-000004', total: '8.33' }]);
    const history = json(await t.admin('GET', `/api/admin/v1/invoices/${c.id}`)).data.history;
    expect(history.slice(-2)).toEqual([
      expect.objectContaining({
        subject: 'credit_note',
        from: null,
        to: 'issued',
        reason: 'credit note CN-000004 of 8.33 EUR: test account',
      }),
      expect.objectContaining({ subject: 'invoice', from: 'open', to: 'void', reason: 'test account' }),
    ]);

    // The credit note as a document: the operator's and the customer's, never another account's.
    const noteId = json(part).data.id as string;
    const customerPdf = await t.get(`/api/v1/credit-notes/${noteId}/pdf`, bearer(second.key));
    expect(customerPdf.statusCode).toBe(200);
    expect(pdfText(customerPdf.rawPayload)).toContain(`Credit note CN-000002`);
    expect(pdfText(customerPdf.rawPayload)).toContain(`Credits invoice ${b.number} of 2026-04-01`);
    expect(pdfText(customerPdf.rawPayload)).toContain(
      'Net (EUR) 3.00 VAT 19 % (DE) on 3.00 0.57 Total credited (EUR) 3.57',
    );
    expect((await t.get(`/api/v1/credit-notes/${noteId}/pdf`, bearer(first.key))).statusCode).toBe(404);
    expect((await t.admin('GET', `/api/admin/v1/credit-notes/${noteId}/pdf`)).headers['content-disposition']).toBe(
      'attachment; filename="CN-000002.pdf"',
    );
    expect(json(await t.admin('GET', `/api/admin/v1/credit-notes/${noteId}`)).data).toMatchObject({
      number: 'CN-000002',
      invoiceId: b.id,
    });
  });

  it('never credits more than an invoice billed, however many credit notes are asked for at once', async () => {
    const who = await customer({ country: 'DE' });
    await invoiceMonth();
    const { id } = await invoiceOf(who.key);
    expect((await t.admin('POST', `/api/admin/v1/invoices/${id}/pay`, {})).statusCode).toBe(200);
    const parts = await Promise.all(
      Array.from({ length: 4 }, () =>
        t.admin('POST', `/api/admin/v1/invoices/${id}/credit-notes`, { reason: 'at once', amount: '3.00' }),
      ),
    );
    expect(parts.map((r) => r.statusCode).sort()).toEqual([201, 201, 400, 400]); // 3.00 + 3.00 of 7.00; then at most 1.00 is left
    const fulls = await Promise.all(
      Array.from({ length: 3 }, () =>
        t.admin('POST', `/api/admin/v1/invoices/${id}/credit-notes`, { reason: 'the rest, at once' }),
      ),
    );
    expect(fulls.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
    expect(await invoiceOf(who.key)).toMatchObject({ totalMinor: 833, creditedMinor: 833 });
  });

  it('numbers credit notes issued at once without a gap or a repeat', async () => {
    const who = await Promise.all(Array.from({ length: 6 }, () => customer({ country: 'FR', vatId: 'FR40303265045' })));
    await invoiceMonth();
    const ids = await Promise.all(who.map(async (w) => (await invoiceOf(w.key)).id as string));
    for (const id of ids) expect((await t.admin('POST', `/api/admin/v1/invoices/${id}/pay`, {})).statusCode).toBe(200);
    const answers = await Promise.all(
      ids.flatMap((id) =>
        ['1.00', '2.00', '3.00'].map((amount) =>
          t.admin('POST', `/api/admin/v1/invoices/${id}/credit-notes`, { reason: 'parallel', amount }),
        ),
      ),
    );
    expect(answers.map((r) => r.statusCode)).toEqual(answers.map(() => 201));
    const numbers = answers.map((r) => json(r).data.number as string).sort();
    expect(numbers).toEqual(Array.from({ length: 18 }, (_, i) => `CN-${String(i + 1).padStart(6, '0')}`));
  });
});

describe('the seller configuration', () => {
  it('checks the VAT id against its country at start-up', async () => {
    const { loadConfig } = await import('../src/config.js');
    expect(() => loadConfig({ FLIGHTSTATUS_SELLER_VAT_ID: 'DE136695976' })).toThrow(
      /FLIGHTSTATUS_SELLER_VAT_ID needs FLIGHTSTATUS_SELLER_COUNTRY/,
    );
    expect(() => loadConfig({ FLIGHTSTATUS_SELLER_COUNTRY: 'DE', FLIGHTSTATUS_SELLER_VAT_ID: 'DE136695977' })).toThrow(
      /not a valid VAT id of Germany/,
    );
    expect(() => loadConfig({ FLIGHTSTATUS_SELLER_COUNTRY: 'Deutschland' })).toThrow(
      /FLIGHTSTATUS_SELLER_COUNTRY must be an ISO 3166-1 alpha-2/,
    );
    expect(
      loadConfig({
        FLIGHTSTATUS_SELLER_COUNTRY: 'de',
        FLIGHTSTATUS_SELLER_VAT_ID: 'de 136695976',
        FLIGHTSTATUS_SELLER_ADDRESS: 'Hauptstr. 1; 10115 Berlin',
        FLIGHTSTATUS_PAYMENT_TERMS_DAYS: '30',
      }).seller,
    ).toEqual({
      name: 'Flight Status Service',
      address: ['Hauptstr. 1', '10115 Berlin'],
      country: 'DE',
      vatId: 'DE136695976',
      email: null,
      paymentDetails: null,
      paymentTermsDays: 30,
    });
  });
});
