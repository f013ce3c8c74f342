// Accessibility of every page, checked by axe-core (WCAG 2.1 A and AA rules) in a real Chromium,
// in light and in dark mode: no serious or critical violation anywhere. The pages are found the
// way a person finds them — every link in the navigation, as a tenant admin and as a platform
// operator — plus a case and a device (the detail pages) and the signed-out pages, so a page added
// to the navigation is checked without this file knowing of it. The structure is checked in light
// mode, the colours in both. Also: the skip link is the first stop of the Tab key and moves focus
// to the content, and focus is visible.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { apiClient, bearer, issueToken } from '../helpers/api.js';
import { browserSkip, signInThroughUi, until } from '../helpers/browser.js';
import type { TestServer } from '../helpers/server.js';
import { password, sendDemoTraffic, withUiServer, type Person } from '../helpers/ui-data.js';
import { allPermissions } from '../../src/identity/permissions.js';

const skip = browserSkip('accessibility');
const people: Person[] = [
  { email: 'admin@acme.test', role: 'admin' },
  { email: 'ops@platform.test', role: 'operator' },
];
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const schemes = ['light', 'dark'] as const;
type Scheme = (typeof schemes)[number];
/**
 * What axe checks in each colour scheme. The pages' structure (names, roles, labels, landmarks,
 * headings) is the same in both, so it is checked once, in light; dark mode changes only colours,
 * so there axe runs the rules that read them.
 */
const checksIn: Record<Scheme, string> = {
  light: `{ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] }`,
  dark: `{ runOnly: { type: 'rule', values: ['color-contrast', 'link-in-text-block'] }, resultTypes: ['violations'] }`,
};

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** axe-core's serious and critical findings on the page as it is now. */
async function seriousViolations(page: Page, scheme: Scheme): Promise<Violation[]> {
  // The app's CSP forbids inline scripts: these contexts bypass it to add axe (the app's own
  // scripts are unaffected either way).
  await page.addScriptTag({ content: axeSource });
  const result = await page.evaluate<{ violations: Violation[] }>(`axe.run(document, ${checksIn[scheme]})`);
  return result.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

function describeViolations(where: string, violations: Violation[]): string {
  return violations
    .map(
      (violation) =>
        `${where}: ${violation.id} (${violation.impact}) ${violation.help}\n` +
        violation.nodes
          .slice(0, 5)
          .map(
            (node) =>
              `    ${node.target.join(' ')} — ${(node.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 200)}`,
          )
          .join('\n'),
    )
    .join('\n');
}

/** Waits until the page's data has arrived: no loading state left, some content in <main>. */
async function settled(page: Page): Promise<void> {
  await page.locator('main').first().waitFor();
  await until(
    async () => (await page.locator('[aria-busy="true"], .loading').count()) === 0,
    'the page loaded',
    15_000,
  );
  await page.waitForTimeout(300);
}

async function navigationPages(page: Page): Promise<string[]> {
  const links = page.locator('aside nav a');
  const hrefs: string[] = [];
  for (let i = 0; i < (await links.count()); i++) hrefs.push((await links.nth(i).getAttribute('href')) ?? '');
  return hrefs.filter((href) => href.startsWith('/'));
}

async function sweep(browser: Browser, server: TestServer, email: string, extra: string[], failures: string[]) {
  for (const scheme of schemes) {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      baseURL: server.baseUrl,
      bypassCSP: true,
      colorScheme: scheme,
    });
    const page = await context.newPage();
    await signInThroughUi(page, email, password);
    const paths = [...new Set([...(await navigationPages(page)), ...extra])];
    assert.ok(paths.length >= 5, `the navigation lists pages: ${paths.join(', ')}`);
    for (const path of paths) {
      await page.goto(path);
      await settled(page);
      const violations = await seriousViolations(page, scheme);
      if (violations.length) failures.push(describeViolations(`${email} ${scheme} ${path}`, violations));
    }
    await context.close();
  }
}

test('every page has no serious or critical axe-core violation, light and dark', { skip, timeout: 600_000 }, (t) =>
  withUiServer({ people }, async ({ server, browser, acme }) => {
    // Cases with tasks and SLA clocks, so that the case page shows those panels too.
    const admin = apiClient(server, bearer((await issueToken(server, acme, allPermissions)).value));
    const triage = {
      name: 'Triage',
      applies_to: { levels: ['low', 'medium', 'high', 'critical'] },
      tasks: [{ title: 'Triage', required: true }],
    };
    assert.equal((await admin.post('/v1/case-templates', triage)).status, 201);
    const clocks = { acknowledge_s: 900, resolve_s: 86_400 };
    const policy = { low: clocks, medium: clocks, high: clocks, critical: clocks };
    assert.equal((await admin.put('/v1/sla-policy', policy)).status, 200);
    await sendDemoTraffic(server, 2);
    const api = apiClient(server, bearer((await issueToken(server, acme, ['cases:read', 'devices:read'])).value));
    let caseId: string | undefined;
    let deviceId: string | undefined;
    await until(
      async () => {
        const cases = await api.post<{ cases: { id: string }[] }>('/v1/cases', { limit: 1 });
        const devices = await api.get<{ devices: { id: string }[] }>('/v1/devices?limit=1');
        caseId = cases.body.cases[0]?.id;
        deviceId = devices.body.devices[0]?.id;
        return caseId !== undefined && deviceId !== undefined;
      },
      'detection made a case on a device',
      60_000,
    );

    const failures: string[] = [];
    await t.test('signed out: the sign-in and set-password pages', async () => {
      for (const scheme of schemes) {
        const context = await browser.newContext({ baseURL: server.baseUrl, bypassCSP: true, colorScheme: scheme });
        const page = await context.newPage();
        for (const path of ['/', '/set-password#code=slc_not_a_real_code']) {
          await page.goto(path);
          await page.locator('form').first().waitFor();
          const violations = await seriousViolations(page, scheme);
          if (violations.length) failures.push(describeViolations(`signed out ${scheme} ${path}`, violations));
        }
        await context.close();
      }
    });
    await t.test('a tenant admin: every page in the navigation, a case and a device', () =>
      sweep(browser, server, 'admin@acme.test', [`/cases/${caseId}`, `/devices/${deviceId}`], failures),
    );
    await t.test('a platform operator: the operator console', () =>
      sweep(browser, server, 'ops@platform.test', [], failures),
    );
    assert.equal(failures.length, 0, `axe-core found serious or critical violations:\n${failures.join('\n')}`);

    await t.test('the skip link is the first Tab stop and moves focus to the content; focus is visible', async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: server.baseUrl });
      const page = await context.newPage();
      await signInThroughUi(page, 'admin@acme.test', password, '/cases');
      await settled(page);
      await page.keyboard.press('Tab');
      const skipLink = page.getByRole('link', { name: 'Skip to content' });
      assert.equal(
        await page.evaluate<string>('document.activeElement.textContent'),
        'Skip to content',
        'first Tab stop',
      );
      const box = await skipLink.boundingBox();
      assert.ok(box && box.y >= 0, 'the focused skip link is on screen');
      const outline = await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle');
      assert.notEqual(outline, 'none', 'focus is visible');
      await page.keyboard.press('Enter');
      assert.equal(await page.evaluate<string>('document.activeElement.id'), 'main', 'focus is on the content');
      await context.close();
    });
  }),
);
