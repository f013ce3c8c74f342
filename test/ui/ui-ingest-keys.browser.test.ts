// Settings › Collector › Ingest keys in a real browser: a tenant admin creates a key (shown once,
// copied), turns the requirement on, and the collector then stores records only with that key;
// the Fluent Bit configuration shown then sends the key; deleting the key after confirmation
// makes the collector refuse it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { appRecord, ndjson } from '../helpers/factories.js';
import { assertCleanPage, browserSkip, openUi, screenshot, signInThroughUi } from '../helpers/browser.js';
import { password, withUiServer, type Person } from '../helpers/ui-data.js';
import type { TestServer } from '../helpers/server.js';

const skip = browserSkip('collector ingest keys');
const people: Person[] = [{ email: 'admin@acme.test', role: 'admin' }];

/** What acme's collector answers to one record sent with these headers. */
async function collectorStatus(server: TestServer, headers: Record<string, string> = {}): Promise<number> {
  const response = await server.post(ndjson([appRecord({ run: randomUUID() })]), {
    'content-type': 'application/x-ndjson',
    host: 'acme-collector.localhost',
    ...headers,
  });
  return response.status;
}

test('ingest keys in the browser: create, require, configure, delete', { skip, timeout: 120_000 }, () =>
  withUiServer({ people }, async ({ server, browser }) => {
    const ui = await openUi(browser, server);
    const { page, context } = ui;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    await signInThroughUi(page, 'admin@acme.test', password, '/settings/collector');
    await page.getByRole('heading', { name: 'Collector', exact: true }).waitFor();
    const requirement = page.getByRole('switch', { name: 'Require an ingest key' });
    // Clicked by its label, as a person does (the styled track covers the checkbox itself).
    const toggle = () => page.getByText(/^Require an ingest key: the collector refuses/).click();
    await page.getByText('No ingest keys yet.').waitFor();
    assert.equal(await requirement.isChecked(), false, 'off by default');

    // Without a key, the requirement cannot be turned on: the server says why.
    await toggle();
    await page
      .getByRole('alert')
      .filter({ hasText: /no ingest key/ })
      .waitFor();
    assert.equal(await requirement.isChecked(), false);

    await page.getByRole('button', { name: 'Create ingest key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create ingest key' });
    await dialog.getByLabel('Name').fill('Fluent Bit, web tier');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const created = page.getByRole('dialog', { name: 'Ingest key created' });
    const value = await created.getByLabel('Ingest key').inputValue();
    assert.match(value, /^sli_[A-Za-z0-9]{36}$/);
    assert.match(await created.innerText(), /cannot be shown again/);
    await created.getByRole('button', { name: 'Copy', exact: true }).click();
    await created.getByRole('button', { name: 'Copied', exact: true }).waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), value, 'Copy puts the key on the clipboard');
    await created.getByRole('button', { name: 'I have copied it' }).click();
    const table = page.getByRole('table', { name: 'Ingest keys' });
    await table.getByText('Fluent Bit, web tier').waitFor();
    assert.ok((await table.innerText()).includes(`${value.slice(0, 8)}…`), 'the key is listed by its prefix');
    assert.ok(!(await page.content()).includes(value), 'the key itself is gone from the page');

    await toggle();
    await page.getByRole('switch', { name: 'Require an ingest key', checked: true }).waitFor();
    assert.equal(await collectorStatus(server), 401, 'records without a key are refused');
    assert.equal(await collectorStatus(server, { authorization: `Bearer ${value}` }), 201);
    const fluentBit = page.getByLabel(/Fluent Bit configuration .*fluent-bit\.conf/);
    await fluentBit.getByText('http_passwd').waitFor();
    assert.match(await fluentBit.innerText(), /http_passwd\s+\$\{SIGHTLINE_INGEST_KEY\}/);
    await screenshot(page, 'settings-collector-ingest-keys');

    await table.getByRole('button', { name: 'Delete Fluent Bit, web tier' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete ingest key' });
    await confirm.getByRole('button', { name: 'Delete key' }).click();
    await page.getByText('No ingest keys yet.').waitFor();
    assert.equal(await collectorStatus(server, { authorization: `Bearer ${value}` }), 401, 'a deleted key is refused');
    assertCleanPage(ui);
  }),
);
