// The Batches page in a real browser (Debian's Chromium through playwright-core) against a real
// service on a real port: a CSV chosen in the file picker is refused for its bad rows, the valid
// ones run; the progress bar reaches 100% while the page stays the same document (no reload); the
// chart, the table, a filter, the CSV download; a file dropped on the drop zone; the header on one
// line at 1280 px and the page on a phone; axe-core on each state.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CSV_COLUMNS } from '../../src/batches/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumPath, launchBrowser, screenshotPath, seriousViolations, signUp } from '../helpers/browser.js';
import { PASSWORD } from '../helpers/dashboard.js';
import { groundTruth, type TruthFlight } from '../../src/sim/index.js';

const scratch = mkdtempSync(join(tmpdir(), 'flightstatus-browser-'));
const DATE = '2026-02-20';
const HEADER = CSV_COLUMNS.join(',');

describe.skipIf(!chromiumPath)('the Batches page in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let byStatus: Map<string, TruthFlight[]>;
  beforeAll(async () => {
    // Each simulated flight lookup takes 100 ms, one at a time per batch: a batch of 24 rows runs
    // for a few seconds, long enough to watch its progress bar move.
    t = await startTestApp('sqlite', {
      batches: { perBatch: 1 },
      sim: { latency: { flight: { min: 100, max: 100 } } },
    });
    const address = await t.app.http.listen({ port: 0, host: '127.0.0.1' });
    base = address.replace('127.0.0.1', 'localhost');
    browser = await launchBrowser();
    const day = groundTruth(t.app.sim!, DATE, { operation: 'passenger' });
    const legs = new Map<string, number>();
    for (const f of day) legs.set(f.flightNumber, (legs.get(f.flightNumber) ?? 0) + 1);
    byStatus = new Map();
    for (const f of day.filter((f) => legs.get(f.flightNumber) === 1))
      byStatus.set(f.status, [...(byStatus.get(f.status) ?? []), f]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function newPage(width = 1280): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
    const context = await browser.newContext({
      baseURL: base,
      viewport: { width, height: 900 },
      acceptDownloads: true,
    });
    const page = await context.newPage();
    page.on('request', (request) => expect(new URL(request.url()).host, request.url()).toBe(new URL(base).host));
    // A script the CSP refused, or one that threw, shows here.
    const errors: string[] = [];
    // (The refused upload's 400 and the browser's own favicon request are logged as failed loads: not errors of the page.)
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    return { context, page, errors };
  }

  async function accessible(page: Page, what: string): Promise<void> {
    const violations = await seriousViolations(page);
    expect(
      violations.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      what,
    ).toEqual([]);
  }

  const csvOf = (list: TruthFlight[]) =>
    ['flightNumber,flightDate,reference', ...list.map((f, i) => `${f.flightNumber},${DATE},claim-${i + 1}`)].join(
      '\r\n',
    ) + '\r\n';

  it('uploads a CSV with the file picker, runs its valid rows, follows the progress to 100% without a reload, filters and downloads the results', async () => {
    const { context, page, errors } = await newPage();
    await signUp(page, 'batches@example.com', PASSWORD);
    await page.getByRole('link', { name: 'Batches', exact: true }).click();
    await page.waitForURL('**/dashboard/batches');

    // The header stays on one line at 1280 px: brand, every link and the sign-out button side by side.
    const middles = await page
      .locator('header.top .brand, header.top nav li, header.top button')
      .evaluateAll((nodes) =>
        nodes.map((n) => Math.round((n.getBoundingClientRect().top + n.getBoundingClientRect().bottom) / 2)),
      );
    expect(middles).toHaveLength(9);
    expect(Math.max(...middles) - Math.min(...middles), `middles ${middles.join(',')}`).toBeLessThan(6);
    expect(await page.locator('#dropzone').isVisible()).toBe(true);
    await accessible(page, 'batches (empty)');

    const delayed = byStatus.get('delayed')!.slice(0, 12);
    const cancelled = byStatus.get('cancelled')!.slice(0, 4);
    const onTime = byStatus.get('on_time')!.slice(0, 8);
    const good = [...onTime, ...delayed, ...cancelled];
    const withBad = csvOf(good) + `W61,20/02/2026,bad-date\r\n,${DATE},no-number\r\n`;
    // Saved by Excel on Windows: Windows-1252, so the accented reference reaches the results as written.
    const saved = withBad.replace('claim-1\r\n', 'claim-1 Müller\r\n');
    await page
      .getByLabel('CSV file')
      .setInputFiles({ name: 'claims.csv', mimeType: 'text/csv', buffer: Buffer.from(saved, 'latin1') });
    await expect.poll(() => page.locator('#batch-file-chosen').textContent()).toContain('claims.csv');
    await page.getByRole('button', { name: 'Check and run' }).click();
    // Refused: the first bad rows, and a way to run the valid ones.
    const problem = page.locator('#upload-error');
    await expect.poll(() => problem.textContent()).toContain('2 of 26 rows are invalid: nothing was queued.');
    expect(await problem.locator('tbody tr').count()).toBe(2);
    expect(await problem.locator('tbody tr').first().textContent()).toMatch(
      /^25flightDate "20\/02\/2026" is a spreadsheet's date format/,
    );
    await accessible(page, 'batches with a refused upload');
    await page.screenshot({ path: screenshotPath('dashboard-batches-refused', scratch), fullPage: true });

    await page.getByRole('button', { name: 'Run the 24 valid rows, skip 2' }).click();
    await page.waitForURL(/\/dashboard\/batches\/bat_\w+\?done=submitted$/);
    // From here on the same document: a marker set now survives until the end.
    await page.evaluate(`window.__sameDocument = true`);
    const seen: number[] = [];
    await expect
      .poll(
        async () => {
          seen.push(
            (await page
              .locator('#batch-progress')
              .evaluate((p) => (p as unknown as { value: number }).value)) as number,
          );
          return seen[seen.length - 1];
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBe(100);
    expect(
      seen.some((v) => v > 0 && v < 100),
      `values seen: ${seen.join(',')}`,
    ).toBe(true);
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    // Once ended, the page's sections are read again: done, no cancel button, the results. The state
    // reads Done from the last progress answer, before the fresh sections arrive, so each is waited for.
    await expect.poll(() => page.locator('#batch-state').textContent()).toContain('Done');
    await expect.poll(() => page.getByRole('button', { name: 'Cancel batch' }).count()).toBe(0);
    await expect.poll(() => page.locator('#results tbody tr').count()).toBe(26);
    expect(await page.evaluate('window.__sameDocument')).toBe(true);

    // The chart: its numbers in words, and bars in proportion.
    expect(await page.locator('#counts-summary').textContent()).toBe('8 on time, 12 delayed, 4 cancelled, 2 invalid.');
    const width = (key: string) =>
      page.locator(`rect[data-bar="${key}"]`).evaluate((r) => r.getBoundingClientRect().width);
    expect(await width('delayed')).toBeGreaterThan(await width('on_time'));
    expect(await width('refused')).toBe(0);
    expect(await page.locator('#progress-text').textContent()).toBe('26 of 26 rows finished (100%)');
    await accessible(page, 'batch done');
    await page.screenshot({ path: screenshotPath('dashboard-batch', scratch), fullPage: true });

    await page.getByRole('link', { name: 'Disrupted only' }).click();
    await page.waitForURL(/only=disrupted/);
    expect(await page.locator('#results tbody tr').count()).toBe(16);
    expect(await page.locator('#results tbody').textContent()).not.toContain('on time');
    await accessible(page, 'batch, disrupted only');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download results CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^bat_\w+-results\.csv$/);
    const file = readFileSync((await download.path())!, 'utf8');
    expect(file.startsWith('\uFEFF')).toBe(true); // the UTF-8 mark a spreadsheet needs
    const lines = file.slice(1).trimEnd().split('\r\n');
    expect(lines[0]).toBe(HEADER);
    expect(lines).toHaveLength(27);
    expect(lines[1]).toMatch(new RegExp(`^1,claim-1 Müller,${onTime[0]!.flightNumber},${DATE},`));
    expect(lines[25]).toMatch(/^25,bad-date,,,,,invalid,/);

    // "…and not at risk": only owed rows, each saying its amount is not at risk.
    await page.getByRole('link', { name: '…and not at risk' }).click();
    await page.waitForURL(/only=owed_not_at_risk/);
    const risks = await page
      .locator('#results tbody [data-risk]')
      .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-risk')));
    expect(risks.every((r) => r === 'no')).toBe(true);
    expect(await page.locator('#results tbody tr').count()).toBe(risks.length);
    await accessible(page, 'batch, owed and not at risk');

    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it('takes a file dropped on the drop zone, and reads on a phone', async () => {
    const { context, page, errors } = await newPage(390);
    await signUp(page, 'drop@example.com', PASSWORD);
    await page.goto('/dashboard/batches');
    // Two delayed flights and one 3 hours late at arrival (owed compensation, so its row says whether the amount is at risk).
    const late = byStatus.get('delayed')!.filter((f) => (f.arrivalDelayMinutes ?? 0) >= 200);
    const csv = csvOf([...byStatus.get('delayed')!.slice(20, 22), late[late.length - 1]!]);
    const dataTransfer = await page.evaluateHandle(
      `(() => { const transfer = new DataTransfer(); transfer.items.add(new File([${JSON.stringify(csv)}], 'dropped.csv', { type: 'text/csv' })); return transfer; })()`,
    );
    await page.dispatchEvent('#dropzone', 'dragenter', { dataTransfer });
    expect(await page.locator('#dropzone').getAttribute('class')).toContain('dragging');
    await page.dispatchEvent('#dropzone', 'drop', { dataTransfer });
    await expect.poll(() => page.locator('#batch-file-chosen').textContent()).toContain('dropped.csv');
    await page.getByRole('button', { name: 'Check and run' }).click();
    await page.waitForURL(/\/dashboard\/batches\/bat_\w+/);
    await expect.poll(() => page.locator('#batch-state').textContent(), { timeout: 30_000 }).toContain('Done');
    await expect.poll(() => page.locator('#results tbody tr').count()).toBe(3);
    // On a phone the page does not scroll sideways (the table scrolls in its own box), and the
    // chart's words are drawn at a readable size.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    // Polled: the page redraws when its batch finishes, and a chart caught before its layout measures 0 wide (CI, Node 24, under load).
    const drawnAt = async () => {
      const scale = await page
        .locator('figure.bars svg')
        .evaluate((svg) => svg.getBoundingClientRect().width / Number(svg.getAttribute('viewBox')!.split(' ')[2]));
      return Number(await page.locator('figure.bars text').first().getAttribute('font-size')) * scale;
    };
    await expect.poll(drawnAt, { timeout: 10_000 }).toBeGreaterThanOrEqual(12);
    // Whether an amount is at risk reads on one line at a readable size.
    const badges = (await page.evaluate(
      `[...document.querySelectorAll('#results [data-risk]')].map((n) => ({ height: n.getBoundingClientRect().height, size: parseFloat(getComputedStyle(n).fontSize) }))`,
    )) as { height: number; size: number }[];
    expect(badges.length).toBeGreaterThan(0);
    for (const b of badges) {
      expect(b.size).toBeGreaterThanOrEqual(12);
      expect(b.height).toBeLessThan(b.size * 2);
    }
    await accessible(page, 'batch on a phone');
    await page.screenshot({ path: screenshotPath('dashboard-batch-phone', scratch), fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
