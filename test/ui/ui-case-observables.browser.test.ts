// The observables panel of a case page in a real browser, on cases made from two nginx access
// records of one attacker against two web servers: the address listed under its type with the
// other case and the devices holding it, tagged ioc with a toggle, a domain added (a bad value
// refused with the reason) and removed, the telemetry search prefilled with the address, the
// similar case linked, the printable report opened and the Markdown saved; axe finds no serious
// or critical violation in the panel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { apiClient, bearer, detectionCaughtUp, ingest, issueToken } from '../helpers/api.js';
import { caseFor } from '../helpers/summaries.js';
import { allPermissions } from '../../src/identity/permissions.js';
import {
  arrive,
  assertCleanPage,
  browserSkip,
  openUi,
  screenshot,
  signInThroughUi,
  until,
} from '../helpers/browser.js';
import { password, withUiServer, type Person } from '../helpers/ui-data.js';
import type { ObservableView } from '../../src/cases/case-observables.js';

const skip = browserSkip('case observables UI');
const people: Person[] = [{ email: 'olga@acme.test', name: 'Olga Observer', role: 'analyst' }];
const ATTACKER = '203.0.113.44';
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

function nginx(host: string): Record<string, unknown> {
  return {
    timestamp: new Date().toISOString(),
    source: 'nginx',
    hostname: host,
    remote_addr: ATTACKER,
    remote_user: '-',
    request: 'GET /products.php?id=1%27%20UNION%20ALL%20SELECT%20username,password%20FROM%20users--%20- HTTP/1.1',
    status: '200',
    body_bytes_sent: 5120,
    http_referer: '-',
    http_user_agent: 'sqlmap/1.8',
  };
}

test('the observables panel: pivots, tags, add and remove, similar cases, the report', { skip, timeout: 180_000 }, () =>
  withUiServer({ people }, async ({ server, acme, browser }) => {
    const admin = apiClient(server, bearer((await issueToken(server, acme, allPermissions, { name: 'admin' })).value));
    await ingest(server, [nginx('uiw-1'), nginx('uiw-2')]);
    await detectionCaughtUp(server);
    const main = await caseFor(admin, 'uiw-1');
    const other = await caseFor(admin, 'uiw-2');

    const ui = await openUi(browser, server);
    const { page, context } = ui;
    await signInThroughUi(page, 'olga@acme.test', password, `/cases/${main.number}`);
    const panel = page.locator('.observables-panel');
    const ip = panel.getByRole('listitem', { name: `ip ${ATTACKER}` });
    await arrive(page, ip, 'observables-panel');
    assert.match(await panel.getByRole('region', { name: 'IP addresses' }).innerText(), new RegExp(ATTACKER));
    assert.match(await ip.innerText(), /1 other case · 2 devices/);
    assert.match(await panel.getByRole('region', { name: 'Host names' }).innerText(), /uiw-1/);

    // Tag it as an indicator of compromise.
    const ioc = ip.getByRole('button', { name: 'ioc' });
    await ioc.click();
    await until(async () => (await ioc.getAttribute('aria-pressed')) === 'true', 'the ioc toggle is on');
    const listed = await admin.get<{ observables: ObservableView[] }>(`/v1/cases/${main.id}/observables`);
    assert.deepEqual(listed.body.observables.find((item) => item.type === 'ip')?.tags, ['ioc']);

    // Add one (a bad value is refused with the reason), then remove it.
    await panel.getByRole('button', { name: 'Add observable' }).click();
    const form = panel.getByRole('form', { name: 'Add an observable' });
    await form.getByLabel('Type').selectOption('domain');
    await form.getByLabel('Value').fill('not a domain');
    await form.getByRole('button', { name: 'Add' }).click();
    await form.getByText(/is not a domain name/).waitFor();
    await form.getByLabel('Value').fill('Evil.Example.COM');
    await form.getByRole('button', { name: 'Add' }).click();
    const domain = panel.getByRole('listitem', { name: 'domain evil.example.com' });
    await domain.waitFor();
    assert.match(await domain.innerText(), /added by user:olga@acme\.test/);

    // The similar case, by its number.
    const similar = panel.locator('.similar-cases').getByRole('link', { name: new RegExp(`#${other.number} `) });
    await similar.waitFor();
    assert.equal(await similar.getAttribute('href'), `/cases/${other.number}`);
    await screenshot(page, 'case-observables');

    await domain.getByRole('button', { name: 'Remove evil.example.com' }).click();
    await until(async () => (await domain.count()) === 0, 'the domain is removed');

    // The printable report opens in a tab of its own; the Markdown is saved as a file.
    const opened = context.waitForEvent('page');
    await page.getByRole('button', { name: 'Printable report' }).click();
    const report = await opened;
    await report.getByRole('heading', { level: 1, name: new RegExp(`^Case #${main.number}: `) }).waitFor();
    assert.match(await report.locator('body').innerText(), new RegExp(ATTACKER.replaceAll('.', '\\.')));
    await report.close();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download Markdown' }).click();
    const saved = await download;
    assert.equal(saved.suggestedFilename(), `case-${main.number}-report.md`);
    const markdown = fs.readFileSync(await saved.path(), 'utf8');
    assert.ok(markdown.startsWith(`# Case #${main.number}: `) && markdown.includes(ATTACKER));

    // The telemetry search, prefilled with the address.
    await ip.getByRole('link', { name: 'Search telemetry' }).click();
    await page.waitForURL(/\/telemetry\?/);
    assert.equal(new URL(page.url()).searchParams.get('q'), `"${ATTACKER}"`);
    await arrive(page, page.locator('main').getByText('uiw-2').first(), 'observables-telemetry');

    assertCleanPage(ui);
    await context.close();

    // Accessibility of the panel with its tags, pivots and similar case (the app's CSP forbids
    // inline scripts: this context bypasses it to add axe).
    const checked = await browser.newContext({ baseURL: server.baseUrl, bypassCSP: true });
    const axePage = await checked.newPage();
    await signInThroughUi(axePage, 'olga@acme.test', password, `/cases/${main.number}`);
    await axePage.locator('.observables-panel .similar-cases a').waitFor();
    await axePage.addScriptTag({ content: axeSource });
    const result = await axePage.evaluate<{ violations: { id: string; impact: string | null; help: string }[] }>(
      `axe.run('.observables-panel', { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] })`,
    );
    const serious = result.violations.filter((item) => item.impact === 'serious' || item.impact === 'critical');
    assert.deepEqual(serious, [], 'no serious or critical axe violation in the panel');
    await checked.close();
  }),
);
