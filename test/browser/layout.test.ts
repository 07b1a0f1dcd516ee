// The dashboard at the widths people use: a phone (390 px) shows every page (the watch pages with
// watches listed) without sideways scrolling, and a laptop (1280 px) keeps the header on one line; the account pages pass axe-core.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { groundTruth } from '../../src/sim/index.js';
import { json, startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumPath, launchBrowser, screenshotPath, seriousViolations, signUp } from '../helpers/browser.js';
import { PASSWORD } from '../helpers/dashboard.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startSmtpServer, type MailSink } from '../helpers/smtp.js';

const scratch = mkdtempSync(join(tmpdir(), 'flightstatus-layout-'));

describe.skipIf(!chromiumPath)('the dashboard at phone and laptop widths', () => {
  let t: TestApp;
  let sink: MailSink;
  let receiver: Receiver;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    sink = await startSmtpServer();
    receiver = await startReceiver();
    t = await startTestApp('sqlite', {
      mail: sink.config,
      seller: {
        name: 'Flight Status GmbH',
        country: 'DE',
        vatId: 'DE136695976',
        address: ['Hauptstr. 1', '10115 Berlin'],
      },
    });
    base = (await t.app.http.listen({ port: 0, host: '127.0.0.1' })).replace('127.0.0.1', 'localhost');
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await sink?.close();
    await receiver?.close();
  });

  /** Pages a signed-in customer opens, one with each kind of content (tables, forms, a chart). */
  async function pages(page: Page): Promise<string[]> {
    await page.goto('/dashboard/keys');
    await page.getByLabel('Key name').fill('a key with a rather long descriptive name');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.waitForSelector('#new-key');
    const key = (await page.locator('#new-key').textContent())!;
    await fetch(`${base}/api/v1/flights/status?flightNumber=W63101&flightDate=2026-02-20`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const created = await fetch(`${base}/api/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'claims intake', url: `${receiver.url}/hook`, airports: ['OTP', 'BCN'] }),
    });
    const { data } = (await created.json()) as { data: { id: string } };
    // Watches with long references, for the watch list and one watch's page.
    const watched = await fetch(`${base}/api/v1/watches`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(
        ['W63101', 'W63103'].map((flightNumber, i) => ({
          flightNumber,
          flightDate: '2026-02-20',
          origin: 'OTP',
          reference: `insurance-policy-with-a-long-reference-number-000${i + 1}`,
          endpoints: [data.id],
        })),
      ),
    });
    expect(watched.status).toBe(201);
    const { data: listed } = (await watched.json()) as { data: { watches: { id: string }[] } };
    return [
      '/dashboard',
      '/dashboard/keys',
      '/dashboard/webhooks',
      `/dashboard/webhooks/${data.id}`,
      '/dashboard/lookup',
      '/dashboard/batches',
      '/dashboard/watches',
      `/dashboard/watches/${listed.watches[0]!.id}`,
      '/dashboard/billing',
      '/dashboard/account',
    ];
  }

  it('fits a 390 px phone: no page is wider than the screen', async () => {
    const context = await browser.newContext({
      baseURL: base,
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    await signUp(page, 'phone@example.com', PASSWORD);
    const wide: string[] = [];
    for (const path of [...(await pages(page)), '/dashboard/forgot-password']) {
      await page.goto(path);
      const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
      if (width > 390) wide.push(`${path}: ${width} px`);
    }
    // With data in the tables: the team with an open invitation to a long address, a lookup's result.
    const { account_id: accountId } = await t.app.db.kysely
      .selectFrom('users')
      .select('account_id')
      .where('email', '=', 'phone@example.com')
      .executeTakeFirstOrThrow();
    await t.app.users.invitations.create(accountId, {
      email: 'a.colleague.with.a.long.address@claims-department.example',
      role: 'billing',
      invitedBy: 'phone@example.com',
    });
    // And a colleague who joined: a member's row with its role and Remove.
    const joined = await t.app.users.invitations.create(accountId, {
      email: 'another.colleague.who.joined.already@claims-department.example',
      role: 'developer',
      invitedBy: 'phone@example.com',
    });
    if (joined.kind !== 'ok') throw new Error(`not invited: ${JSON.stringify(joined)}`);
    const accepted = await t.app.users.acceptInvite(joined.value.token, {
      email: 'another.colleague.who.joined.already@claims-department.example',
      password: PASSWORD,
    });
    expect(accepted.kind).toBe('ok');
    const measure = async (what: string) => {
      const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
      if (width > 390) wide.push(`${what}: ${width} px`);
    };
    await page.goto('/dashboard/team');
    await measure('/dashboard/team with an invitation');
    await page.goto('/dashboard/lookup');
    const delayed = groundTruth(t.app.sim!, '2026-02-20', { status: 'delayed', operation: 'passenger' })[0]!;
    await page.getByLabel('Flight number').fill(delayed.flightNumber);
    await page.getByLabel('Date of departure', { exact: true }).fill('2026-02-20');
    await page.getByLabel('From (optional)').fill(delayed.origin);
    await page.getByRole('button', { name: 'Look up (1 credit)' }).click();
    await page.waitForSelector('#result-heading');
    await measure('the lookup result');
    await page.goto('/dashboard');
    await page.screenshot({ path: screenshotPath('dashboard-phone', scratch), fullPage: true });
    expect(wide).toEqual([]);
    // The usage chart opens on its latest days: today's bar is on the screen, not scrolled off to the right.
    const today = page.locator('figure.chart svg rect').last();
    const box = (await today.boundingBox())!;
    expect(box.x, "today's bar starts on the screen").toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, "today's bar ends on the screen").toBeLessThanOrEqual(390);
    await context.close();
  }, 120_000);

  it('keeps the header on one line at 1280 px on every page', async () => {
    const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await signUp(page, 'a.rather.long.address@claims-company.example', PASSWORD);
    const wrapped: string[] = [];
    for (const path of await pages(page)) {
      await page.goto(path);
      // Rows of the header's parts: a part that starts below the bottom of the row so far starts another.
      const lines = (await page.evaluate(`(() => {
        const boxes = [...document.querySelectorAll('header.top > *, header.top nav li')].map((e) => e.getBoundingClientRect()).sort((a, b) => a.top - b.top);
        let rows = 0;
        let bottom = -Infinity;
        for (const box of boxes) {
          if (box.top >= bottom - 1) rows++;
          bottom = Math.max(bottom, box.bottom);
        }
        return rows;
      })()`)) as number;
      if (lines > 1) wrapped.push(`${path}: ${lines} rows`);
    }
    expect(wrapped).toEqual([]);
    await context.close();
  }, 120_000);

  it('has accessible account pages: forgotten password, account, team, the delivery log filters', async () => {
    const context = await browser.newContext({ baseURL: base, viewport: { width: 1100, height: 800 } });
    const page = await context.newPage();
    const problems = async (what: string) =>
      expect(
        (await seriousViolations(page)).map((v) => `${v.id}: ${v.help}`),
        what,
      ).toEqual([]);
    await page.goto('/dashboard/sign-in');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL('**/dashboard/forgot-password');
    await problems('forgot password');
    await page.getByLabel('Email').fill('nobody');
    await page.getByRole('button', { name: 'Send me a link' }).click();
    await expect.poll(() => page.locator('#f-email-error').textContent()).toContain('Enter an email address');
    await problems('forgot password with an error');
    await signUp(page, 'axe@example.com', PASSWORD);
    await page.goto('/dashboard/account');
    await problems('account');
    await page.goto('/dashboard/team');
    await problems('team');
    // Open invitations, each with its Revoke button: accessible, and fitting a phone.
    const { account_id: teamAccount } = await t.app.db.kysely
      .selectFrom('users')
      .select('account_id')
      .where('email', '=', 'axe@example.com')
      .executeTakeFirstOrThrow();
    await t.app.users.invite(teamAccount);
    await t.app.users.invitations.create(teamAccount, {
      email: 'a.colleague.with.a.long.address@claims-department.example',
      role: 'developer',
      invitedBy: 'axe@example.com',
    });
    await page.goto('/dashboard/team');
    await expect
      .poll(() => page.locator('main').textContent())
      .toContain('Revoke the invitation to a.colleague.with.a.long.address@claims-department.example');
    await problems('team with open invitations');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(
      (await page.evaluate('document.documentElement.scrollWidth')) as number,
      'team at phone width',
    ).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1100, height: 800 });
    const paths = await pages(page);
    await page.goto(`${paths[3]}?flight=nope`);
    await expect.poll(() => page.locator('#filter-error').textContent()).toContain('Flight must be a flight number');
    await problems('delivery log with a filter error');
    await context.close();
  }, 120_000);

  it('shows an invoice a business can book, billing details and a credit note: accessible, fitting a phone, the invoice page styled under its CSP', async () => {
    const context = await browser.newContext({ baseURL: base, viewport: { width: 1100, height: 800 } });
    const page = await context.newPage();
    const problems = async (what: string) =>
      expect(
        (await seriousViolations(page)).map((v) => `${v.id}: ${v.help}`),
        what,
      ).toEqual([]);
    await signUp(page, 'books@example.com', PASSWORD);
    const { account_id: accountId } = await t.app.db.kysely
      .selectFrom('users')
      .select('account_id')
      .where('email', '=', 'books@example.com')
      .executeTakeFirstOrThrow();
    // March's overage on a priced plan, invoiced to a French business, with one credit note.
    await t.admin('POST', '/api/admin/v1/plans', {
      id: 'booked',
      name: 'Booked',
      currency: 'EUR',
      monthlyFee: '0',
      included: 1,
      overage: true,
      overagePrice: '0.5',
    });
    await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, { planId: 'booked' });
    await page.goto('/dashboard/billing');
    await page.getByLabel('Legal name').fill('Claims Company SARL');
    await page.getByLabel('Address').fill('12 rue de la Paix\n75002 Paris');
    await page.getByLabel('Country').fill('Germany');
    await page.getByLabel('VAT id').fill('FR40303265045');
    await page.getByRole('button', { name: 'Save billing details' }).click();
    await expect
      .poll(() => page.locator('#f-country-error').textContent())
      .toContain('Country must be an ISO 3166-1 alpha-2 country code');
    await problems('billing details with an error');
    await page.getByLabel('Country').fill('FR');
    await page.getByLabel('Billing email').fill('accounts.payable@claims-company.example');
    await page.getByRole('button', { name: 'Save billing details' }).click();
    await page.waitForURL('**/dashboard/billing?details=confirm#billing-details');
    await expect.poll(() => page.locator('#billing-email-state').textContent()).toContain('not confirmed yet');
    await problems('billing, details saved, the billing email not confirmed yet');
    const key = json(await t.admin('POST', `/api/admin/v1/accounts/${accountId}/keys`, { name: 'books' })).data
      .key as string;
    const keyId = json(await t.admin('GET', `/api/admin/v1/accounts/${accountId}`)).data.keys[0].keyId as string;
    await t.app.db.kysely
      .insertInto('usage_log')
      .values({
        at: Date.UTC(2026, 2, 5),
        account_id: accountId,
        key_id: keyId,
        endpoint: 'GET /api/v1/flights/status',
        status: 200,
        duration_ms: 1,
        query: '',
        overage: 1,
        plan_id: 'booked',
      })
      .execute();
    await t.app.billing.rerunMonth(Date.UTC(2026, 2, 1), Date.UTC(2026, 3, 2));
    const { id: invoiceId } = await t.app.db.kysely
      .selectFrom('invoices')
      .select('id')
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    await t.app.billing.markPaid(invoiceId, 'transfer');
    await t.admin('POST', `/api/admin/v1/invoices/${invoiceId}/credit-notes`, { reason: 'goodwill', amount: '0.20' });
    await page.goto(`/dashboard/billing/invoices/${invoiceId}`);
    await expect.poll(() => page.locator('main').textContent()).toContain('Reverse charge');
    await problems('invoice page');

    // At phone width: the billing page and the invoice fit.
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of ['/dashboard/billing', `/dashboard/billing/invoices/${invoiceId}`]) {
      await page.goto(path);
      expect((await page.evaluate('document.documentElement.scrollWidth')) as number, path).toBeLessThanOrEqual(390);
    }
    await context.close();

    // The standalone HTML invoice: its stylesheet applies (the CSP allows it by hash), nothing is refused, it fits a phone.
    const api = await browser.newContext({
      baseURL: base,
      viewport: { width: 390, height: 844 },
      extraHTTPHeaders: { authorization: `Bearer ${key}` },
    });
    const sheet = await api.newPage();
    const refused: string[] = [];
    sheet.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && refused.push(m.text()));
    await sheet.goto(`/api/v1/invoices/${invoiceId}/html`);
    expect(await sheet.evaluate('getComputedStyle(document.querySelector("table")).borderCollapse')).toBe('collapse');
    expect(await sheet.evaluate('getComputedStyle(document.querySelector(".stamp")).fontWeight')).toBe('700');
    expect((await sheet.evaluate('document.documentElement.scrollWidth')) as number).toBeLessThanOrEqual(390);
    expect(refused).toEqual([]);
    expect((await seriousViolations(sheet)).map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    await api.close();
  }, 120_000);

  it('offers dearer plans with what they cost now, fitting a phone (moves the clock: the last test here)', async () => {
    const context = await browser.newContext({ baseURL: base, viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await signUp(page, 'upgrades@example.com', PASSWORD);
    const { account_id: accountId } = await t.app.db.kysely
      .selectFrom('users')
      .select('account_id')
      .where('email', '=', 'upgrades@example.com')
      .executeTakeFirstOrThrow();
    const plan = (id: string, name: string, monthlyFee: string, included: number) =>
      t.admin('POST', '/api/admin/v1/plans', {
        id,
        name,
        currency: 'EUR',
        monthlyFee,
        included,
        overage: true,
        overagePrice: '0.05',
        selfService: true,
      });
    await plan('phone-starter', 'Starter', '9.00', 1000);
    await plan('phone-claims-desk', 'Claims desk with evidence for every flight', '1490.00', 250_000);
    await plan('phone-hobby', 'Hobby', '0', 100);
    // The catalogue plan becomes the account's at its next window (a running subscription's rule).
    expect(
      (await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, { planId: 'phone-starter' })).statusCode,
    ).toBe(200);
    t.clock.advance(31 * 24 * 3600_000);
    await page.goto('/dashboard/sign-in');
    await page.getByLabel('Email').fill('upgrades@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/sign-in'));
    await page.goto('/dashboard/billing');
    // A dearer plan starts now at a prorated price; a cheaper one waits for the next window.
    await expect
      .poll(() => page.locator('#when-phone-claims-desk').textContent())
      .toBe(
        // (1,490.00 − 9.00) × 29/30 days left of the window, and a German seller's VAT (no billing details yet).
        'Starts now; you pay 1703.64 EUR now (1431.63 EUR plus 19 % VAT), prorated for the 29 days left of this window.',
      );
    expect(await page.locator('#when-phone-hobby').textContent()).toMatch(
      /^From .+, when the next 30-day window starts; this window keeps Starter\.$/,
    );
    expect(
      await page.getByRole('button', { name: 'Upgrade to Claims desk with evidence for every flight now' }).count(),
    ).toBe(1);
    expect((await page.evaluate('document.documentElement.scrollWidth')) as number).toBeLessThanOrEqual(390);
    expect((await seriousViolations(page)).map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    await context.close();
  }, 60_000);
});
