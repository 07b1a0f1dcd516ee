// Debian's Chromium driven by playwright-core (never a downloaded browser): CHROMIUM_PATH, else
// /usr/bin/chromium. When it cannot be found the browser tests skip with a message saying so, except
// where FLIGHTSTATUS_REQUIRE_BROWSER=1 (.ci/run sets it, after installing chromium with apt): there
// a missing browser fails, because a browser test that skips in CI proves nothing.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
  (p): p is string => Boolean(p),
);

export const chromiumPath: string | null = CANDIDATES.find((p) => existsSync(p)) ?? null;

if (!chromiumPath) {
  const message = `Chromium not found (looked at ${CANDIDATES.join(', ')}): install it with "apt-get install -y chromium" or set CHROMIUM_PATH`;
  if (process.env.FLIGHTSTATUS_REQUIRE_BROWSER === '1') throw new Error(message);
  console.warn(`browser tests skipped: ${message}`);
}

/** Flags for a closed network: no background requests, no sandbox (root in CI), a fresh profile each launch. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath!,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's WCAG 2.x A and AA rules on the page as it is now: the serious and critical violations. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // The page's CSP refuses inline scripts, so axe is evaluated through the driver (as DevTools would).
  await page.evaluate(axeSource);
  const result = (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })`,
  )) as {
    violations: AxeViolation[];
  };
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Screenshots go to docs/screenshots with UPDATE_SCREENSHOTS=1 (the README shows them), else to a scratch folder. */
export function screenshotPath(name: string, scratch: string): string {
  const dir =
    process.env.UPDATE_SCREENSHOTS === '1' ? new URL('../../docs/screenshots/', import.meta.url).pathname : scratch;
  mkdirSync(dir, { recursive: true });
  return join(dir, `${name}.png`);
}

/** Signs a new visitor up through the dashboard's forms and signs them in (lands on the keys page). */
export async function signUp(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/dashboard/sign-up');
  await page.getByLabel('Company or project name').fill('Claims Co');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL('**/dashboard/sign-in?signed-up=1**');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/dashboard/keys?welcome=1');
}
