// The case page in a real browser on cases made from Sysmon events (EventID 1 and 3, see
// helpers/investigation.ts): at 1024×768 status, assignee, severity, devices and the summary sit
// in the viewport without scrolling, and the thumbs are SVG icons; the investigation view's
// process tree (PowerShell under Word, marked, its connections beside it) and timeline, reached
// from a summary's evidence citation; merging a case through the dialog (pick, preview,
// confirm), after which both cases read consistently and the history is newest first with dates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { apiClient, bearer, issueToken } from '../helpers/api.js';
import type { CaseDetail } from '../helpers/responses.js';
import { caseFor } from '../helpers/summaries.js';
import { INVESTIGATION as I, postInvestigationRecords } from '../helpers/investigation.js';
import { allPermissions } from '../../src/identity/permissions.js';
import {
  assertCleanPage,
  browserSkip,
  openUi,
  screenshot,
  sidewaysScroll,
  signInThroughUi,
  until,
} from '../helpers/browser.js';
import { password, withUiServer, type Person } from '../helpers/ui-data.js';

const skip = browserSkip('case investigation UI');
const people: Person[] = [{ email: 'ines@acme.test', name: 'Ines Investigator', role: 'analyst' }];
const VIEWPORT = { width: 1024, height: 768 };

/** The element's box lies inside the viewport as the page first shows it (no scrolling). */
async function inViewport(page: Page, selector: string, what: string): Promise<void> {
  const box = await page.locator(selector).first().boundingBox();
  assert.ok(box, `${what} is shown`);
  assert.ok(
    box.x >= 0 && box.y >= 0 && box.x + box.width <= VIEWPORT.width && box.y + box.height <= VIEWPORT.height,
    `${what} lies within ${VIEWPORT.width}×${VIEWPORT.height}: ${JSON.stringify(box)}`,
  );
}

