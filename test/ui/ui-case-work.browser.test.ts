// Work inside a case in a real browser: a template's tasks on the case page (in order, the
// required one marked, where each came from), changing a task's status and adding and removing
// one by hand; the SLA clocks in the side column (acknowledge breached, resolve running; met or
// breached once acknowledged); the case list's breached filter and badge; closing with a required task open, which the dialog names and
// allows only with a reason; and Settings › Case work, where an admin sets the SLA policy and
// creates a template. Cases come from Sysmon events (helpers/investigation.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiClient, bearer, issueToken } from '../helpers/api.js';
import { caseFor } from '../helpers/summaries.js';
import { postInvestigationRecords } from '../helpers/investigation.js';
import { allPermissions } from '../../src/identity/permissions.js';
import { assertCleanPage, browserSkip, openUi, screenshot, signInThroughUi } from '../helpers/browser.js';
import { password, withUiServer, type Person } from '../helpers/ui-data.js';
import type { CaseDetail } from '../helpers/responses.js';
import { markBreaches } from '../../src/cases/work/sla-watcher.js';

const skip = browserSkip('case work UI');
const people: Person[] = [
  { email: 'ines@acme.test', name: 'Ines Investigator', role: 'analyst' },
  { email: 'ada@acme.test', name: 'Ada Admin', role: 'admin' },
];
const everyLevel = ['informational', 'low', 'medium', 'high', 'critical'];

