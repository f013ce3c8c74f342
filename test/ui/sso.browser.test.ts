// Single sign-on in a real browser, on SQLite and PostgreSQL, against a real OpenID Connect
// provider: a tenant admin configures it on Settings › Single sign-on and verifies the email
// domain by its DNS record (served by a DNS server the test runs); a person clicks "Sign in with
// single sign-on" on the login page, names the organisation, signs in at the provider's form,
// and comes back signed in, on the page they asked for, as a new member with the mapped role;
// someone the settings do not allow comes back to the login page told why in words; a member
// with a password links their account once; and a sign-in another site starts comes back with
// nothing filled in.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import dns from 'node:dns';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { apiClient, bearer, issueToken, seedTenant } from '../helpers/api.js';
import { arrive, browserSkip, launchBrowser, screenshot, signInThroughUi } from '../helpers/browser.js';
import { addPerson, password } from '../helpers/ui-data.js';
import { startTestProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { closeOpened } from '../helpers/suite.js';
import type { Me } from '../helpers/responses.js';
import type { Tenant } from '../../src/identity/tenants/tenant-service.js';
import { allPermissions } from '../../src/identity/permissions.js';

const skip = browserSkip('single sign-on');

/** A context on the deployment's public address; requests leaving this machine are cut off. */
async function newContext(browser: Browser, publicUrl: string): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: publicUrl, viewport: { width: 1280, height: 800 } });
  await context.route(/^https?:\/\/(?!localhost[:/]|127\.0\.0\.1[:/])/, (route) => route.abort());
  return context;
}

/** The provider's development login form: any password goes with the account's login. */
async function signInAtProvider(page: Page, login: string): Promise<void> {
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
}

