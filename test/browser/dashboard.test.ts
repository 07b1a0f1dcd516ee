// The dashboard in a real browser (Debian's Chromium through playwright-core) against a real
// service on a real port: sign up, create a key, copy it and call the API with it; and an
// accessibility check (axe-core) of every page on the way.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumPath, launchBrowser, screenshotPath, seriousViolations } from '../helpers/browser.js';
import { PASSWORD } from '../helpers/dashboard.js';

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
    expect(violations.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), what).toEqual([]);
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
    await fetch(`${base}/api/v1/flights/status?flightNumber=W63101&flightDate=2026-02-20`, { headers: { authorization: `Bearer ${copied}` } });

    await page.getByRole('link', { name: 'Overview' }).click();
    await expect.poll(() => page.locator('figcaption').textContent()).toContain('1 answered');
    await page.screenshot({ path: screenshotPath('dashboard-overview', scratch), fullPage: true });
    await accessible(page, 'overview');

    // Deleting asks first; the key then stops working.
    page.once('dialog', (dialog) => void dialog.accept());
    await page.goto('/dashboard/keys');
    await page.getByRole('button', { name: 'Delete key claims backend' }).click();
    await expect.poll(() => page.locator('.notice').first().textContent()).toContain('Key deleted');
    expect((await fetch(`${base}/api/v1/account`, { headers: { authorization: `Bearer ${copied}` } })).status).toBe(401);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/dashboard/sign-in');
    await context.close();
  }, 120_000);
});