test('tasks, SLA clocks, a forced close and the case work settings in the browser', { skip, timeout: 180_000 }, (t) =>
  withUiServer({ people }, async ({ server, acme, browser }) => {
    const admin = apiClient(server, bearer((await issueToken(server, acme, allPermissions, { name: 'admin' })).value));
    const template = await admin.post('/v1/case-templates', {
      name: 'Endpoint triage',
      applies_to: { levels: everyLevel },
      tasks: [
        { title: 'Check the process tree', required: true },
        { title: 'Ask the user what they opened', assignee_role: 'analyst' },
      ],
    });
    assert.equal(template.status, 201, JSON.stringify(template.body));
    const sla = {
      critical: { acknowledge_s: 1, resolve_s: 86_400 },
      high: { acknowledge_s: 1, resolve_s: 86_400 },
      medium: { acknowledge_s: 1, resolve_s: 86_400 },
      low: { acknowledge_s: 1, resolve_s: 86_400 },
    };
    assert.equal((await admin.put('/v1/sla-policy', sla)).status, 200);
    await postInvestigationRecords(server, admin, 'acme', { main: 'ws-t1', other: 'ws-t2' });
    const main = await caseFor(admin, 'ws-t1');
    const other = await caseFor(admin, 'ws-t2');

    await t.test("the case page lists the template's tasks and the SLA clocks", async () => {
      const ui = await openUi(browser, server);
      const { page } = ui;
      await signInThroughUi(page, 'ines@acme.test', password, `/cases/${main.number}`);
      const tasks = page.getByRole('list', { name: 'Tasks' });
      await tasks.getByText('Check the process tree').waitFor();
      await page.getByRole('heading', { name: 'Tasks (2 open of 2)' }).waitFor();
      const required = tasks.locator('li', { hasText: 'Check the process tree' });
      assert.equal(await required.getByText('Required').count(), 1);
      assert.match(await required.innerText(), /from Endpoint triage/);
      assert.match(await tasks.locator('li', { hasText: 'Ask the user' }).innerText(), /for an analyst/);

      const acknowledge = page.locator('[data-sla="acknowledge"]');
      await acknowledge.getByText(/^Breached .* ago$/).waitFor();
      assert.match(await page.locator('[data-sla="resolve"]').innerText(), /left/);

      await page.getByLabel('Status of Check the process tree').selectOption('done');
      await page.getByRole('heading', { name: 'Tasks (1 open of 2)' }).waitFor();
      assert.match(await required.innerText(), /done by ines@acme\.test/);
      await page.getByLabel('New task').fill('Pull the proxy logs');
      await page.getByRole('button', { name: 'Add task' }).click();
      await tasks.getByText('Pull the proxy logs').waitFor();
      await page.getByRole('button', { name: 'Remove Pull the proxy logs' }).click();
      await page.getByRole('heading', { name: 'Tasks (1 open of 2)' }).waitFor();
      assert.equal(await tasks.getByText('Pull the proxy logs').count(), 0);

      await page.getByRole('button', { name: 'Start work (status In progress)' }).click();
      await acknowledge.getByText('Breached', { exact: true }).waitFor();
      await screenshot(page, 'case-tasks-sla');
      assertCleanPage(ui);
      await ui.context.close();
    });

    await t.test('the case list filters on breached SLAs and marks them', async () => {
      // What the SLA watcher does every 15 seconds, run now.
      assert.ok((await markBreaches(server.sightline.database.db, Date.now())) >= 1);
      const ui = await openUi(browser, server);
      const { page } = ui;
      await signInThroughUi(page, 'ines@acme.test', password, '/cases?sla=breached');
      const rows = page.locator('tbody tr');
      await rows.filter({ hasText: other.title }).getByText('SLA breached').waitFor();
      assert.equal(await page.getByLabel('SLA').inputValue(), 'breached');
      assert.equal(
        await rows
          .filter({ hasText: `${main.number}` })
          .filter({ hasText: main.title })
          .count(),
        0,
        'acknowledged before the watcher looked',
      );
      assertCleanPage(ui);
      await ui.context.close();
    });

    await t.test('closing with a required task open names it and needs a reason', async () => {
      const ui = await openUi(browser, server);
      const { page } = ui;
      await signInThroughUi(page, 'ines@acme.test', password, `/cases/${other.number}`);
      await page.getByRole('button', { name: 'Close case' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText('A required task is still open:').waitFor();
      await dialog.getByRole('listitem').getByText('Check the process tree').waitFor();
      await dialog.getByLabel(/False positive/).check();
      const closeAnyway = dialog.getByRole('button', { name: 'Close anyway' });
      assert.equal(await closeAnyway.isDisabled(), true, 'no reason, no close');
      await dialog.getByLabel('Why close with required tasks open (required)').fill('test host, reimaged');
      await closeAnyway.click();
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      const closed = await admin.get<CaseDetail>(`/v1/cases/${other.id}`);
      assert.equal(closed.body.status, 'closed');
      await screenshot(page, 'case-forced-close');
      assertCleanPage(ui);
      await ui.context.close();
    });

    await t.test('an admin sets the SLA policy and creates a template on Settings › Case work', async () => {
      const ui = await openUi(browser, server);
      const { page } = ui;
      await signInThroughUi(page, 'ada@acme.test', password, '/settings/case-work');
      await page.getByRole('heading', { name: 'Case work', level: 1 }).waitFor();
      const acknowledgeCritical = page.getByLabel('Acknowledge critical cases within');
      assert.equal(await acknowledgeCritical.inputValue(), '1s');
      await acknowledgeCritical.fill('15m');
      await page.getByLabel('Resolve critical cases within').fill('4h');
      await page.getByLabel('Acknowledge low cases within').fill('');
      await page.getByLabel('Resolve low cases within').fill('');
      await page.getByRole('button', { name: 'Save the SLA policy' }).click();
      await page.getByText("Saved: every case's clocks follow it now.").waitFor();
      const saved = await admin.get<Record<string, unknown>>('/v1/sla-policy');
      assert.deepEqual(saved.body.critical, { acknowledge_s: 900, resolve_s: 14_400 });
      assert.equal(saved.body.low, undefined);

      await page.getByLabel('Name').fill('Phishing');
      await page.getByLabel('Applies to techniques').fill('T1566');
      await page.getByLabel('Tasks').fill('Pull the message headers (required)\nBlock the sender');
      await page.getByRole('button', { name: 'Create the template' }).click();
      const list = page.getByRole('list', { name: 'Case templates' });
      await list.getByText('Phishing').waitFor();
      const templates = await admin.get<{
        templates: { name: string; tasks: { title: string; required: boolean }[] }[];
      }>('/v1/case-templates');
      const phishing = templates.body.templates.find((item) => item.name === 'Phishing');
      assert.deepEqual(phishing?.tasks, [
        { title: 'Pull the message headers', required: true, description: '', assignee_role: null },
        { title: 'Block the sender', required: false, description: '', assignee_role: null },
      ]);
      await screenshot(page, 'settings-case-work');
      assertCleanPage(ui);
      await ui.context.close();
    });
  }),
);
