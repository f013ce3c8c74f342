// Telemetry in a real browser: an analyst searches records posted to /log_sink by words and by a
// field filter, sees them newest first, opens one into its JSON, follows new records live (only
// matching ones arrive, pausing while a record is open), and exports the search as NDJSON.
import { recordSeq } from '../../src/core/record-ids.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { ingest } from '../helpers/api.js';
import { appRecord } from '../helpers/factories.js';
import { assertCleanPage, browserSkip, openUi, screenshot, signInThroughUi, until } from '../helpers/browser.js';
import { password, withUiServer } from '../helpers/ui-data.js';

const skip = browserSkip('telemetry');

/** The record ids of the result rows, top to bottom. */
async function rowIds(page: Page): Promise<string[]> {
  return page
    .locator('.telemetry-table tbody tr[data-record-id]')
    .evaluateAll((rows) =>
      rows.map(
        (row) => (row as unknown as { getAttribute(name: string): string | null }).getAttribute('data-record-id') ?? '',
      ),
    );
}

/** The text of the result rows, top to bottom. */
async function rowTexts(page: Page): Promise<string[]> {
  return page.locator('.telemetry-table tbody tr[data-record-id]').allInnerTexts();
}

test('telemetry search, record JSON, live tail and export in the browser', { skip, timeout: 120_000 }, (t) =>
  withUiServer({ people: [{ email: 'analyst@acme.test', role: 'analyst' }] }, async ({ server, browser }) => {
    const word = `quetzal${Date.now()}`;
    const matching = [
      appRecord({ message: `${word} payment declined`, level: 'error', source: 'checkout', n: 1 }),
      appRecord({ message: `${word} retry scheduled`, level: 'info', source: 'checkout', n: 2 }),
      appRecord({ message: `${word} payment declined again`, level: 'error', source: 'checkout', n: 3 }),
    ];
    await ingest(server, [matching[0]!, appRecord({ message: 'unrelated noise' })]);
    await ingest(server, [matching[1]!]);
    // An unsigned 64-bit "none" value, beyond what a double holds: it must show with every digit.
    const newest = JSON.stringify(matching[2]).replace(/}$/, ',"job_id":18446744073709551615}');
    await ingest(server, [newest, appRecord({ message: 'more noise', level: 'error' })]);

    const ui = await openUi(browser, server);
    const { page } = ui;
    await signInThroughUi(page, 'analyst@acme.test', password, '/telemetry');
    await page.getByRole('heading', { name: 'Telemetry' }).waitFor();
    const rows = page.locator('.telemetry-table tbody tr[data-record-id]');

    await t.test('search by a word: matching records only, newest first, and the search is in the URL', async () => {
      await page.locator('body').press('/');
      const query = page.getByLabel('Query');
      assert.equal(
        await query.evaluate(
          (input) =>
            input === (input as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement,
        ),
        true,
        '/ focuses the query box',
      );
      await query.fill(word);
      await query.press('Enter');
      await until(async () => {
        const texts = await rowTexts(page);
        return texts.length === 3 && texts.every((text) => text.includes(word));
      }, 'the three matching records are listed');
      const texts = await rowTexts(page);
      assert.match(texts[0]!, /payment declined again/, 'newest first');
      assert.match(texts[2]!, /payment declined\s*$|payment declined[^ ]/);
      assert.ok(
        texts.every((text) => text.includes('checkout')),
        'the source column shows each record’s source',
      );
      assert.equal(new URL(page.url()).searchParams.get('q'), word);
      await page.getByText(/3 matching records/).waitFor();
    });

    await t.test('a field filter narrows the search, with its JSON type', async () => {
      await page.getByLabel('Filter field').fill('level');
      await page.getByLabel('Filter value').fill('error');
      await page.getByRole('button', { name: 'Add filter' }).click();
      await page.getByRole('button', { name: 'Remove filter level = "error"' }).waitFor();
      await until(async () => (await rows.count()) === 2, 'the filter leaves two records');
      const texts = await rowTexts(page);
      assert.match(texts[0]!, /declined again/);
      assert.match(texts[1]!, /payment declined/);
      assert.deepEqual(JSON.parse(new URL(page.url()).searchParams.get('f') ?? '{}'), { level: 'error' });
      // The search survives a reload: it lives in the URL.
      await page.reload();
      await rows.first().waitFor();
      assert.equal(await rows.count(), 2);
      assert.equal(await page.getByLabel('Query').inputValue(), word);
    });

    await t.test('j / Enter open a record into its fields and JSON', async () => {
      await page.locator('body').press('j');
      await page.locator('body').press('Enter');
      const [newest] = await rowIds(page);
      const detail = page.getByRole('region', { name: `Record ${newest}` });
      await detail.waitFor();
      const text = await detail.getByLabel('Record JSON').innerText();
      assert.match(text, /"job_id": 18446744073709551615\n/, 'every digit of a number beyond 2^53');
      const { job_id: _bigNumber, ...json } = JSON.parse(text) as Record<string, unknown>;
      assert.deepEqual(json, matching[2], 'the record exactly as sent, pretty-printed');
      assert.ok(
        await detail.getByText('18446744073709551615', { exact: true }).first().isVisible(),
        'and in its fields',
      );
      assert.ok(await detail.getByRole('button', { name: 'Filter on source = "checkout"' }).isVisible());
      await screenshot(page, 'telemetry');
      await page.locator('body').press(' ');
      await detail.waitFor({ state: 'detached' });
    });

    await t.test('live tail streams new matching records in, never others; an open record pauses it', async () => {
      await page.getByRole('button', { name: /Live tail/ }).click();
      const status = page.locator('.live-state');
      await status.filter({ hasText: 'Live' }).waitFor();
      assert.equal(await status.getAttribute('data-state'), 'live');
      await rows.nth(1).waitFor();

      const noise = [
        appRecord({ message: `${word} payment ok`, level: 'info' }),
        appRecord({ message: 'other error', level: 'error' }),
      ];
      const fresh = appRecord({ message: `${word} declined live`, level: 'error' });
      await ingest(server, noise);
      await ingest(server, [fresh]);
      await page.getByText(`${word} declined live`).waitFor({ timeout: 10_000 });
      // The noise went in before the match, so a tail that let it through would show it by now.
      await page.waitForTimeout(1_800);
      const texts = await rowTexts(page);
      assert.equal(texts.length, 3, texts.join('\n'));
      assert.match(texts[0]!, /declined live/, 'new records arrive at the top');
      assert.ok(
        !texts.some((text) => text.includes('payment ok') || text.includes('other error')),
        'non-matching records never appear',
      );
      assert.equal(new URL(page.url()).pathname, '/telemetry');

      // Opening a record pauses the tail; what arrives meanwhile waits, then comes in on resume.
      await rows
        .first()
        .getByRole('button', { name: /^Expand record/ })
        .click();
      await status.filter({ hasText: 'Paused' }).waitFor();
      await ingest(server, [appRecord({ message: `${word} declined while paused`, level: 'error' })]);
      await status.filter({ hasText: '1 new record waiting' }).waitFor({ timeout: 10_000 });
      assert.equal(await page.getByText(`${word} declined while paused`).count(), 0, 'not inserted while paused');
      await screenshot(page, 'telemetry-live');
      await page.getByRole('button', { name: /^Resume/ }).click();
      await page.getByText(`${word} declined while paused`).waitFor();
      await status.filter({ hasText: 'Live' }).waitFor();
      assert.equal(await rows.count(), 4);
    });

    await t.test('export downloads the search as NDJSON', async () => {
      const downloading = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export NDJSON' }).click();
      const download = await downloading;
      assert.match(download.suggestedFilename(), /^telemetry-acme-.*\.ndjson$/);
      const saved = fs.readFileSync(await download.path(), 'utf8');
      assert.ok(saved.includes('"job_id":18446744073709551615'), 'the saved records keep every digit');
      const lines = saved
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { id: string; record: Record<string, unknown> });
      const messages = lines.map((line) => line.record.message);
      assert.equal(lines.length, 4, messages.join('\n'));
      assert.ok(
        messages.includes(`${word} declined live`) && messages.includes(matching[0]!.message),
        'the matching records, no others',
      );
      assert.ok(lines.every((line) => line.record.level === 'error'));
      assert.deepEqual(
        lines.map((line) => line.id),
        // The ids are opaque; the server (this process) reads their place in the log back.
        [...lines].sort((a, b) => (recordSeq(b.id) ?? 0) - (recordSeq(a.id) ?? 0)).map((line) => line.id),
        'in the order shown: newest first',
      );
      await page.getByText('Saved 4 records as NDJSON.').waitFor();
      await page.getByRole('button', { name: /Live tail/ }).click();
      await page.locator('.live-state').waitFor({ state: 'detached' });
      assertCleanPage(ui);
      await ui.context.close();
    });

    await t.test('a narrow window keeps the search usable', async () => {
      const narrow = await openUi(browser, server, { width: 420, height: 800 });
      await signInThroughUi(narrow.page, 'analyst@acme.test', password, `/telemetry?q=${word}`);
      await narrow.page.locator('.telemetry-table tbody tr[data-record-id]').first().waitFor();
      // Away from the chart, whose tooltip would follow the pointer left by the sign-in click.
      await narrow.page.mouse.move(1, 1);
      await screenshot(narrow.page, 'telemetry-narrow');
      assertCleanPage(narrow);
      await narrow.context.close();
    });
  }),
);
