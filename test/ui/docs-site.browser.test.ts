// The interactive API reference in a real browser (Debian's Chromium driven by playwright-core):
// HTTP Basic with a token as the password lets a person in, the Authorize dialog offers the
// "Personal Access Token" field, and Try it out runs against real data and shows the cURL command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { chromium, type Browser, type Request } from 'playwright-core';
import { databaseTargets } from '../helpers/databases.js';
import { startServer } from '../helpers/server.js';
import { issueToken, seedTenant } from '../helpers/api.js';
import { arrive } from '../helpers/browser.js';

const chromiumPath = '/usr/bin/chromium';
const available = fs.existsSync(chromiumPath);
if (!available) {
  const message = `${chromiumPath} is not installed: the API reference browser test is NOT running (apt-get install chromium; .ci/run does)`;
  if (process.env.CI) throw new Error(message);
  console.warn(`\n*** WARNING: ${message} ***\n`);
}

/** Where the screenshot of the Authorize dialog goes, for a person to look at after a run. */
const screenshotPath = process.env.SIGHTLINE_DOCS_SCREENSHOT;

test(
  'the API reference lets a token holder authorise and try an operation',
  { skip: !available && 'chromium not installed', timeout: 120_000 },
  async () => {
    const database = await databaseTargets[0]!.create();
    const server = await startServer(database);
    let browser: Browser | undefined;
    try {
      const tenant = await seedTenant(server, 'docs');
      const tokenName = `docs browser token ${randomBytes(4).toString('hex')}`;
      const token = await issueToken(server, tenant, undefined, { name: tokenName });
      browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });

      // Without credentials the browser is challenged. Chromium under Playwright then cancels its
      // sign-in prompt and fails the navigation (ERR_INVALID_AUTH_CREDENTIALS), so the 401 is
      // read from the response event rather than from goto's answer.
      const anonymous = await (await browser.newContext()).newPage();
      const challenged = anonymous.waitForResponse((response) => response.url() === `${server.baseUrl}/docs/`);
      await assert.rejects(anonymous.goto(`${server.baseUrl}/docs/`), /ERR_INVALID_AUTH_CREDENTIALS/);
      const refused = await challenged;
      assert.equal(refused.status(), 401, 'no credentials, no reference');
      assert.match((await refused.headerValue('www-authenticate')) ?? '', /^Basic realm="/);
      await anonymous.context().close();

      const context = await browser.newContext({ httpCredentials: { username: 'anyone', password: token.value } });
      const page = await context.newPage();
      const requests: Request[] = [];
      page.on('request', (request) => requests.push(request));
      const consoleErrors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });

      const opened = await page.goto(`${server.baseUrl}/docs/`);
      assert.equal(opened?.status(), 200);
      await page.locator('.information-container .title', { hasText: 'Sightline API' }).waitFor();

      // Authorise with the token in the API reference's Bearer field.
      await page.locator('.scheme-container button.authorize').click();
      const dialog = page.locator('.modal-ux');
      const pat = dialog.locator('.auth-container', { has: page.locator('h4', { hasText: 'Personal Access Token' }) });
      await pat.waitFor();
      // The cursor must be in this field, not in the session cookie's field that Swagger UI focuses.
      await page.waitForFunction(
        `document.activeElement?.getAttribute('aria-label') === 'auth-bearer-value'`,
        undefined,
        { timeout: 5_000 },
      );
      if (screenshotPath) await page.screenshot({ path: screenshotPath });
      await page.keyboard.insertText(token.value);
      await pat.getByRole('button', { name: 'Apply credentials' }).click();
      await pat.getByRole('button', { name: 'Remove authorization' }).waitFor();
      await pat.locator('button.btn-done').click();
      await dialog.waitFor({ state: 'detached' });

      // Try GET /v1/tokens against the server's real data.
      const operation = page.locator('.opblock-get', {
        has: page.locator('.opblock-summary-path[data-path="/v1/tokens"]'),
      });
      await arrive(page, operation.locator('.opblock-summary-control'), 'docs-try-tokens');
      await operation.locator('.opblock-summary-control').click();
      await operation.locator('button.try-out__btn').click();
      const called = page.waitForRequest((request) => new URL(request.url()).pathname === '/v1/tokens');
      await operation.locator('button.execute').click();
      const call = await called;
      assert.equal(
        await call.headerValue('authorization'),
        `Bearer ${token.value}`,
        'the call carries the authorised token',
      );

      const live = operation.locator('.live-responses-table');
      await live.locator('.response-col_status', { hasText: '200' }).waitFor();
      const body = await live.locator('.response-col_description pre.microlight').first().innerText();
      assert.ok(body.includes(tokenName), `the response shows the token from the database: ${body.slice(0, 300)}`);
      assert.ok(!body.includes(token.value), 'the token value is never returned');
      const curl = await operation.locator('.curl-command .curl').innerText();
      assert.ok(curl.includes(`Authorization: Bearer ${token.value}`), `cURL carries the token: ${curl}`);
      assert.ok(curl.includes(`${server.baseUrl}/v1/tokens`), `cURL names the URL: ${curl}`);

      const elsewhere = requests
        .map((request) => request.url())
        .filter((url) => !url.startsWith(`${server.baseUrl}/`) && !url.startsWith('data:'));
      assert.deepEqual(elsewhere, [], 'no request leaves the server (no CDN)');
      assert.deepEqual(consoleErrors, [], 'the page logs no errors');
      await context.close();
    } finally {
      await browser?.close();
      await server.close();
      await database.cleanup();
    }
  },
);
