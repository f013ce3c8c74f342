// Questions in plain words in a real browser, against a local OpenAI-compatible fake: the analyst
// asks, reads the proposed query and time range exactly as the model gave them, and nothing is
// searched until they press Search (no search or histogram request before, the rows unchanged);
// used as is or edited, the search then lists the matching records. Two proposals the parser
// refuses are reported in words and run nothing; a tenant on the builtin summariser has no Ask.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { apiClient, bearer, ingest, issueToken, seedTenant } from '../helpers/api.js';
import { assertCleanPage, browserSkip, openUi, screenshot, signInThroughUi, until } from '../helpers/browser.js';
import { openAiCompletion, startFakeLlm, type FakeLlmRequest } from '../helpers/fake-llm.js';
import { addPerson, password, withUiServer } from '../helpers/ui-data.js';
import { AppError } from '../../src/core/errors.js';
import { parseTelemetryQuery } from '../../src/telemetry/telemetry-query.js';

const skip = browserSkip('telemetry questions');

/** Since the start of this minute a day ago: a whole minute, as the form's datetime-local keeps it. */
const since = new Date(Math.floor((Date.now() - 86_400_000) / 60_000) * 60_000).toISOString();
const GOOD = {
  query: 'host:web-01 AND process:sudo AND "authentication failure"',
  since,
  until: null,
  explanation: 'Failed sudo on web-01 since yesterday.',
};
const UNPARSABLE = JSON.stringify({ ...GOOD, query: 'host:web-01 AND (process:sudo' });

/** Answers the fake gives next, in order; an empty script answers `GOOD`. */
const script: string[] = [];
const llm = await startFakeLlm({
  kind: 'openai',
  respond: () => ({ body: openAiCompletion({ text: script.shift() ?? JSON.stringify(GOOD) }) }),
});
after(() => llm.close());

/** The parser's message for a query it refuses, as the server words it. */
function parserProblem(query: string): string {
  try {
    parseTelemetryQuery(query);
  } catch (error) {
    if (error instanceof AppError) return error.detail;
    throw error;
  }
  throw new Error(`${query} parses`);
}

/** The user message of a request the fake received. */
function userMessage(request: FakeLlmRequest | undefined): string {
  const messages = request?.body?.messages as { role: string; content: string }[] | undefined;
  return messages?.find((message) => message.role === 'user')?.content ?? '';
}

/** A search the page asked the server for: its path and body. */
interface Searched {
  path: string;
  body: Record<string, unknown>;
}

/** Records every search and histogram request the page makes, from now on. */
function watchSearches(page: Page): Searched[] {
  const searched: Searched[] = [];
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (request.method() === 'POST' && /^\/v1\/telemetry\/(search|histogram)$/.test(path))
      searched.push({ path, body: request.postDataJSON() as Record<string, unknown> });
  });
  return searched;
}

const records = [
  { host: 'web-01', process: 'sudo', user: 'alice', message: 'pam_unix(sudo:auth): authentication failure' },
  { host: 'web-01', process: 'sudo', user: 'bob', message: 'pam_unix(sudo:auth): authentication failure' },
  { host: 'web-01', process: 'sudo', user: 'carol', message: 'session opened for user root' },
  { host: 'web-02', process: 'sudo', user: 'alice', message: 'pam_unix(sudo:auth): authentication failure' },
  { host: 'web-01', process: 'sshd', user: 'dave', message: 'Accepted publickey' },
];

