// The web UI in a real browser: Debian's Chromium driven by playwright-core (never a downloaded
// browser). Without Chromium the UI suites are skipped loudly; under CI they fail, since CI
// installs it. Screenshots go to test-artifacts/screenshots/ (not committed) for people to look at.
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import type { TestServer } from './server.js';

export const chromiumPath = '/usr/bin/chromium';
export const chromiumAvailable = fs.existsSync(chromiumPath);

/** The `skip` option of a browser test: false when Chromium is here, else why not (loudly). */
export function browserSkip(suite: string): string | false {
  if (chromiumAvailable) return false;
  const message = `${chromiumPath} is not installed: the ${suite} browser tests are NOT running (apt-get install chromium; .ci/run does)`;
  if (process.env.CI) throw new Error(message);
  console.warn(`\n*** WARNING: ${message} ***\n`);
  return 'chromium not installed';
}

export const artifactsDir = path.resolve(process.env.SIGHTLINE_TEST_ARTIFACTS ?? 'test-artifacts');

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // This machine's network is closed: Chromium's own background traffic only makes noise.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface UiPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and failed requests the page produced; a test asserts this stays empty. */
  problems: string[];
  /** Requests that left the server (a CDN, a font host): must stay empty. */
  external: string[];
}

/** A fresh browser context (own cookies) at 1280×800 watching for page errors and outside requests. */
export async function openUi(
  browser: Browser,
  server: TestServer,
  viewport = { width: 1280, height: 800 },
): Promise<UiPage> {
  const context = await browser.newContext({ viewport, baseURL: server.baseUrl });
  const page = await context.newPage();
  const problems: string[] = [];
  const external: string[] = [];
  page.on('console', (message) => {
    // The browser logs every 4xx a page fetched; the UI handles those (and tests expect some).
    if (message.type() === 'error' && !/the server responded with a status of 4\d\d/.test(message.text()))
      problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${server.baseUrl}/`) && !url.startsWith('data:') && !url.startsWith('blob:'))
      external.push(url);
  });
  return { page, context, problems, external };
}

/** Signs in through the sign-in form, as a person would, and waits for the app frame. */
export async function signInThroughUi(page: Page, email: string, password: string, at = '/'): Promise<void> {
  await page.goto(at);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByLabel('User menu').waitFor();
}

/**
 * Waits for an element the page should reach; when it never shows, the failure says where the
 * page is instead (its address and the start of its text) and keeps a screenshot of it.
 */
export async function arrive(page: Page, locator: Locator, name: string, timeout = 30_000): Promise<void> {
  try {
    await locator.waitFor({ timeout });
  } catch (error) {
    const text = await page
      .locator('body')
      .innerText({ timeout: 1_000 })
      .catch(() => '(no text)');
    const file = await screenshot(page, `${name}-failed`).catch(() => '(no screenshot)');
    assert.fail(
      `${String(error)}\nthe page is at ${page.url()}, showing: ${text.slice(0, 600).replace(/\s+/g, ' ')}\nscreenshot: ${file}`,
    );
  }
}

/** Saves a full-page screenshot as test-artifacts/screenshots/<name>.png, transitions and animations finished. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const file = path.join(artifactsDir, 'screenshots', `${name}.png`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage: true, animations: 'disabled' });
  return file;
}

/**
 * Polls a condition the page should reach, read through locators (page callbacks would need DOM
 * types, and string expressions are refused by the app's Content-Security-Policy).
 */
export async function until(condition: () => Promise<boolean>, what: string, timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await sleep(100);
  }
}

/** How far the page scrolls sideways (0: it fits the window; tables scroll inside their frame). */
export function sidewaysScroll(page: Page): Promise<number> {
  return page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
}

/** The page worked cleanly: no script errors, no failed loads, nothing fetched from elsewhere. */
export function assertCleanPage(ui: UiPage): void {
  assert.deepEqual(ui.problems, [], 'the page logs no errors');
  assert.deepEqual(ui.external, [], 'no request leaves the server');
}