for (const target of databaseTargets) {
  describe(`single sign-on in the browser on ${target.kind}`, { skip: skip || target.skip, timeout: 180_000 }, () => {
    let database: TestDatabase;
    let server: TestServer;
    let provider: TestProvider;
    let nameServer: TestDnsServer;
    let browser: Browser;
    let publicUrl: string;
    let acme: Tenant;

    before(async () => {
      database = await target.create();
      // The operator lets the server reach the provider on this machine.
      server = await startServer(database, { webhookAllowLoopback: true });
      acme = await seedTenant(server, 'acme');
      await addPerson(server, acme, { email: 'admin@acme.example', role: 'admin' });
      await addPerson(server, acme, { email: 'lea@acme.example', role: 'viewer' });
      nameServer = await startDnsServer();
      publicUrl = server.sightline.collectorAddress.publicUrl;
      provider = await startTestProvider(`${publicUrl}/v1/auth/sso/callback`);
      provider.accounts.set('ana', {
        email: 'ana@acme.example',
        email_verified: true,
        name: 'Ana Analyst',
        groups: ['soc-analysts', 'staff'],
      });
      provider.accounts.set('lea', { email: 'lea@acme.example', email_verified: true, groups: ['soc-analysts'] });
      provider.accounts.set('otto', {
        email: 'otto@elsewhere.example',
        email_verified: true,
        groups: ['soc-analysts'],
      });
      browser = await launchBrowser();
    });
    after(() => closeOpened(browser, provider, nameServer, server, database));

    test('a tenant admin configures single sign-on on its settings page', async () => {
      const context = await newContext(browser, publicUrl);
      const page = await context.newPage();
      await signInThroughUi(page, 'admin@acme.example', password, '/settings/sso');
      await page.getByRole('heading', { name: 'Single sign-on' }).waitFor();
      assert.equal(await page.getByTestId('sso-redirect-uri').innerText(), `${publicUrl}/v1/auth/sso/callback`);
      await page.getByLabel('Issuer URL').fill(provider.issuer);
      await page.getByLabel('Client ID').fill(provider.clientId);
      await page.getByLabel('Client secret').fill(provider.clientSecret);
      await page.getByLabel('Allowed email domains').fill('acme.example');
      await page.getByLabel('Role claim').fill('groups');
      await page.getByRole('button', { name: 'Add a mapping' }).click();
      await page.getByLabel('Claim value 1', { exact: true }).fill('soc-analysts');
      await page.getByLabel('Role for claim value 1').selectOption('analyst');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved: the provider answered discovery.').waitFor();
      await page.getByLabel('Client secret').waitFor();
      assert.equal(await page.getByLabel('Client secret').inputValue(), '', 'the secret is never shown back');
      await screenshot(page, `sso-settings-${target.kind}`);
      await context.close();

      const token = (await issueToken(server, acme, allPermissions)).value;
      const saved = await apiClient(server, bearer(token)).get<{ issuer: string; role_mapping: unknown }>('/v1/sso');
      assert.equal(saved.body.issuer, provider.issuer);
      assert.deepEqual(saved.body.role_mapping, { 'soc-analysts': 'analyst' });
    });

    test('the admin verifies the email domain by its DNS record', async () => {
      const context = await newContext(browser, publicUrl);
      const page = await context.newPage();
      await signInThroughUi(page, 'admin@acme.example', password, '/settings/sso');
      const domains = page.getByRole('list', { name: 'Email domains' });
      await domains.getByText('Not verified').waitFor();
      const record = await domains.locator('code').nth(1).innerText();
      assert.match(record, /^sightline-verification=/);
      nameServer.txt.set('acme.example', [record]);
      const servers = dns.getServers();
      dns.setServers([nameServer.address]);
      try {
        await page.getByRole('button', { name: 'Check the TXT record of acme.example' }).click();
        // Exactly: "Not verified" holds the word too, and the lookup must end before the
        // resolver is put back.
        await domains.getByText('Verified', { exact: true }).waitFor();
      } finally {
        dns.setServers(servers);
      }
      assert.equal(await domains.getByText('Not verified').count(), 0);
      await screenshot(page, `sso-domains-${target.kind}`);
      await context.close();
    });

    test('a person signs in through the provider and lands where they were going, with the mapped role', async () => {
      const context = await newContext(browser, publicUrl);
      const page = await context.newPage();
      await page.goto('/cases');
      await page.getByRole('button', { name: 'Sign in with single sign-on' }).click();
      await page.getByLabel('Organisation code name').fill('acme');
      await page.getByRole('button', { name: 'Continue with single sign-on' }).click();
      await page.waitForURL((url) => url.href.startsWith(provider.issuer));
      await signInAtProvider(page, 'ana');
      await arrive(page, page.getByLabel('User menu'), `sso-signed-in-${target.kind}`);
      assert.equal(new URL(page.url()).pathname, '/cases');
      const me = await page.request.get('/v1/me', { headers: { 'x-requested-with': 'test' } });
      const body = (await me.json()) as Me;
      assert.equal(body.label, 'ana@acme.example');
      assert.equal(body.role, 'analyst');
      assert.equal(body.tenant?.code_name, 'acme');
      await screenshot(page, `sso-signed-in-${target.kind}`);
      await context.close();
    });

    test('someone the settings do not allow comes back to the login page told why', async () => {
      const context = await newContext(browser, publicUrl);
      const page = await context.newPage();
      await page.goto('/?tenant=acme');
      await page.getByRole('button', { name: 'Continue with single sign-on' }).click();
      await page.waitForURL((url) => url.href.startsWith(provider.issuer));
      await signInAtProvider(page, 'otto');
      await page
        .getByRole('alert')
        .getByText('Your email address is not in a domain your organisation allows for single sign-on.')
        .waitFor();
      assert.equal(await page.getByLabel('Organisation code name').inputValue(), 'acme');
      await screenshot(page, `sso-refused-${target.kind}`);
      await context.close();
    });

    test('a member with a password signs in with it once and links single sign-on; then the provider signs them in', async () => {
      const context = await newContext(browser, publicUrl);
      const page = await context.newPage();
      await page.goto('/?tenant=acme');
      await page.getByRole('button', { name: 'Continue with single sign-on' }).click();
      await page.waitForURL((url) => url.href.startsWith(provider.issuer));
      await signInAtProvider(page, 'lea');
      await arrive(page, page.getByText('Your account has a password of its own.'), `sso-link-${target.kind}`);
      assert.equal(new URL(page.url()).pathname, '/account/sso-link');
      await page.getByLabel('Email').fill('lea@acme.example');
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('button', { name: 'Link single sign-on' }).click();
      await page.getByText('Linked: single sign-on signs you in from now on.').waitFor();
      await screenshot(page, `sso-linked-${target.kind}`);
      await context.close();

      const again = await newContext(browser, publicUrl);
      const next = await again.newPage();
      await next.goto('/?tenant=acme');
      await next.getByRole('button', { name: 'Continue with single sign-on' }).click();
      await next.waitForURL((url) => url.href.startsWith(provider.issuer));
      await signInAtProvider(next, 'lea');
      await arrive(next, next.getByLabel('User menu'), `sso-linked-signed-in-${target.kind}`);
      const me = (await (await next.request.get('/v1/me', { headers: { 'x-requested-with': 'test' } })).json()) as Me;
      assert.deepEqual([me.label, me.role], ['lea@acme.example', 'analyst']);
      await again.close();
    });

    test("a sign-in another site starts comes back to the login page with that site's organisation not filled in", async () => {
      const context = await newContext(browser, publicUrl);
      // A page of another site (127.0.0.1 is not the same site as localhost) linking to the start.
      const elsewhere = 'http://127.0.0.1:9/evil';
      await context.route(elsewhere, (route) =>
        route.fulfill({
          contentType: 'text/html',
          body: `<a href="${publicUrl}/v1/auth/sso/acme/start">Sign in to Sightline</a>`,
        }),
      );
      const page = await context.newPage();
      await page.goto(elsewhere);
      await page.getByRole('link', { name: 'Sign in to Sightline' }).click();
      await page.getByText('Another site tried to sign you in.').waitFor();
      assert.equal(new URL(page.url()).searchParams.get('tenant'), null);
      assert.equal(await page.getByLabel('Organisation code name').inputValue(), '');
      // Even a link that names one itself fills nothing in after such a refusal.
      await page.goto('/login?sso_error=cross_site&tenant=acme');
      await page.getByText('Another site tried to sign you in.').waitFor();
      assert.equal(await page.getByLabel('Organisation code name').inputValue(), '');
      await context.close();
    });
  });
}
