// The Watches pages in a real browser (Debian's Chromium through playwright-core) against a real
// service on a real port: a CSV chosen in the file picker for a ticked endpoint is refused for its
// bad row, the valid rows are created; the list and its filter; one watch's page; Stop (confirmed);
// axe-core on each state, the header on one line at 1280 px, and both pages on a 390 px phone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumPath, launchBrowser, seriousViolations, signUp } from '../helpers/browser.js';
import { PASSWORD } from '../helpers/dashboard.js';

const DATE = '2026-02-20';

describe.skipIf(!chromiumPath)('the Watches pages in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { pollIntervalMs: 365 * 86_400_000 });
    base = (await t.app.http.listen({ port: 0, host: '127.0.0.1' })).replace('127.0.0.1', 'localhost');
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function accessible(page: Page, what: string): Promise<void> {
    const violations = await seriousViolations(page);
    expect(
      violations.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      what,
    ).toEqual([]);
  }
  const phoneWidth = async (page: Page) => (await page.evaluate('document.documentElement.scrollWidth')) as number;

  it('creates watches from a chosen file for a ticked endpoint, lists and filters them, opens one and stops it: accessible, fitting a phone', async () => {
    const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('request', (request) => expect(new URL(request.url()).host, request.url()).toBe(new URL(base).host));
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    await signUp(page, 'watches@example.com', PASSWORD);
    // Two endpoints of the account, made through the API with a key from the keys page.
    await page.getByLabel('Key name').fill('watches');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.waitForSelector('#new-key');
    const key = (await page.locator('#new-key').textContent())!;
    for (const name of ['claims intake', 'policy desk with a rather long name for a narrow screen']) {
      const made = await fetch(`${base}/api/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, url: 'http://127.0.0.1:9/hook', airports: ['OTP'] }),
      });
      expect(made.status).toBe(201);
    }

    await page.getByRole('link', { name: 'Watches', exact: true }).click();
    await page.waitForURL('**/dashboard/watches');
    // The header stays on one line at 1280 px with the new link: brand, every link and the sign-out button side by side.
    const middles = await page
      .locator('header.top .brand, header.top nav li, header.top button')
      .evaluateAll((nodes) =>
        nodes.map((n) => Math.round((n.getBoundingClientRect().top + n.getBoundingClientRect().bottom) / 2)),
      );
    expect(middles).toHaveLength(9);
    expect(Math.max(...middles) - Math.min(...middles), `middles ${middles.join(',')}`).toBeLessThan(6);
    expect(await page.locator('#watch-cost').textContent()).toContain('1 credit per watch created');
    expect(await page.locator('#dropzone').isVisible()).toBe(true);
    await accessible(page, 'watches (empty)');

    // Nothing ticked, a file with a bad row: both named, nothing created.
    const csv =
      [
        'flightNumber,flightDate,reference',
        `W63101,${DATE},policy-1`,
        `W63103,${DATE},policy-2`,
        `W63105,${DATE},policy-3`,
        `W61,20/02/2026,bad-date`,
      ].join('\r\n') + '\r\n';
    await page
      .getByLabel('CSV file')
      .setInputFiles({ name: 'policies.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await expect.poll(() => page.locator('#watch-file-chosen').textContent()).toContain('policies.csv');
    await page.getByRole('button', { name: 'Create watches' }).click();
    const problem = page.locator('#upload-error');
    await expect.poll(() => problem.textContent()).toContain('Choose at least one webhook endpoint');
    expect(await problem.textContent()).toContain('1 of 4 rows are invalid.');
    expect(await problem.locator('tbody tr').first().textContent()).toMatch(
      /^4flightDate "20\/02\/2026" is a spreadsheet's date format/,
    );
    await accessible(page, 'watches refused: no endpoint, a bad row');

    await page.getByLabel('claims intake').check();
    await page.getByRole('button', { name: 'Create watches' }).click();
    await expect.poll(() => problem.textContent()).not.toContain('Choose at least one webhook endpoint');
    await page.getByRole('button', { name: 'Create the 3 valid watches, skip 1' }).click();
    await page.waitForURL('**/dashboard/watches?created=3&existing=0&skipped=1');
    expect(await page.locator('main .notice.ok').textContent()).toBe(
      '3 watches created (3 credits); 1 invalid row skipped at no cost.',
    );
    expect(await page.locator('#watches tbody tr').count()).toBe(3);
    expect(await page.locator('#watches tbody').textContent()).toContain('claims intake');
    await accessible(page, 'watches listed');

    // The reference filter, a GET form: its own address.
    await page.getByLabel('Reference').fill('policy-2');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL('**/dashboard/watches?state=&reference=policy-2');
    expect(await page.locator('#watches tbody tr').count()).toBe(1);

    await page.getByRole('link', { name: 'W63103' }).click();
    await page.waitForURL(/\/dashboard\/watches\/wch_\w+$/);
    expect(await page.locator('h1').textContent()).toBe(`Watch of W63103 on ${DATE}`);
    expect(await page.locator('#flight-unknown').textContent()).toContain('Nothing known yet');
    expect(await page.locator('#no-events').textContent()).toContain(
      'listed here as the service observes them, on the boards it polls or by asking the flight providers',
    );
    expect(await page.locator('#watch-endpoints').textContent()).toContain('claims intake');
    await accessible(page, 'one watch');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Stop watch' }).click();
    await page.waitForURL(/\/dashboard\/watches\/wch_\w+\?done=stopped$/);
    expect(await page.locator('#watch-state').textContent()).toContain('stopped');
    expect(await page.getByRole('button', { name: 'Stop watch' }).count()).toBe(0);
    await accessible(page, 'one watch, stopped');
    const id = /wch_\w+/.exec(page.url())![0];

    // On a phone: neither page scrolls sideways with data in its tables.
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of ['/dashboard/watches', `/dashboard/watches/${id}`, '/dashboard/watches?state=stopped']) {
      await page.goto(path);
      expect(await phoneWidth(page), path).toBeLessThanOrEqual(390);
    }
    await page.goto('/dashboard/watches');
    await accessible(page, 'watches on a phone');
    expect(await page.locator('#watches tbody tr').count()).toBe(3);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
