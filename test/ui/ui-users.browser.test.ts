// The Users page and Settings › Security's sessions in a real browser: a tenant admin invites a person and hands
// over the link shown once; the person opens it (signed out), sets a password and signs in; the
// admin sees them active, ends their session, disables them (the person's next click signs them
// out) and enables them again; the person ends another of their own sessions under Settings › Security.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertCleanPage, browserSkip, openUi, screenshot, signInThroughUi, until } from '../helpers/browser.js';
import { password, withUiServer, type Person } from '../helpers/ui-data.js';

const skip = browserSkip('users page');
const people: Person[] = [{ email: 'admin@acme.test', role: 'admin' }];
const NEW_PASSWORD = 'lichen-orbit-cobalt-tambourine';

test('the Users page and the sessions panel in the browser', { skip, timeout: 180_000 }, (t) =>
  withUiServer({ people }, async ({ server, browser }) => {
    const admin = await openUi(browser, server);
    const person = await openUi(browser, server);
    let link = '';

    await t.test('an admin invites a person and sees the link once', async () => {
      await signInThroughUi(admin.page, 'admin@acme.test', password, '/settings/users');
      await admin.page.getByRole('heading', { name: 'Users' }).waitFor();
      await admin.page.getByRole('button', { name: 'Invite person' }).click();
      const dialog = admin.page.getByRole('dialog', { name: 'Invite a person' });
      await dialog.getByLabel('Email').fill('nina@acme.test');
      await dialog.getByLabel('Name', { exact: true }).fill('Nina Okafor');
      await dialog.getByRole('radio', { name: /viewer/ }).check();
      await dialog.getByRole('button', { name: 'Invite' }).click();
      const shown = admin.page.getByRole('dialog', { name: 'Invitation link' });
      link = await shown.getByTestId('one-time-link').innerText();
      assert.match(link, /\/set-password#code=slc_\w+$/);
      await screenshot(admin.page, 'users-invitation');
      await shown.getByRole('button', { name: 'Done' }).click();
      const row = admin.page.getByRole('row', { name: /Nina Okafor/ });
      assert.match(await row.innerText(), /viewer[\s\S]*invited/);
    });

    await t.test('the person sets a password with the link, signed out, and signs in', async () => {
      await person.page.goto(link);
      await person.page.getByText('nina@acme.test').waitFor();
      await person.page.getByLabel('New password').fill(NEW_PASSWORD);
      await person.page.getByLabel('Repeat it').fill(NEW_PASSWORD);
      await person.page.getByRole('button', { name: 'Set password' }).click();
      await person.page.getByText('Your password is set').waitFor();
      await person.page.getByRole('link', { name: 'Sign in' }).click();
      await signInThroughUi(person.page, 'nina@acme.test', NEW_PASSWORD, '/settings/security');
      await person.page.getByRole('heading', { name: 'Security' }).waitFor();
      await person.page.getByText('This browser').waitFor();
    });

    await t.test('the person ends another of their sessions under Security', async () => {
      const second = await openUi(browser, server);
      await signInThroughUi(second.page, 'nina@acme.test', NEW_PASSWORD, '/settings/security');
      await person.page.reload();
      const table = person.page.getByRole('table', { name: 'Your sessions' });
      await until(async () => (await table.getByRole('row').count()) === 3, 'both sessions are listed');
      await table.getByRole('button', { name: /End session/ }).click();
      await until(async () => (await table.getByRole('row').count()) === 2, 'the other session is gone');
      await second.page.reload();
      await second.page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      await second.context.close();
    });

    await t.test('disabling signs the person out at once; enabling lets them back', async () => {
      await admin.page.reload();
      const row = admin.page.getByRole('row', { name: /Nina Okafor/ });
      assert.match(await row.innerText(), /active/);
      await row.getByRole('button', { name: 'Disable' }).click();
      await admin.page.getByRole('dialog', { name: 'Disable person' }).getByRole('button', { name: 'Disable' }).click();
      await until(async () => (await row.innerText()).includes('disabled'), 'the row says disabled');
      await person.page.reload();
      await person.page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();

      await row.getByRole('button', { name: 'Enable' }).click();
      await until(async () => (await row.innerText()).includes('active'), 'the row says active');
      await signInThroughUi(person.page, 'nina@acme.test', NEW_PASSWORD);
      await screenshot(admin.page, 'users-page');
      assertCleanPage(admin);
      assertCleanPage(person);
    });
  }),
);
