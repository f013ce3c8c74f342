// ATT&CK coverage in a real browser: a Sysmon process-creation event sent through POST /log_sink
// (Winlogbeat's shape) makes OS Credential Dumping live, its Windows process rule's logsource
// seen; Container Administration Command, covered only by Kubernetes audit rules whose logsource
// nobody sent, is silent. The page is reached from the navigation, the legend names each status
// in words, a technique's rules open on click, the filters work, and the Navigator layer
// downloads as a valid 4.5 layer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { detectionCaughtUp, ingest } from '../helpers/api.js';
import {
  assertCleanPage,
  browserSkip,
  openUi,
  screenshot,
  sidewaysScroll,
  signInThroughUi,
} from '../helpers/browser.js';
import { assertNavigatorLayer } from '../helpers/navigator-layer.js';
import { password, withUiServer, type Person } from '../helpers/ui-data.js';
import { winlogbeatSysmonProcessCreation } from '../helpers/windows-events.js';

const skip = browserSkip('ATT&CK coverage');
const people: Person[] = [{ email: 'analyst@acme.test', role: 'analyst' }];

test('the coverage matrix shows live and silent techniques from real telemetry', { skip, timeout: 180_000 }, () =>
  withUiServer({ people }, async ({ server, browser }) => {
    await ingest(server, [
      winlogbeatSysmonProcessCreation(
        'WS-031.corp.example',
        'C:\\Program Files\\Mozilla Firefox\\firefox.exe',
        '"C:\\Program Files\\Mozilla Firefox\\firefox.exe" -osint -url https://example.org/',
      ),
    ]);
    await detectionCaughtUp(server);

    const ui = await openUi(browser, server);
    const { page } = ui;
    await signInThroughUi(page, 'analyst@acme.test', password);
    await page.locator('aside nav').getByRole('link', { name: 'ATT&CK coverage' }).click();
    await page.getByRole('heading', { name: 'ATT&CK coverage', level: 1 }).waitFor();
    const matrix = page.getByTestId('coverage-matrix');
    await matrix.waitFor();

    // Columns are the catalogue's tactics in matrix order.
    const columns = await matrix.locator('section > h2').allInnerTexts();
    assert.match(columns[0] ?? '', /^Reconnaissance/);
    assert.match(columns.at(-1) ?? '', /^Impact/);

    const credentialAccess = matrix.getByRole('region', { name: /^Credential Access/ });
    const dumping = credentialAccess.locator('[data-technique="T1003"]');
    assert.equal(await dumping.getAttribute('data-status'), 'live');
    await credentialAccess.getByRole('button', { name: /T1003 OS Credential Dumping.*Live/ }).waitFor();
    const containerCommand = matrix.locator('[data-technique="T1609"]').first();
    assert.equal(await containerCommand.getAttribute('data-status'), 'silent');
    await matrix
      .getByRole('button', { name: /T1609 .*Silent/ })
      .first()
      .waitFor();
    assert.equal(await matrix.locator('[data-technique="T1001"]').first().getAttribute('data-status'), 'uncovered');

    // The legend says what each status means in words, not only by colour.
    const legend = page.getByRole('list', { name: 'Legend' });
    for (const word of ['Live', 'Silent', 'Uncovered']) await legend.getByText(word, { exact: true }).waitFor();
    assert.equal(await sidewaysScroll(page), 0, 'the matrix scrolls inside its frame, not the page');
    await screenshot(page, 'attack-coverage-matrix');

    // A technique's rules on click: the parent lists its sub-techniques; the sub-technique its rules.
    await dumping.click();
    const parentDialog = page.getByRole('dialog', { name: 'T1003 OS Credential Dumping' });
    await parentDialog.getByRole('button', { name: /T1003\.001 LSASS Memory/ }).click();
    const lsass = page.getByRole('dialog', { name: 'T1003.001 LSASS Memory' });
    const row = lsass.getByTestId('technique-rules').getByRole('row', { name: /LSASS Memory Dump/ });
    await row.waitFor();
    assert.match(await row.innerText(), /windows \/ process_creation/);
    assert.match(await row.innerText(), /Seen/);
    await lsass.getByRole('button', { name: 'Close' }).click();

    await containerCommand.click();
    const silent = page.getByRole('dialog', { name: /^T1609 / });
    const silentRows = silent.getByTestId('technique-rules').locator('tbody tr');
    await silentRows.first().waitFor();
    for (const text of await silentRows.allInnerTexts()) {
      assert.match(text, /kubernetes \/ audit/);
      assert.match(text, /Not seen/);
    }
    await silent.getByRole('button', { name: 'Close' }).click();

    // Filters: only silent techniques; then a name.
    const silentToggle = page.getByRole('group', { name: 'Status' }).getByRole('button', { name: 'Silent' });
    await silentToggle.click();
    await credentialAccess.locator('[data-technique="T1003"]').waitFor({ state: 'detached' });
    assert.equal(await matrix.locator('[data-status="live"]').count(), 0);
    assert.ok((await matrix.locator('[data-technique="T1609"]').count()) > 0);
    await silentToggle.click();
    await page.getByRole('searchbox', { name: 'Technique' }).fill('lsass');
    await credentialAccess.locator('[data-technique="T1003"]').waitFor();
    assert.equal(await matrix.locator('[data-technique="T1609"]').count(), 0);

    // The Navigator layer, as the browser saves it.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download Navigator layer' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^sightline-attack-coverage-acme-\d{4}-\d{2}-\d{2}\.json$/);
    const layer = assertNavigatorLayer(JSON.parse(fs.readFileSync(await download.path(), 'utf8')));
    assert.equal(layer.techniques.find((item) => item.techniqueID === 'T1003.001')?.score, 2);
    assert.equal(layer.techniques.find((item) => item.techniqueID === 'T1609')?.score, 1);
    await page.getByText(/^Saved sightline-attack-coverage-acme-/).waitFor();
    assertCleanPage(ui);
  }),
);
