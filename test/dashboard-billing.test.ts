// The dashboard's billing pages through HTTP (inject) on both databases: the plan and a pending
// change, a month of overage invoiced and shown as a list, a page and a PDF; another account's
// invoice and drafts are 404; a past-due account is told so and can still sign in and see what it owes.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { HOUR } from '../src/clock.js';
import { bearer, json, notFoundAnswer, startTestApp, STATUS_URL, type TestApp } from './helpers/app.js';
import { describeEachDatabase } from './helpers/databases.js';
import { PASSWORD, text, Visitor } from './helpers/dashboard.js';

const STARTER = {
  id: 'starter',
  name: 'Starter',
  currency: 'EUR',
  monthlyFee: '0',
  included: 3,
  overage: true,
  overagePrice: '0.125',
};
/** The second 30-day window of an account signed up at the clock's start (2026-03-01T12:00Z). */
const SECOND_WINDOW = Date.UTC(2026, 2, 31, 12);

describeEachDatabase('the dashboard’s billing pages', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    // A resolver that answers at once, board polls, deliveries and following once a day: months pass in seconds.
    t = await startTestApp(kind, {
      resolver: { resolve: async (query) => notFoundAnswer(query) },
      pollIntervalMs: 24 * HOUR,
      webhooks: { intervalMs: 24 * HOUR },
      follow: { intervalMs: 24 * HOUR },
    });
  });
  afterEach(async () => t?.close());

  const advanceTo = async (at: number) =>
    expect((await t.admin('POST', '/api/admin/v1/clock', { to: new Date(at).toISOString() })).statusCode).toBe(200);
  const accountOf = async (email: string) =>
    (
      await t.app.db.kysely
        .selectFrom('users')
        .select('account_id')
        .where('email', '=', email)
        .executeTakeFirstOrThrow()
    ).account_id;

  /** Signs in again (sessions last 7 days; these tests move the clock by weeks). */
  async function signIn(v: Visitor, email: string): Promise<void> {
    await v.get('/dashboard/sign-in');
    expect((await v.post('/dashboard/sign-in', { email, password: PASSWORD })).statusCode).toBe(303);
  }

  /** Ana signs up (on the sign-up allowance), is moved to Starter, which starts with her second window. */
  async function subscriber(): Promise<{ ana: Visitor; accountId: string; key: string }> {
    expect((await t.admin('POST', '/api/admin/v1/plans', STARTER)).statusCode).toBe(201);
    const ana = new Visitor(t);
    await ana.signUp('ana@example.com', 'Ana Co');
    const key = await ana.createKey('claims backend');
    const accountId = await accountOf('ana@example.com');
    const patched = await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, { planId: 'starter' });
    expect(patched.statusCode, patched.body).toBe(200);
    return { ana, accountId, key };
  }

  /** …then makes 10 requests on Starter in March (3 included, 7 overage), invoiced on April 1st after the grace hour. */
  async function invoiced(): Promise<{ ana: Visitor; accountId: string; key: string; invoiceId: string }> {
    const s = await subscriber();
    await advanceTo(SECOND_WINDOW + HOUR);
    for (let i = 0; i < 10; i++) expect((await t.get(STATUS_URL, bearer(s.key))).statusCode).toBe(200);
    await advanceTo(Date.UTC(2026, 3, 1, 1));
    await signIn(s.ana, 'ana@example.com'); // a month later: the session of sign-up has ended
    const row = await t.app.db.kysely
      .selectFrom('invoices')
      .select('id')
      .where('account_id', '=', s.accountId)
      .executeTakeFirstOrThrow();
    return { ...s, invoiceId: row.id };
  }

  it('shows the plan with its price, and a pending change with its date, in the nav’s Billing section and on the overview', async () => {
    const { ana } = await subscriber();
    const billing = await ana.get('/dashboard/billing');
    expect(billing.statusCode).toBe(200);
    expect(billing.body).toMatch(/<a href="\/dashboard\/billing" aria-current="page">Billing<\/a>/);
    // The sign-up allowance runs to the end of the window; Starter follows, with its terms and date.
    expect(text(billing)).toMatch(/Plan Custom Subscription Active/);
    expect(text(billing)).toContain('A custom allowance of 1,000 requests per 30-day window, refused past it.');
    expect(text(billing)).toMatch(
      /Plan change: this account moves to Starter \(0\.00 EUR a month, 3 included requests, 0\.125 EUR a request past the allowance\) on 2026-03-31 12:00 UTC ?, when its next 30-day window starts\./,
    );
    expect(billing.body).toContain('<time datetime="2026-03-31T12:00:00.000Z">');
    expect(text(billing)).toContain('No invoices yet.');
    expect(text(await ana.get('/dashboard'))).toContain('Plan: Custom allowance');

    await advanceTo(SECOND_WINDOW + HOUR);
    await signIn(ana, 'ana@example.com');
    const after = await ana.get('/dashboard/billing');
    expect(text(after)).toMatch(
      /Plan Starter Fee per 30-day window 0\.00 EUR Included requests 3 Overage price 0\.125 EUR Subscription Active/,
    );
    expect(text(after)).not.toContain('Plan change');
    expect(text(await ana.get('/dashboard'))).toContain('Plan: Starter');
    // Neither page warns an account in good standing.
    expect(text(after)).not.toContain('402');
  }, 60_000);

  it('lets the customer switch to a plan the operator offers, from the next window, or keep the current one; a dearer one says it starts now and what it costs', async () => {
    await subscriber();
    await advanceTo(SECOND_WINDOW + HOUR); // on Starter now
    const ana = new Visitor(t);
    await signIn(ana, 'ana@example.com');
    // Only plans marked self-service, in the account's currency, are offered.
    const PRO = {
      id: 'pro',
      name: 'Pro',
      currency: 'EUR',
      monthlyFee: '49.00',
      included: 50_000,
      overage: true,
      overagePrice: '0.002',
    };
    expect((await t.admin('POST', '/api/admin/v1/plans', { ...PRO, selfService: true })).statusCode).toBe(201);
    expect((await t.admin('POST', '/api/admin/v1/plans', { ...PRO, id: 'secret', name: 'Secret' })).statusCode).toBe(
      201,
    );
    expect(
      (
        await t.admin('POST', '/api/admin/v1/plans', {
          ...PRO,
          id: 'pro-usd',
          name: 'Pro USD',
          currency: 'USD',
          selfService: true,
        })
      ).statusCode,
    ).toBe(201);
    // A plan of the same fee (Starter's is 0) waits for the next window.
    const MINI = { id: 'mini', name: 'Mini', currency: 'EUR', monthlyFee: '0', included: 1, overage: false };
    expect((await t.admin('POST', '/api/admin/v1/plans', { ...MINI, selfService: true })).statusCode).toBe(201);
    let page = text(await ana.get('/dashboard/billing'));
    expect(page).toContain('Change plan');
    // Before choosing, each plan says when it applies; the dearer one what it costs now (29 days 23 h of 30 left).
    expect(page).toMatch(
      /Pro 49\.00 EUR 50,000 0\.002 EUR a request past the allowance Starts now; you pay 48\.93 EUR now, prorated for the 29 days 23 h left of this window\. Upgrade to Pro now/,
    );
    expect(page).toMatch(
      /Mini 0\.00 EUR 1 refused past the allowance From 2026-04-30 12:00 UTC ?, when the next 30-day window starts; this window keeps Starter\. Switch to Mini/,
    );
    expect(page).not.toContain('Secret');
    expect(page).not.toContain('Pro USD');
    // An offer is marked and withdrawn by the operator.
    const offered = await t.admin('PATCH', '/api/admin/v1/plans/starter', { selfService: true });
    expect(JSON.parse(offered.body).data).toMatchObject({ id: 'starter', selfService: true });
    const switched = await ana.post('/dashboard/billing/plan', { planId: 'mini' });
    expect(switched.statusCode).toBe(303);
    page = text(await ana.get(switched.headers.location as string));
    expect(page).toContain('Plan changed: the new plan starts on 2026-04-30, with the next 30-day window.');
    expect(page).toMatch(/Plan change: this account moves to Mini .* on 2026-04-30 12:00 UTC/);
    // The current plan again: the pending change is cancelled.
    expect(page).toContain('Keeps this plan: the pending change is dropped. Keep this plan');
    await ana.post('/dashboard/billing/plan', { planId: 'starter' });
    page = text(await ana.get('/dashboard/billing?plan=changed'));
    expect(page).toContain('Your plan is Starter; no change is pending.');
    expect(page).not.toContain('Plan change: this account moves');
    // A plan not offered, or forged, changes nothing.
    for (const planId of ['secret', 'pro-usd', 'nope']) {
      const refused = await ana.post('/dashboard/billing/plan', { planId });
      expect(refused.statusCode).toBe(400);
      expect(text(refused)).toContain('That plan is not offered here; choose one of the plans listed.');
    }
    const view = JSON.parse(
      (await t.admin('GET', `/api/admin/v1/accounts/${await accountOf('ana@example.com')}`)).body,
    ).data;
    expect(view.subscription).toMatchObject({ planId: 'starter', pendingPlan: null });
    expect((await t.admin('PATCH', '/api/admin/v1/plans/nope', { selfService: true })).statusCode).toBe(404);
  }, 60_000);

  it('lists the month’s overage invoice and shows it as a page with its lines and as a PDF', async () => {
    const { ana, invoiceId } = await invoiced();
    const billing = await ana.get('/dashboard/billing');
    expect(billing.statusCode).toBe(200);
    const rows = [...billing.body.matchAll(/<tr>\s*<td>(.*?)<\/tr>/gs)].map((m) =>
      m[0]
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    );
    expect(rows).toEqual(['FS-000001 Overage 2026-03-01 to 2026-03-31 0.88 EUR open PDF']);
    expect(billing.body).toContain(`href="/dashboard/billing/invoices/${invoiceId}"`);
    expect(billing.body).toContain(
      `href="/dashboard/billing/invoices/${invoiceId}/pdf" aria-label="PDF of invoice FS-000001"`,
    );
    expect(billing.body).not.toContain('>Older<');

    const detail = await ana.get(`/dashboard/billing/invoices/${invoiceId}`);
    expect(detail.statusCode).toBe(200);
    const shown = text(detail);
    expect(shown).toContain('Invoice FS-000001');
    expect(shown).toContain('Status Open (awaiting payment)');
    expect(shown).toContain('Period (UTC) 2026-03-01 to 2026-03-31');
    expect(shown).toContain('Issue date 2026-04-01');
    expect(shown).toContain('Due date 2026-04-15'); // 14 days of payment terms
    expect(shown).toContain('From Flight Status Service Billed to Ana Co');
    expect(shown).toContain('No VAT charged: the seller is not registered for VAT in the EU.');
    expect(shown).toContain('Pay by 2026-04-15 as agreed with Flight Status Service, quoting FS-000001.');
    expect(shown).toContain('Paid on not paid');
    expect(shown).toContain('Next charge attempt none planned'); // the manual gateway charges nothing
    expect(shown).toMatch(/starter 7 0\.125 0\.88 Net \(EUR\) 0\.88 VAT 0 % on 0\.88 0\.00 Total due \(EUR\) 0\.88/);
    expect(detail.body).toContain(`href="/dashboard/billing/invoices/${invoiceId}/pdf"`);
    expect(detail.headers['content-security-policy']).toMatch(/default-src 'self'/);
    expect(detail.body).not.toMatch(/<script>|<style>| style="/);

    // A credit note is listed on its invoice, with its PDF.
    const credited = await t.admin('POST', `/api/admin/v1/invoices/${invoiceId}/credit-notes`, {
      reason: 'Cancelled by mistake',
    });
    const creditNoteId = json(credited).data.id as string;
    const after = await ana.get(`/dashboard/billing/invoices/${invoiceId}`);
    expect(text(after)).toContain('Credit notes CN-000001 of 2026-04-01: 0.88 EUR PDF');
    expect(text(after)).toContain('Credited by credit note CN-000001 of 2026-04-01: 0.88 EUR.');
    const notePdf = await ana.get(`/dashboard/billing/credit-notes/${creditNoteId}/pdf`);
    expect(notePdf.headers['content-type']).toBe('application/pdf');
    expect(notePdf.headers['content-disposition']).toBe('inline; filename="CN-000001.pdf"');

    const pdf = await ana.get(`/dashboard/billing/invoices/${invoiceId}/pdf`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toBe('inline; filename="FS-000001.pdf"');
    expect(pdf.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-');

    // A visitor who is not signed in is sent to sign-in, and back to the PDF afterwards.
    const stranger = await new Visitor(t).get(`/dashboard/billing/invoices/${invoiceId}/pdf`);
    expect(stranger.statusCode).toBe(303);
    expect(stranger.headers.location).toBe(
      `/dashboard/sign-in?next=${encodeURIComponent(`/dashboard/billing/invoices/${invoiceId}/pdf`)}`,
    );
  }, 60_000);

  it('lets the customer set the billing details the next invoice is addressed to, each problem beside its field, and lists credit notes', async () => {
    const { ana, accountId } = await subscriber();
    let page = await ana.get('/dashboard/billing');
    expect(page.body).toContain('<h2 id="billing-details">Billing details</h2>');
    expect(page.body).toContain('<textarea id="f-address" name="address"');
    // Wrong on three fields: nothing is saved, each field says what is wrong, what was typed stays.
    const refused = await ana.post('/dashboard/billing/details', {
      name: 'Ana Co SRL',
      address: 'Str. Lunga 1\nCluj',
      country: 'Romania',
      vatId: 'RO123',
      email: 'nope',
    });
    expect(refused.statusCode).toBe(400);
    const fieldError = (name: string) =>
      new RegExp(`<p class="error" id="f-${name}-error">([^<]*)</p>`).exec(refused.body)?.[1];
    expect(fieldError('country')).toBe(
      'Country must be an ISO 3166-1 alpha-2 country code such as DE, FR or US (got &quot;Romania&quot;)',
    );
    expect(fieldError('email')).toMatch(/^Billing email must be an email address/);
    expect(fieldError('vatId')).toBeUndefined(); // checked once the country is one
    expect(refused.body).toContain('value="Ana Co SRL"');
    expect(refused.body).toContain('>Str. Lunga 1\nCluj</textarea>');
    expect(refused.body).toContain('aria-invalid="true"');
    expect(json(await t.admin('GET', `/api/admin/v1/accounts/${accountId}`)).data.billing).toMatchObject({
      name: null,
      country: null,
    });
    const badId = await ana.post('/dashboard/billing/details', {
      name: 'Ana Co SRL',
      address: '',
      country: 'ro',
      vatId: 'RO123',
      email: '',
    });
    expect(/<p class="error" id="f-vatId-error">([^<]*)<\/p>/.exec(badId.body)?.[1]).toMatch(
      /^VAT id is not a valid VAT id of Romania/,
    );

    const saved = await ana.post('/dashboard/billing/details', {
      name: 'Ana Co SRL',
      address: 'Str. Lunga 1\r\n400000 Cluj',
      country: 'ro',
      vatId: 'RO 1854 7290',
      email: 'Accounts@AnaCo.example',
    });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe('/dashboard/billing?details=saved#billing-details');
    page = await ana.get('/dashboard/billing?details=saved');
    expect(text(page)).toContain('Billing details saved: the next invoice is addressed to them.');
    expect(page.body).toContain('value="RO18547290"');
    // The billing email gets mail only once confirmed by a link, which a service without mail cannot send.
    expect(text(page)).toContain(
      'Billing email accounts@anaco.example · not confirmed yet: billing mail goes to the account owner until the link mailed to it is opened.',
    );
    expect(text(page)).toContain(
      'This service sends no email, so the billing email cannot be confirmed here: ask its operator to set it.',
    );
    const resend = await ana.post('/dashboard/billing/email/confirm');
    expect(resend.statusCode).toBe(400);
    expect(text(resend)).toContain('This service sends no email, so the billing email cannot be confirmed here');
    expect(json(await t.admin('GET', `/api/admin/v1/accounts/${accountId}`)).data.billing).toMatchObject({
      name: 'Ana Co SRL',
      address: ['Str. Lunga 1', '400000 Cluj'],
      country: 'RO',
      vatId: 'RO18547290',
      email: 'accounts@anaco.example',
      emailConfirmed: false,
    });
    // Without the form's token nothing changes.
    const forged = await ana.post('/dashboard/billing/details', { _csrf: 'forged', name: 'Mallory' });
    expect(forged.statusCode).toBe(403);
  });

  it('lets the customer cancel at the end of the window (kept until then, no fee for the next, 402 after) or keep the subscription', async () => {
    expect(
      (await t.admin('POST', '/api/admin/v1/plans', { ...STARTER, id: 'pro', name: 'Pro', monthlyFee: '10.00' }))
        .statusCode,
    ).toBe(201);
    const account = await t.account({ plan: null });
    expect((await t.admin('PATCH', `/api/admin/v1/accounts/${account.accountId}`, { planId: 'pro' })).statusCode).toBe(
      200,
    ); // its first window starts now
    const { token } = await t.app.users.invite(account.accountId);
    expect((await t.app.users.acceptInvite(token, { email: 'bea@example.com', password: PASSWORD })).kind).toBe('ok');
    const bea = new Visitor(t);
    await signIn(bea, 'bea@example.com');
    let page = await bea.get('/dashboard/billing');
    expect(text(page)).toContain('Cancel the subscription It ends with the current window, on 2026-03-31 12:00 UTC');

    expect((await bea.post('/dashboard/billing/cancel')).headers.location).toBe(
      '/dashboard/billing?plan=canceling#cancel',
    );
    page = await bea.get('/dashboard/billing?plan=canceling');
    expect(text(page)).toContain('Cancellation noted: the subscription ends with this window.');
    expect(text(page)).toContain('Your subscription ends on 2026-03-31 12:00 UTC , with this window.');
    const shown = async () =>
      json(await t.admin('GET', `/api/admin/v1/accounts/${account.accountId}`)).data.subscription;
    expect(await shown()).toMatchObject({ status: 'active', cancelAt: '2026-03-31T12:00:00.000Z' });
    // Changed her mind, then again.
    expect((await bea.post('/dashboard/billing/resume')).headers.location).toBe('/dashboard/billing?plan=kept#cancel');
    expect(await shown()).toMatchObject({ status: 'active', cancelAt: null });
    await bea.post('/dashboard/billing/cancel');
    expect((await t.get(STATUS_URL, bearer(account.key))).statusCode).toBe(200); // served to the end

    await advanceTo(Date.UTC(2026, 2, 31, 13));
    expect(await shown()).toMatchObject({ status: 'canceled', cancelAt: null });
    expect((await t.get(STATUS_URL, bearer(account.key))).statusCode).toBe(402);
    const fees = (
      json(await t.admin('GET', `/api/admin/v1/invoices?account=${account.accountId}&kind=fee`)).data.invoices as {
        periodStart: string;
      }[]
    ).map((i) => i.periodStart);
    expect(fees).toEqual(['2026-03-01T12:00:00.000Z']); // the first window's fee, none for the next
    const history = json(await t.admin('GET', `/api/admin/v1/accounts/${account.accountId}/billing`)).data.history;
    expect(history.at(-1)).toMatchObject({
      from: 'active',
      to: 'canceled',
      reason: 'canceled by the customer at the end of the window',
    });
    // Nothing left to cancel: the page offers nothing, the API says why.
    await signIn(bea, 'bea@example.com');
    expect((await bea.get('/dashboard/billing')).body).not.toContain('/dashboard/billing/cancel');
    const again = await t.admin('PATCH', `/api/admin/v1/accounts/${account.accountId}`, { cancelAtWindowEnd: true });
    expect(again.statusCode).toBe(409);
    expect(json(again).message).toContain('The subscription is canceled');
  });

  it("never shows another account's invoice, nor a draft (404)", async () => {
    const { ana, invoiceId } = await invoiced();
    const bob = new Visitor(t);
    await bob.signUp('bob@example.com', 'Bob Co');
    for (const url of [
      `/dashboard/billing/invoices/${invoiceId}`,
      `/dashboard/billing/invoices/${invoiceId}/pdf`,
      '/dashboard/billing/invoices/inv_nope',
    ]) {
      const response = await bob.get(url);
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['content-type']).toMatch(/text\/html/);
      expect(text(response)).toContain('Page not found');
    }
    const bobs = await bob.get('/dashboard/billing');
    expect(text(bobs)).toContain('No invoices yet.');
    expect(bobs.body).not.toContain('FS-000001');

    // A draft is the operator's alone, as on the API.
    await t.app.db.kysely.updateTable('invoices').set({ state: 'draft' }).where('id', '=', invoiceId).execute();
    expect((await ana.get(`/dashboard/billing/invoices/${invoiceId}`)).statusCode).toBe(404);
    expect((await ana.get(`/dashboard/billing/invoices/${invoiceId}/pdf`)).statusCode).toBe(404);
    expect(text(await ana.get('/dashboard/billing'))).toContain('No invoices yet.');
  }, 60_000);

  it('tells a past-due account that requests answer 402, and still lets its user sign in and see billing', async () => {
    const { ana, accountId, key, invoiceId } = await invoiced();
    expect(
      (await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, { subscriptionStatus: 'past_due' })).statusCode,
    ).toBe(200);
    expect((await t.get(STATUS_URL, bearer(key))).statusCode).toBe(402);

    await ana.post('/dashboard/sign-out');
    await ana.get('/dashboard/sign-in');
    const signedIn = await ana.post('/dashboard/sign-in', {
      email: 'ana@example.com',
      password: PASSWORD,
      next: '/dashboard/billing',
    });
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe('/dashboard/billing');

    const banner =
      'Payment overdue. This account’s subscription is past due: API requests answer 402 Payment Required until the open invoice is paid.';
    const overview = await ana.get('/dashboard');
    expect(overview.statusCode).toBe(200);
    expect(text(overview)).toContain(banner);
    expect(overview.body).toContain('role="alert"');
    expect(text(overview)).toContain('Plan: Starter');

    const billing = await ana.get('/dashboard/billing');
    expect(billing.statusCode).toBe(200);
    expect(text(billing)).toContain(banner);
    expect(text(billing)).toContain('Subscription Past due');
    expect(text(billing)).toContain('FS-000001');
    const detail = await ana.get(`/dashboard/billing/invoices/${invoiceId}`);
    expect(detail.statusCode).toBe(200);
    expect(text(detail)).toContain(banner);
    expect((await ana.get(`/dashboard/billing/invoices/${invoiceId}/pdf`)).statusCode).toBe(200);
    // The other pages open too.
    for (const url of ['/dashboard/keys', '/dashboard/webhooks', '/dashboard/lookup'])
      expect((await ana.get(url)).statusCode, url).toBe(200);
  }, 60_000);

  it('pages the invoices 24 at a time, newest first, with an Older link', async () => {
    const ana = new Visitor(t);
    await ana.signUp('ana@example.com', 'Ana Co');
    const accountId = await accountOf('ana@example.com');
    // 25 paid fee invoices written as the invoicing job would leave them (two years of windows in seconds).
    const rows = Array.from({ length: 25 }, (_, i) => {
      const start = Date.UTC(2024, 0, 1) + i * 30 * 24 * HOUR;
      return {
        id: `inv_paging${String(i).padStart(2, '0')}`,
        number: i + 1,
        account_id: accountId,
        kind: 'fee' as const,
        period_start: start,
        period_end: start + 30 * 24 * HOUR,
        currency: 'EUR',
        total_minor: 4900,
        state: 'paid' as const,
        attempts: 0,
        next_attempt_at: null,
        overdue: 0 as const,
        gateway_ref: null,
        created_at: start,
        finalized_at: start,
        paid_at: start + HOUR,
        updated_at: start + HOUR,
      };
    });
    await t.app.db.kysely.insertInto('invoices').values(rows).execute();

    const numbers = (body: string) => [...body.matchAll(/>(FS-\d{6})</g)].map((m) => m[1]);
    const first = await ana.get('/dashboard/billing');
    expect(numbers(first.body)).toEqual(Array.from({ length: 24 }, (_, i) => `FS-${String(25 - i).padStart(6, '0')}`));
    expect(text(first)).toContain('49.00 EUR');
    const older = /href="([^"]+)" rel="next">Older</.exec(first.body)?.[1];
    expect(older).toBe('/dashboard/billing?before=inv_paging01');
    const second = await ana.get(older!);
    expect(second.statusCode).toBe(200);
    expect(numbers(second.body)).toEqual(['FS-000001']);
    expect(second.body).not.toContain('rel="next"');
    expect(second.body).toContain('<a href="/dashboard/billing">Newest</a>');

    const bad = await ana.get('/dashboard/billing?before=inv_nope');
    expect(bad.statusCode).toBe(400);
    expect(text(bad)).toContain('That page of invoices does not exist');
  }, 60_000);
});
