// The case pages in a real browser, on cases that sample attack traffic (src/demo/traffic.ts)
// produced through the collector: the list (status tabs with counts, filters in the URL, j/k/
// Enter, bulk assign), the detail (devices with locations, technique names, evidence), the
// status change through the close dialog, a version conflict explained, the AI summary generated
// and rated thumbs down with a comment, and the opted-out note.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiClient, bearer, issueToken, signIn } from '../helpers/api.js';
import type { CaseCounts, CaseDetail, CaseSearch, Readiness } from '../helpers/responses.js';
import { monitoringLines, setTenant, waitFor } from '../helpers/summaries.js';
import { allPermissions } from '../../src/identity/permissions.js';
import {
  assertCleanPage,
  browserSkip,
  openUi,
  screenshot,
  sidewaysScroll,
  signInThroughUi,
} from '../helpers/browser.js';
import { addPerson, password, sendDemoTraffic, withUiServer, type Person } from '../helpers/ui-data.js';

// Page-side expressions are passed as text: the test tsconfig has no DOM types.
const skip = browserSkip('cases UI');
const people: Person[] = [
  { email: 'alice@acme.test', name: 'Alice Analyst', role: 'analyst' },
  { email: 'bob@acme.test', name: 'Bob Builder', role: 'analyst' },
];