test('case investigation, the 1024 px layout and merging in the browser', { skip, timeout: 180_000 }, (t) =>
  withUiServer({ people }, async ({ server, acme, browser }) => {
    const admin = apiClient(server, bearer((await issueToken(server, acme, allPermissions, { name: 'admin' })).value));
    await postInvestigationRecords(server, admin, 'acme', { main: 'ws-a1', other: 'ws-a2' });
    const main = await caseFor(admin, 'ws-a1');
    const other = await caseFor(admin, 'ws-a2');
    const summary = await admin.post(`/v1/cases/${main.id}/summary`, {});
    assert.equal(summary.status, 201, JSON.stringify(summary.body));

    await t.test('at 1024×768 status, assignee, severity, devices and the summary show without scrolling', async () => {
      const ui = await openUi(browser, server, VIEWPORT);
      const { page } = ui;
      await signInThroughUi(page, 'ines@acme.test', password, `/cases/${main.number}`);
      await page.getByRole('heading', { level: 1, name: main.title }).waitFor();
      await page.locator('.summary-panel .summary-section').first().waitFor();
      assert.equal(await page.evaluate<number>('window.scrollY'), 0, 'the page is not scrolled');
      await inViewport(page, '[data-fact="status"]', 'the status');
      await inViewport(page, '[data-fact="assignee"]', 'the assignee');
      await inViewport(page, '[data-fact="severity"]', 'the severity');
      await inViewport(page, '.case-devices .device-name', 'the first device');
      await inViewport(page, '.summary-panel .panel-header', "the summary's heading");
      await inViewport(page, '.summary-panel .summary-section', "the summary's first section");
      assert.equal(await sidewaysScroll(page), 0, 'nothing scrolls sideways');

      // Thumbs are SVG icons (emoji are empty boxes without an emoji font), named for screen readers.
      for (const name of ['Thumbs up', 'Thumbs down']) {
        const button = page.getByRole('button', { name });
        assert.equal(await button.locator('svg').count(), 1, `${name} is an SVG icon`);
        assert.equal((await button.innerText()).trim(), '', `${name} holds no emoji text`);
      }
      await screenshot(page, 'case-1024');
      assertCleanPage(ui);
      await ui.context.close();
    });

    await t.test('the process tree and the timeline, reached from an evidence citation', async () => {
      const ui = await openUi(browser, server);
      const { page } = ui;
      await signInThroughUi(page, 'ines@acme.test', password, `/cases/${main.number}`);
      const panel = page.locator('.investigation-panel');
      const tree = panel.getByRole('tree', { name: 'Process tree of ws-a1' });
      await tree.waitFor();
      const powershell = tree.locator(`[data-pid="${I.powershellPid}"]`);
      assert.equal(await powershell.getAttribute('data-observed'), 'true', 'the observed process is highlighted');
      assert.match(await powershell.innerText(), /powershell\.exe[\s\S]*-enc /i);
      assert.equal(await tree.locator(`[data-pid="${I.wordPid}"]`).getAttribute('data-observed'), 'false');
      // Parent → child: explorer (inferred) → Word → PowerShell → notepad, as nested tree items.
      const chain = [I.explorerPid, I.wordPid, I.powershellPid, I.notepadPid]
        .map((pid) => `li:has(> [data-pid="${pid}"])`)
        .join(' ');
      assert.equal(await tree.locator(chain).count(), 1, 'notepad sits under PowerShell under Word under explorer');
      assert.match(await tree.locator(`[data-pid="${I.explorerPid}"]`).innerText(), /inferred/);
      const backdoor = powershell.locator('.process-connections li', { hasText: `${I.backdoorIp}:${I.backdoorPort}` });
      assert.equal(await backdoor.getAttribute('data-observed'), 'true', 'the observed connection beside its process');
      assert.equal(
        await powershell
          .locator('.process-connections li', { hasText: `${I.webIp}:443` })
          .getAttribute('data-observed'),
        'false',
      );
      await screenshot(page, 'case-process-tree');

      // A summary citation of an evidence row opens the timeline on that row.
      const evidence = page.locator('.summary-panel a.citation-evidence').first();
      const target = (await evidence.getAttribute('href'))!;
      assert.match(target, /^#ev-(proc|net)_\d+$/);
      await evidence.click();
      assert.equal(await panel.getByRole('tab', { name: 'Timeline' }).getAttribute('aria-selected'), 'true');
      await page.locator(`${target}.is-highlighted`).waitFor();
      const entries = panel.locator('.case-timeline-entry');
      const times: string[] = [];
      for (let i = 0; i < (await entries.count()); i++)
        times.push((await entries.nth(i).locator('time').getAttribute('datetime')) ?? '');
      assert.ok(times.length >= 4, `observations and evidence: ${times.length}`);
      assert.deepEqual(times, [...times].sort(), 'oldest first');
      assert.equal(await panel.locator('[data-kind="process"]').count(), 1, 'the PowerShell start is evidence');
      assert.match(await panel.locator('[data-kind="process"]').innerText(), /powershell\.exe/i);
      assert.match(
        await panel.locator('[data-kind="connection"]').first().innerText(),
        new RegExp(`${I.backdoorPort}`),
      );
      assert.equal(
        await panel.locator('[data-kind="process"]', { hasText: /WINWORD\.EXE PID|notepad/i }).count(),
        0,
        'context is not evidence',
      );
      await screenshot(page, 'case-timeline');
      assertCleanPage(ui);
      await ui.context.close();
    });

    await t.test('merging through the dialog: pick, preview, confirm; both cases read consistently', async () => {
      const ui = await openUi(browser, server);
      const { page } = ui;
      await signInThroughUi(page, 'ines@acme.test', password, `/cases/${main.number}`);
      await page.getByRole('button', { name: 'Merge cases…' }).click();
      const dialog = page.getByRole('dialog', { name: `Merge cases into case #${main.number}` });
      await dialog.getByRole('searchbox').fill('ws-a2');
      const candidate = dialog.locator('.merge-candidate', { hasText: `#${other.number}` });
      await candidate.waitFor();
      await until(async () => (await dialog.locator('.merge-candidate').count()) === 1, 'the search narrows to ws-a2');
      await candidate.getByRole('checkbox').check();
      await dialog.getByRole('button', { name: 'Preview merge of 1 case' }).click();
      const preview = dialog.getByLabel('Merge preview');
      const text = await preview.innerText();
      assert.match(text, new RegExp(`${other.observation_count} observations? from #${other.number}`));
      assert.match(text, new RegExp(`for ${main.observation_count + other.observation_count} in all`));
      assert.match(text, /ws-a1, ws-a2/);
      assert.match(text, new RegExp(`#${other.number} will be closed as duplicate`));
      await screenshot(page, 'case-merge-preview');
      await dialog.getByRole('button', { name: `Merge into case #${main.number}` }).click();
      await dialog.waitFor({ state: 'detached' });

      await page.getByText(`Merged from case #${other.number}.`).waitFor();
      const devices = page.locator('.case-devices .device-name');
      await until(async () => (await devices.count()) === 2, 'the merged device joins');
      const merged = await admin.get<CaseDetail>(`/v1/cases/${main.id}`);
      assert.equal(merged.body.observation_count, main.observation_count + other.observation_count);

      await page.goto(`/cases/${other.number}`);
      const notice = page.getByText(/^Merged into case #\d+, which holds its observations/);
      await notice.waitFor();
      assert.equal(
        await page
          .getByRole('link', { name: `case #${main.number}` })
          .first()
          .getAttribute('href'),
        `/cases/${main.number}`,
      );
      assert.match(
        await page.locator('.case-main').innerText(),
        new RegExp(`Merged into case #${main.number} on \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC`),
      );
      assert.equal(await page.getByRole('button', { name: 'Merge cases…' }).count(), 0, 'a merged case merges nothing');
      // History: newest first, dates rather than epoch numbers, one wording.
      const history = page.getByRole('list', { name: 'Case history, newest first' });
      await history.locator(':scope > li').first().waitFor();
      assert.match(await history.locator(':scope > li').first().innerText(), /^Merged into another case/);
      assert.match(await history.locator(':scope > li').last().innerText(), /^Case created/);
      const all = await history.innerText();
      assert.match(all, new RegExp(`Merged into: case #${main.number}`));
      assert.doesNotMatch(all, /\b1[6-9]\d{11}\b/, 'no epoch milliseconds');
      await screenshot(page, 'case-merged-away');
      assertCleanPage(ui);
      await ui.context.close();
    });
  }),
);
