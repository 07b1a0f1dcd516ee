// The dashboard in a real browser (Debian's Chromium through playwright-core) against a real
// service on a real port: sign up, create a key, copy it and call the API with it; and an
// accessibility check (axe-core) of every page on the way.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumPath, launchBrowser, screenshotPath, seriousViolations, signUp } from '../helpers/browser.js';
import { PASSWORD } from '../helpers/dashboard.js';
import { startReceiver } from '../helpers/receiver.js';
import { groundTruth } from '../../src/sim/index.js';

const scratch = mkdtempSync(join(tmpdir(), 'flightstatus-browser-'));

describe.skipIf(!chromiumPath)('the dashboard in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const address = await t.app.http.listen({ port: 0, host: '127.0.0.1' });
    // localhost, as the service's banner prints it: browsers keep Secure cookies there over http.
    base = address.replace('127.0.0.1', 'localhost');
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ baseURL: base, viewport: { width: 1100, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const page = await context.newPage();
    // Every request the pages make stays on this service: no CDN, no other host.
    page.on('request', (request) => expect(new URL(request.url()).host, request.url()).toBe(new URL(base).host));
    return { context, page };
  }

  async function accessible(page: Page, what: string): Promise<void> {
    const violations = await seriousViolations(page);
    expect(
      violations.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      what,
    ).toEqual([]);
  }

  it('has an accessibility check that can fail (a field without a label is critical)', async () => {
    const { context, page } = await newPage();
    await page.goto('/dashboard/sign-in');
    await page.evaluate(`document.querySelector('label[for="f-email"]').remove()`);
    expect((await seriousViolations(page)).map((v) => v.id)).toContain('label');
    await context.close();
  }, 60_000);

  it('signs up, creates a key, copies it, and the key works on the API', async () => {
    const { context, page } = await newPage();
    await page.goto('/');
    await expect.poll(() => page.url()).toContain('/dashboard/sign-in');
    await accessible(page, 'sign-in');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await accessible(page, 'sign-up');
    // A mistake first: the form keeps what was typed and says what is wrong next to the field.
    await page.getByLabel('Company or project name').fill('Acme Claims');
    await page.getByLabel('Email').fill('ana@example');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => page.locator('#f-email-error').textContent()).toContain('Enter an email address');
    expect(await page.getByLabel('Company or project name').inputValue()).toBe('Acme Claims');
    await accessible(page, 'sign-up with an error');
    await page.getByLabel('Email').fill('ana@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    // Sign-up starts no session (a taken email is answered alike): sign-in follows, then the keys.
    await page.waitForURL('**/dashboard/sign-in?signed-up=1**');
    await expect
      .poll(() => page.locator('.notice').first().textContent())
      .toContain('If this email is new here, its account is ready');
    await accessible(page, 'sign-in after sign-up');
    await page.getByLabel('Email').fill('ana@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/dashboard/keys?welcome=1');
    await accessible(page, 'keys (empty)');

    await page.getByLabel('Key name').fill('claims backend');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = (await page.locator('#new-key').textContent())!.trim();
    expect(shown).toMatch(/^flt_/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await expect.poll(() => page.locator('#new-key-status').textContent()).toBe('Copied');
    const copied = (await page.evaluate('navigator.clipboard.readText()')) as string;
    expect(copied).toBe(shown);
    await page.screenshot({ path: screenshotPath('dashboard-keys', scratch), fullPage: true });
    await accessible(page, 'keys with the new key');

    const account = await fetch(`${base}/api/v1/account`, { headers: { authorization: `Bearer ${copied}` } });
    expect(account.status).toBe(200);
    expect(((await account.json()) as { data: { keyName: string } }).data.keyName).toBe('claims backend');
    await fetch(`${base}/api/v1/flights/status?flightNumber=W63101&flightDate=2026-02-20`, {
      headers: { authorization: `Bearer ${copied}` },
    });

    await page.getByRole('link', { name: 'Overview', exact: true }).click();
    await expect.poll(() => page.locator('figcaption').textContent()).toContain('1 answered');
    await page.screenshot({ path: screenshotPath('dashboard-overview', scratch), fullPage: true });
    await accessible(page, 'overview');

    // Deleting asks first; the key then stops working.
    page.once('dialog', (dialog) => void dialog.accept());
    await page.goto('/dashboard/keys');
    await page.getByRole('button', { name: 'Delete key claims backend' }).click();
    await expect.poll(() => page.locator('.notice').first().textContent()).toContain('Key deleted');
    expect((await fetch(`${base}/api/v1/account`, { headers: { authorization: `Bearer ${copied}` } })).status).toBe(
      401,
    );

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/dashboard/sign-in');
    await context.close();
  }, 120_000);

  it('creates an endpoint on a local receiver, sends a test, sees it delivered, rotates the secret and resends a delivery', async () => {
    let answered = 0;
    const receiver = await startReceiver(() => (answered++ === 0 ? 500 : 204));
    try {
      const { context, page } = await newPage();
      await signUp(page, 'hooks@example.com', PASSWORD);
      await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
      await accessible(page, 'webhooks (empty)');
      await page.getByLabel('Name').fill('claims intake');
      await page.getByLabel('URL').fill(receiver.url);
      // The search box narrows the catalogue; the choice is a checkbox.
      await page.getByLabel('Search airports').fill('bucharest');
      expect(await page.locator('#airport-list li:not([hidden])').count()).toBeLessThan(5);
      await page.getByLabel(/^OTP /).check();
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await expect.poll(() => page.locator('.notice').first().textContent()).toContain('Endpoint added');
      await accessible(page, 'endpoint page');

      await page.getByRole('button', { name: 'Reveal secret' }).click();
      const secret = (await page.locator('#endpoint-secret').textContent())!.trim();
      expect(secret).toMatch(/^whsec_/);

      // The first answer of the receiver is a 500: the test says so, and the log shows it.
      await page.getByRole('button', { name: 'Send a test event' }).click();
      await expect.poll(() => page.locator('.notice').first().textContent()).toContain('your endpoint answered 500');
      await page.getByRole('button', { name: 'Send a test event' }).click();
      await expect
        .poll(() => page.locator('.notice').first().textContent())
        .toContain('Test event delivered: your endpoint answered 204');
      expect(receiver.received.filter((r) => r.body.type === 'webhook.test')).toHaveLength(2);
      await expect.poll(() => page.locator('tbody tr a[href*="?delivery="]').count()).toBe(2);

      // Rotating needs the box ticked; the new secret differs and signs what follows (the old one at once here).
      await page.getByRole('button', { name: 'Rotate secret' }).click();
      await expect.poll(() => page.locator('#confirm-error').textContent()).toContain('Tick the box');
      await page.getByLabel('The old secret goes on signing beside the new one').selectOption('0');
      await page.getByLabel('I understand the old secret stops signing when that time is over').check();
      await page.getByRole('button', { name: 'Rotate secret' }).click();
      await expect.poll(() => page.locator('.notice').first().textContent()).toContain('Secret rotated');
      expect(await page.locator('main').textContent()).toContain('the old one stopped working now');
      expect((await page.locator('#endpoint-secret').textContent())!.trim()).not.toBe(secret);

      // Board events of OTP arrive as deliveries; one is resent from its page.
      answered = 0;
      await t.app.poller.pass(t.clock.now());
      await t.app.deliveries.cycle();
      await page.reload();
      const failed = await t.app.db.kysely
        .selectFrom('deliveries')
        .select('id')
        .where('state', '=', 'pending')
        .where('attempts', '=', 1)
        .executeTakeFirstOrThrow();
      const endpointId = /\/webhooks\/(wh_\w+)/.exec(page.url())![1]!;
      await page.goto(`/dashboard/webhooks/${endpointId}?delivery=${failed.id}`);
      await expect.poll(() => page.locator('#delivery-heading').textContent()).toContain(failed.id);
      await accessible(page, 'delivery detail');
      await page.getByRole('button', { name: 'Resend now' }).click();
      await expect.poll(() => page.locator('.notice').first().textContent()).toContain('Delivery queued');
      await t.app.deliveries.cycle();
      await page.reload();
      await expect
        .poll(() => page.locator('section.notice table').first().textContent())
        .toMatch(/Statedelivered\s*Attempts2/);
      expect(await page.locator('section.notice table').nth(1).locator('tbody tr').count()).toBe(2);
      await page.screenshot({ path: screenshotPath('dashboard-webhook', scratch), fullPage: true });
      await context.close();
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it('shows the plan, a past-due banner, the invoices and one invoice on the billing pages', async () => {
    const { context, page } = await newPage();
    await signUp(page, 'billing@example.com', PASSWORD);
    const { account_id: accountId } = await t.app.db.kysely
      .selectFrom('users')
      .select('account_id')
      .where('email', '=', 'billing@example.com')
      .executeTakeFirstOrThrow();
    await t.admin('POST', '/api/admin/v1/plans', {
      id: 'starter',
      name: 'Starter',
      currency: 'EUR',
      monthlyFee: '0',
      included: 3,
      overage: true,
      overagePrice: '0.125',
    });
    await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, { planId: 'starter' });
    await t.admin('PATCH', `/api/admin/v1/accounts/${accountId}`, { subscriptionStatus: 'past_due' });
    // An open invoice as the invoicing job leaves one (without moving this suite's clock a month).
    const at = t.clock.now();
    await t.app.db.kysely
      .insertInto('invoices')
      .values({
        id: 'inv_browser',
        number: 900,
        account_id: accountId,
        kind: 'overage',
        period_start: at - 30 * 86_400_000,
        period_end: at,
        currency: 'EUR',
        total_minor: 88,
        state: 'open',
        attempts: 0,
        next_attempt_at: null,
        overdue: 1,
        gateway_ref: null,
        created_at: at,
        finalized_at: at,
        paid_at: null,
        updated_at: at,
      })
      .execute();
    await t.app.db.kysely
      .insertInto('invoice_lines')
      .values({
        invoice_id: 'inv_browser',
        line: 1,
        plan_id: 'starter',
        description: 'Overage: requests past the allowance',
        quantity: 7,
        unit_price_micro_minor: 12_500_000,
        amount_minor: 88,
      })
      .execute();
    await page.getByRole('link', { name: 'Billing', exact: true }).click();
    await expect.poll(() => page.locator('.notice.bad').first().textContent()).toContain('402 Payment Required');
    expect(await page.locator('tbody').first().textContent()).toContain('0.88 EUR');
    await accessible(page, 'billing');
    await page.screenshot({ path: screenshotPath('dashboard-billing', scratch), fullPage: true });
    await page.getByRole('link', { name: 'FS-000900', exact: true }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Invoice FS-000900');
    await accessible(page, 'invoice');
    const pdf = await page.request.get(`/dashboard/billing/invoices/inv_browser/pdf`);
    expect(pdf.headers()['content-type']).toBe('application/pdf');
    await context.close();
  }, 120_000);

  it('looks up a simulated flight and shows its verdict and proof image', async () => {
    const { context, page } = await newPage();
    await signUp(page, 'lookup@example.com', PASSWORD);
    await page.getByRole('link', { name: 'Look up a flight', exact: true }).click();
    await expect.poll(() => page.locator('#lookup-cost').textContent()).toContain('Each lookup takes one credit');
    await accessible(page, 'lookup form');
    const delayed = groundTruth(t.app.sim!, '2026-02-20', { status: 'delayed', operation: 'passenger' })[0]!;
    await page.getByLabel('Flight number').fill(delayed.flightNumber);
    await page.getByLabel('Date of departure', { exact: true }).fill('2026-02-20');
    await page.getByLabel('From (optional)').fill(delayed.origin);
    await page.getByRole('button', { name: 'Look up (1 credit)' }).click();
    await expect.poll(() => page.locator('#result-heading').textContent()).toContain(delayed.flightNumber);
    const proof = page.getByRole('img', { name: /^Proof image:/ });
    await expect
      .poll(() => proof.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
      .toBeGreaterThan(100);
    expect(await page.locator('dl.stats').first().textContent()).toContain('delayed');
    await accessible(page, 'lookup result');
    await page.screenshot({ path: screenshotPath('dashboard-lookup', scratch), fullPage: true });
    await context.close();
  }, 120_000);

  it('shows the service mark on the dashboard and on /docs, which loads without a console error', async () => {
    const { context, page } = await newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
    });
    await page.goto('/dashboard/sign-in');
    const mark = page.locator('header .brand img');
    await expect
      .poll(() => mark.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
      .toBeGreaterThan(0);
    const icon = await page.request.get('/favicon.ico');
    expect(icon.headers()['content-type']).toBe('image/x-icon');
    expect([...(await icon.body()).subarray(0, 4)]).toEqual([0, 0, 1, 0]);

    await page.goto('/docs/');
    await expect.poll(() => page.title()).toBe('Flight Status Service API');
    const logo = page.locator('.topbar-wrapper a.link img');
    await expect.poll(() => logo.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
    await expect
      .poll(() => logo.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
      .toBeGreaterThan(0);
    await expect.poll(() => page.locator('.opblock-tag').count()).toBeGreaterThan(3);
    await page.waitForTimeout(300);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