test('cases list and detail, the close dialog, and the AI summary in the browser', { skip, timeout: 180_000 }, (t) =>
  withUiServer({ people }, async ({ database, server, acme, browser }) => {
    const admin = apiClient(
      server,
      bearer((await issueToken(server, acme, allPermissions, { name: 'test admin' })).value),
    );

    // One cycle of the demo's traffic: benign records with every attack family woven in.
    await sendDemoTraffic(server, 2);
    let seen = '';
    const web01 = await waitFor(
      'detection to group the attacks on web-01 into a case',
      async () => {
        const ready = await apiClient(server).get<Readiness>('/readyz');
        // Partial: should the search answer a problem, it has no `cases`.
        const found = await admin.post<Partial<CaseSearch>>('/v1/cases', { text: 'web-01' });
        seen = `lag ${ready.body.detection_lag_records}; cases ${JSON.stringify(found.body.cases?.map((c) => [c.number, c.observation_count]))}`;
        if (ready.body.detection_lag_records !== 0) return false;
        const item = found.body.cases?.find((c) => c.devices.some((d) => d.host_name === 'web-01'));
        return item && item.observation_count >= 5 ? item : false;
      },
      45_000,
    ).catch((error: unknown) => assert.fail(`${String(error)} (last seen: ${seen})`));
    const all = await admin.post<CaseSearch>('/v1/cases', { limit: 100 });
    assert.ok(all.body.cases.length >= 3, `sample traffic made several cases: ${all.body.cases.length}`);

    await t.test('the list: tabs with counts, filters in the URL, j/k/Enter, bulk assign', async () => {
      const ui = await openUi(browser, server);
      const { page } = ui;
      await signInThroughUi(page, 'alice@acme.test', password, '/cases');
      const table = page.getByRole('region', { name: 'Case list' });
      await table.locator('tbody tr').first().waitFor();
      assert.equal(
        await table.locator('tbody tr').count(),
        all.body.cases.filter((c) => c.status !== 'closed').length,
        'the Open tab lists every open case',
      );
      const openTab = page.getByRole('tab', { name: /^Open/ });
      assert.equal(await openTab.getAttribute('aria-selected'), 'true', 'Open is the default tab');
      const counts = await admin.get<CaseCounts>('/v1/cases/counts');
      if (counts.status === 200) {
        await page.locator('.case-tab-count').first().waitFor();
        assert.match(
          await openTab.innerText(),
          new RegExp(
            String(counts.body.by_status.new + counts.body.by_status.in_progress + counts.body.by_status.on_hold),
          ),
        );
      } else {
        console.warn(`GET /v1/cases/counts answered ${counts.status}: the tabs show no numbers yet`);
      }
      await screenshot(page, 'cases-list');

      // Filters go to the URL and narrow the search.
      await page.getByRole('button', { name: 'High', exact: true }).click();
      await page.waitForURL(/severity=high/);
      await page.locator('.case-table.is-refreshing').waitFor({ state: 'detached' });
      const severities = await table.locator('tbody tr .badge').allInnerTexts();
      assert.ok(severities.length > 0);
      await page.getByRole('button', { name: 'High', exact: true }).click();
      await page.keyboard.press('/');
      assert.equal(
        await page.evaluate<string | null>("document.activeElement?.getAttribute('aria-label')"),
        'Search cases',
        '/ focuses the search box',
      );
      await page.keyboard.type('web-01');
      await page.waitForURL(/q=web-01/);
      await table.getByRole('link', { name: web01.title }).waitFor();
      await page.getByLabel('Technique').fill('T1190');
      await page.waitForURL(/technique=T1190/);
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await page.waitForURL((url) => !url.search.includes('q='));

      // Bulk: select two cases, assign them to Bob; the outcome is reported per case.
      await page
        .getByLabel(/^Select case \d+$/)
        .nth(0)
        .check();
      await page
        .getByLabel(/^Select case \d+$/)
        .nth(1)
        .check();
      const bulk = page.getByRole('region', { name: 'Bulk actions' });
      await bulk.getByLabel('Assign selected to').selectOption({ label: 'Bob Builder (bob@acme.test)' });
      await bulk.getByRole('button', { name: 'Assign', exact: true }).click();
      await page.getByText('Assign: 2 cases updated.').waitFor();
      assert.equal((await admin.post<CaseSearch>('/v1/cases', { assignee: 'bob@acme.test' })).body.total, 2);

      // Keyboard: j selects the first row, Enter opens it.
      await page.locator('body').click({ position: { x: 5, y: 300 } });
      await page.keyboard.press('j');
      await page.locator('tbody tr[aria-selected="true"]').waitFor();
      const number = (await page.locator('tbody tr[aria-selected="true"] td.num').first().innerText()).trim();
      await page.keyboard.press('Enter');
      await page.waitForURL(new RegExp(`/cases/${number}$`));
      await page.getByRole('heading', { level: 1 }).waitFor();
      assertCleanPage(ui);
      await ui.context.close();
    });

    await t.test(
      'the detail: devices with location, techniques, evidence; summary rated thumbs down; closed through the dialog',
      async () => {
        const ui = await openUi(browser, server);
        const { page } = ui;
        await signInThroughUi(page, 'alice@acme.test', password, `/cases/${web01.number}`);
        await page.getByRole('heading', { level: 1, name: web01.title }).waitFor();
        const facts = page.getByRole('complementary', { name: 'Case facts' });
        await facts.getByRole('link', { name: 'web-01' }).waitFor();
        assert.match(
          await facts.innerText(),
          /81\.2\.69\.142\s+GB London, United Kingdom/,
          'the device address with its city and country',
        );
        assert.equal(
          await facts.getByRole('link', { name: 'web-01' }).getAttribute('href'),
          `/devices/${web01.devices.find((d) => d.host_name === 'web-01')!.id}`,
        );
        const named = web01.techniques.find((technique) => technique.name);
        assert.ok(named, 'the case has a named technique');
        assert.match(
          await facts.innerText(),
          new RegExp(`${named.id.replace('.', '\\.')} ${named.name}`),
          'techniques with names from the catalogue',
        );

        // Evidence: the fields the rule looked at and the raw record.
        await page.getByRole('button', { name: 'Show evidence' }).first().click();
        const evidence = page.locator('.evidence-record').first();
        await evidence.getByRole('table', { name: 'Fields the rule looked at' }).waitFor();
        await evidence.getByText('Raw record').click();
        assert.match(await evidence.locator('pre.record').innerText(), /"hostname": "web-01"|"host"|"Computer"/);

        // The AI summary: generated on request, sections, citations into the timeline, model, notice.
        const panel = page.locator('.summary-panel');
        await panel.getByRole('button', { name: 'Generate summary' }).click();
        await panel.getByRole('region', { name: 'Overview' }).waitFor();
        for (const heading of [
          'Timeline',
          'Affected devices and users',
          'Techniques',
          'Key evidence',
          'Recommended next steps',
        ]) {
          await panel.getByRole('region', { name: heading }).waitFor();
        }
        assert.match(await panel.innerText(), /sightline-builtin-1/);
        assert.match(await panel.innerText(), /AI-generated\..*inaccurate or invented/s);
        const citation = panel.locator('a.citation').first();
        const target = (await citation.getAttribute('href'))!;
        await citation.click();
        await page.locator(`${target}.is-highlighted`).waitFor();
        await page.locator(`${target} .evidence`).waitFor();

        await panel.getByRole('button', { name: 'Thumbs down' }).click();
        await panel.getByLabel('What was wrong? (optional)').fill('The timeline misses the first scan.');
        await panel.getByRole('button', { name: 'Send feedback' }).click();
        await panel.getByText('You rated it thumbs down: “The timeline misses the first scan.”').waitFor();
        assert.equal(await panel.getByRole('button', { name: 'Thumbs down' }).getAttribute('aria-pressed'), 'true');
        const feedback = await waitFor('the feedback copy', async () =>
          (await monitoringLines(database.dataDir, 'feedback')).find((line) => line.case_id === web01.id),
        );
        assert.equal(feedback.rating, 'down');
        assert.equal(feedback.comment, 'The timeline misses the first scan.');
        // The rating is read back from the server: a reload (or another browser) still shows it.
        await page.reload();
        await panel.getByText('You rated it thumbs down: “The timeline misses the first scan.”').waitFor();

        // A comment (c focuses the box), then assign to me with a.
        await page.locator('body').press('c');
        assert.equal(
          await page.evaluate<boolean>("document.activeElement?.getAttribute('placeholder')?.startsWith('Markdown')"),
          true,
          'c focuses the comment box',
        );
        await page.keyboard.type('Looked at the **web logs**; scanner traffic only. **`**[obs_quoted]`');
        await page.getByRole('button', { name: 'Comment', exact: true }).click();
        await page.locator('.comment-body strong', { hasText: 'web logs' }).waitFor();
        // Code spans bind tighter than bold, as the summary check reads them: quoted text, no link.
        await page.locator('.comment-body code', { hasText: '**[obs_quoted]' }).waitFor();
        await page.locator('body').press('a');
        await page.getByText('assigned to Alice Analyst').waitFor();

        // Status: the workflow's transitions only; closing asks for a resolution.
        const control = page.getByRole('group', { name: 'Change status' });
        await control.getByRole('button', { name: 'Close case' }).click();
        const dialog = page.getByRole('dialog', { name: `Close case #${web01.number}` });
        assert.equal(
          await dialog.getByRole('button', { name: 'Close case' }).isDisabled(),
          true,
          'no closing without a resolution',
        );
        await dialog.getByLabel(/^False positive/).check();
        await dialog.getByLabel('Closing comment (optional)').fill('Authorised penetration test.');
        await screenshot(page, 'case-close-dialog');
        await dialog.getByRole('button', { name: 'Close case' }).click();
        await dialog.waitFor({ state: 'detached' });
        await control.getByRole('button', { name: /Reopen/ }).waitFor();
        const closed = await admin.get<CaseDetail>(`/v1/cases/${web01.id}`);
        assert.equal(closed.body.status, 'closed');
        assert.equal(closed.body.resolution, 'false_positive');
        assert.equal(closed.body.closing_comment, 'Authorised penetration test.');
        assert.equal(closed.body.assignee!.email, 'alice@acme.test');
        // The summary says it no longer matches the case.
        await panel.getByText(/Stale: status changed/).waitFor();
        await page.getByText('Authorised penetration test.').first().waitFor();
        await screenshot(page, 'case-detail');
        assertCleanPage(ui);
        await ui.context.close();
      },
    );

    await t.test(
      'a version conflict is explained, and an opted-out tenant sees a note instead of the button',
      async () => {
        const current = (await admin.post<CaseSearch>('/v1/cases', { status: ['new'], assignee: null, limit: 100 }))
          .body.cases;
        const other = current.find((c) => c.id !== web01.id)!;
        assert.ok(other, 'another new case');
        const ui = await openUi(browser, server);
        const { page } = ui;
        await signInThroughUi(page, 'alice@acme.test', password, `/cases/${other.id}`);
        await page.getByRole('heading', { level: 1 }).waitFor();
        // Someone else starts work on it meanwhile.
        const changed = await admin.patch(`/v1/cases/${other.id}`, {
          version: other.version,
          status: 'in_progress',
          assignee: 'bob@acme.test',
        });
        assert.equal(changed.status, 200, JSON.stringify(changed.body));
        await page.getByLabel('Severity').selectOption('critical');
        const notice = page.getByText('Someone else changed this case while you had it open');
        await notice.waitFor();
        const text = await page.locator('.notice', { has: notice }).innerText();
        assert.match(text, /status: New → In progress/);
        assert.match(text, /assignee: Unassigned → Bob Builder/);
        assert.equal(
          (await admin.get<CaseDetail>(`/v1/cases/${other.id}`)).body.severity,
          other.severity,
          'the stale change was not applied',
        );
        // The page shows the current case: its status control offers what in_progress allows.
        await page
          .getByRole('group', { name: 'Change status' })
          .getByRole('button', { name: /Put on hold/ })
          .waitFor();

        const operator = await signIn(server, { tenant: null, role: 'operator', email: 'ops@platform.test' });
        await setTenant(operator, 'acme', { ai_summaries: 'off' });
        await page.reload();
        const panel = page.locator('.summary-panel');
        await panel.getByText('AI summaries are turned off for this organisation.').waitFor();
        assert.equal(
          await panel.getByRole('button', { name: /Generate/ }).count(),
          0,
          'no Generate button when opted out',
        );

        // A narrow window: one column, nothing cut off.
        await page.setViewportSize({ width: 420, height: 800 });
        await page.getByRole('heading', { level: 1 }).waitFor();
        await page.locator('.sidebar').waitFor({ state: 'hidden' });
        const overflow = await sidewaysScroll(page);
        assert.ok(overflow <= 1, `no sideways scrolling of the page (${overflow}px)`);
        await screenshot(page, 'case-detail-narrow');
        assertCleanPage(ui);
        await ui.context.close();
      },
    );

    await t.test('a viewer reads cases without any write control', async () => {
      await addPerson(server, acme, { email: 'vic@acme.test', role: 'viewer' });
      const ui = await openUi(browser, server);
      const { page } = ui;
      await signInThroughUi(page, 'vic@acme.test', password, '/cases?status=all');
      await page.getByRole('region', { name: 'Case list' }).locator('tbody tr').first().waitFor();
      assert.equal(await page.getByLabel(/^Select case/).count(), 0, 'no selection, no bulk actions');
      await page.goto(`/cases/${web01.number}`);
      await page.getByRole('heading', { level: 1, name: web01.title }).waitFor();
      await page.getByText('Looked at the').waitFor();
      assert.equal(await page.getByRole('group', { name: 'Change status' }).count(), 0);
      assert.equal(await page.getByLabel('Add a comment').count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Edit' }).count(), 0, "no editing others' comments");
      // The page's own keys (c, s) do not swallow the global two-key shortcuts that end in them.
      await page.locator('body').press('g');
      await page.locator('body').press('c');
      await page.waitForURL((url) => url.pathname === '/cases');
      // A narrow window: the filters stack, the table scrolls sideways inside its panel, the page does not.
      await page.setViewportSize({ width: 420, height: 800 });
      await page.getByRole('region', { name: 'Case list' }).locator('tbody tr').first().waitFor();
      await page.locator('.sidebar').waitFor({ state: 'hidden' });
      assert.ok((await sidewaysScroll(page)) <= 1, 'no sideways scrolling of the page');
      await screenshot(page, 'cases-list-narrow');
      assertCleanPage(ui);
      await ui.context.close();
    });
  }),
);