test(
  'telemetry questions: a proposal shown, not run until Search; refusals in words; no Ask without a model',
  { skip, timeout: 120_000 },
  (t) =>
    withUiServer(
      {
        people: [{ email: 'analyst@acme.test', role: 'analyst' }],
        // As the API suite configures it: the deployment knows the fake, the tenant picks it.
        overrides: { openaiBaseUrl: llm.baseUrl, openaiModel: 'fake-gpt', summaryRetries: 0 },
      },
      async ({ server, acme, browser }) => {
        const { db } = server.sightline.database;
        await db.updateTable('tenants').set({ summary_provider: 'openai' }).where('id', '=', acme.id).execute();
        // globex keeps the deployment's builtin summariser: no language model.
        const globex = await seedTenant(server, 'globex');
        await addPerson(server, globex, { email: 'analyst@globex.test', role: 'analyst' });
        await ingest(server, records);
        // The text index follows the log moments later: the proposal finds both failures once it has.
        const reader = apiClient(server, bearer((await issueToken(server, acme, ['telemetry:read'])).value));
        await until(async () => {
          const found = await reader.post<{ records: unknown[]; partial: boolean }>('/v1/telemetry/search', {
            query: GOOD.query,
          });
          return found.status === 200 && found.body.records.length === 2 && !found.body.partial;
        }, 'the text index holds the records');

        const ui = await openUi(browser, server);
        const { page } = ui;
        const searched = watchSearches(page);
        await signInThroughUi(page, 'analyst@acme.test', password, '/telemetry');
        await page.getByRole('heading', { name: 'Telemetry' }).waitFor();
        const rows = page.locator('.telemetry-table tbody tr[data-record-id]');
        const query = page.getByLabel('Query', { exact: true });
        const askButton = page.getByRole('button', { name: 'Ask in plain words' });
        const panel = page.getByRole('region', { name: 'Ask in plain words' });
        const question = panel.getByRole('textbox', { name: 'Question' });
        const useIt = panel.getByRole('button', { name: 'Use this search' });
        await until(async () => (await rows.count()) === records.length, 'every record of the last 24 hours');

        /** Opens the panel and asks by keyboard; returns the requests the fake received for it. */
        async function ask(words: string, answered: Locator): Promise<FakeLlmRequest[]> {
          const seen = llm.requests.length;
          assert.equal(await askButton.getAttribute('aria-expanded'), 'false');
          await askButton.press('Enter');
          const close = page.getByRole('button', { name: 'Close question' });
          assert.equal(await close.getAttribute('aria-expanded'), 'true');
          // The panel opens above the form, before the button in tab order: the focus goes into it.
          assert.equal(await question.evaluate(isFocused), true, 'the question field takes the focus');
          await page.keyboard.type(words);
          await page.keyboard.press('Enter');
          await answered.waitFor();
          return llm.requests.slice(seen);
        }

        /** Nothing was searched since `count` requests, and the rows are still `ids`. */
        async function nothingRan(count: number, ids: (string | null)[], what: string): Promise<void> {
          assert.deepEqual(searched.slice(count), [], `${what}: no search or histogram request`);
          assert.deepEqual(await rows.evaluateAll(idsOf), ids, `${what}: the rows are unchanged`);
          assert.equal(new URL(page.url()).searchParams.get('q'), null, `${what}: the URL holds no query`);
        }

        await t.test('a question becomes the proposal the model gave, shown and not run', async () => {
          const before = searched.length;
          const ids = await rows.evaluateAll(idsOf);
          const sent = await ask('failed sudo on web-01 since yesterday', useIt);
          assert.equal(sent.length, 1, 'one model call for a usable answer');
          assert.match(userMessage(sent[0]), /failed sudo on web-01 since yesterday/);

          assert.equal(await panel.locator('code').innerText(), GOOD.query, 'the proposed query as the model gave it');
          await panel.getByText(GOOD.explanation, { exact: true }).waitFor();
          const local = await page.evaluate((iso) => new Date(iso).toLocaleString(), GOOD.since);
          assert.equal(await panel.getByText(/^Time range:/).innerText(), `Time range: since ${local}`);
          assert.equal(await panel.getByRole('button', { name: 'Edit' }).isVisible(), true);
          await screenshot(page, 'telemetry-ask-proposal');
          await nothingRan(before, ids, 'after the proposal');
        });

        await t.test('used as is, it fills the form and runs only when the analyst presses Search', async () => {
          const before = searched.length;
          const ids = await rows.evaluateAll(idsOf);
          await useIt.click();
          await panel.waitFor({ state: 'detached' });
          assert.equal(await query.inputValue(), GOOD.query);
          assert.equal(await page.getByLabel('Time range').inputValue(), 'custom');
          const from = page.getByLabel('From', { exact: true });
          assert.equal(await from.inputValue(), await page.evaluate(localMinutes, GOOD.since));
          assert.equal(await page.getByLabel('To', { exact: true }).inputValue(), '');
          await nothingRan(before, ids, 'after Use this search');

          await page.getByRole('button', { name: 'Search', exact: true }).click();
          await until(async () => (await rows.count()) === 2, 'the two failures on web-01');
          const search = lastSearch(searched.slice(before));
          assert.deepEqual(search?.body, { query: GOOD.query, since: GOOD.since, order: 'desc', limit: 100 });
          for (const text of await rows.allInnerTexts()) assert.match(text, /authentication failure/);
          assert.equal(new URL(page.url()).searchParams.get('q'), GOOD.query);
        });

        await t.test('edited first, the analyst’s query is the one searched', async () => {
          // Back to every record, so that the edited search visibly changes the list.
          await page.goto('/telemetry');
          await until(async () => (await rows.count()) === records.length, 'every record of the last 24 hours');
          const before = searched.length;
          const ids = await rows.evaluateAll(idsOf);
          await ask('failed sudo on web-01 since yesterday', useIt);

          await panel.getByRole('button', { name: 'Edit' }).click();
          const edit = panel.getByRole('textbox', { name: 'Proposed query' });
          assert.equal(await edit.inputValue(), GOOD.query);
          assert.equal(await edit.evaluate(isFocused), true, 'Edit puts the focus in the field it becomes');
          await edit.press('End');
          await edit.pressSequentially(' AND user:alice');
          // By keyboard: the next stop is Use this search.
          await edit.press('Tab');
          assert.equal(await useIt.evaluate(isFocused), true, 'Tab reaches Use this search');
          await page.keyboard.press('Enter');
          await panel.waitFor({ state: 'detached' });
          const edited = `${GOOD.query} AND user:alice`;
          assert.equal(await query.inputValue(), edited);
          assert.equal(await query.evaluate(isFocused), true, 'the focus goes to the filled query box');
          await nothingRan(before, ids, 'after the edited proposal is used');

          await page.keyboard.press('Enter');
          await until(async () => (await rows.count()) === 1, "alice's failure on web-01");
          assert.match((await rows.allInnerTexts()).join('\n'), /authentication failure/);
          const search = lastSearch(searched.slice(before));
          assert.ok(search, 'Enter in the query box searched');
          assert.equal(search.body.query, edited);
          assert.equal(search.body.since, GOOD.since);
          await screenshot(page, 'telemetry-ask-edited-results');
        });

        await t.test('a proposal refused twice is reported in words, and nothing runs', async () => {
          await page.goto('/telemetry');
          await until(async () => (await rows.count()) === records.length, 'every record of the last 24 hours');
          const before = searched.length;
          const ids = await rows.evaluateAll(idsOf);
          script.push(UNPARSABLE, UNPARSABLE);
          const alert = panel.getByRole('alert');
          const sent = await ask('sudo on web-01', alert);
          assert.equal(sent.length, 2, 'the refused answer was sent back once');
          const problem = parserProblem('host:web-01 AND (process:sudo');
          assert.equal(
            await alert.innerText(),
            `the model did not propose a usable search (twice): ${problem}; rephrase the question or write the query`,
          );
          assert.equal(await useIt.count(), 0, 'no proposal to use');
          assert.equal(await panel.getByRole('button', { name: 'Propose a search' }).isEnabled(), true);
          await screenshot(page, 'telemetry-ask-refused');
          await nothingRan(before, ids, 'after a refused question');
          assert.equal(await query.inputValue(), '');
          assertCleanPage(ui);
          await ui.context.close();
        });

        await t.test('a tenant without a language model has no Ask button', async () => {
          const other = await openUi(browser, server);
          const tenant = other.page.waitForResponse(
            (response) => new URL(response.url()).pathname === '/v1/tenant' && response.status() === 200,
          );
          const asked: string[] = [];
          other.page.on('request', (request) => {
            if (request.url().includes('/v1/telemetry/ask')) asked.push(request.url());
          });
          await signInThroughUi(other.page, 'analyst@globex.test', password, '/telemetry');
          await other.page.getByRole('heading', { name: 'Telemetry' }).waitFor();
          const loaded = (await (await tenant).json()) as { summary_provider_in_effect: string };
          assert.equal(loaded.summary_provider_in_effect, 'builtin');
          await other.page.getByRole('search', { name: 'Search telemetry' }).waitFor();
          assert.equal(await other.page.getByRole('button', { name: 'Ask in plain words' }).count(), 0);
          assert.equal(await other.page.getByRole('region', { name: 'Ask in plain words' }).count(), 0);
          assert.deepEqual(asked, []);
          await screenshot(other.page, 'telemetry-ask-no-model');
          assertCleanPage(other);
          await other.context.close();
        });
      },
    ),
);

/**
 * The search the rows show: the last one. (Search from a relative range also sends one of the
 * previous criteria at a new moment first: the URL changes in a router transition, the moment at
 * once, so one render sees the old URL with the new moment.)
 */
function lastSearch(searched: Searched[]): Searched | undefined {
  return searched.filter((request) => request.path === '/v1/telemetry/search').at(-1);
}

/** The record ids of result rows (for evaluateAll). */
function idsOf(rows: unknown[]): (string | null)[] {
  return rows.map((row) => (row as { getAttribute(name: string): string | null }).getAttribute('data-record-id'));
}

/** Whether the element has the focus (for evaluate). */
function isFocused(element: unknown): boolean {
  return element === (element as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement;
}

/** An ISO time as a datetime-local value in the browser's zone (for page.evaluate). */
function localMinutes(iso: string): string {
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
