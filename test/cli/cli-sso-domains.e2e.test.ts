// `sightline sso-domain` as an operator uses it: the real command against a data directory
// approves a tenant's email domain, lists it, and withdraws it; a domain that is not one is
// refused. The API suite (sso-domains-api) shows single sign-on following these verifications.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { runCli } from '../helpers/cli.js';

// SQLite is enough here: the commands call the domain service, which the API suite runs on both.
const sqlite = databaseTargets.find((target) => target.kind === 'sqlite')!;

describe('sightline sso-domain', () => {
  let database: TestDatabase;
  let data: string[];

  before(async () => {
    database = await sqlite.create();
    data = ['--data', database.dataDir];
    assert.equal((await runCli(['tenant', 'create', 'acme', ...data])).code, 0);
  });
  after(() => database.cleanup());

  test('approve, list and withdraw a domain; nonsense and unknown tenants are refused', async () => {
    const approved = await runCli(['sso-domain', 'approve', 'ACME.example', '--tenant', 'acme', ...data]);
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal(approved.stdout, 'approved acme.example for tenant acme\n');
    const listed = await runCli(['sso-domain', 'list', '--tenant', 'acme', ...data]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^acme\.example\toperator\t\d{4}-\d\d-\d\dT[\d:.]+Z\n$/);

    const withdrawn = await runCli(['sso-domain', 'withdraw', 'acme.example', '--tenant', 'acme', ...data]);
    assert.equal(withdrawn.code, 0, withdrawn.stderr);
    assert.equal((await runCli(['sso-domain', 'list', '--tenant', 'acme', ...data])).stdout, '');
    const again = await runCli(['sso-domain', 'withdraw', 'acme.example', '--tenant', 'acme', ...data]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /not a verified domain/);
    const nonsense = await runCli(['sso-domain', 'approve', 'not a domain', '--tenant', 'acme', ...data]);
    assert.equal(nonsense.code, 1);
    assert.match(nonsense.stderr, /not a domain name/);
    const nobody = await runCli(['sso-domain', 'approve', 'acme.example', '--tenant', 'nosuch', ...data]);
    assert.equal(nobody.code, 1);
    assert.match(nobody.stderr, /nosuch/);
  });
});
