import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../config/config.js';
import { hashPassword, setPasswordHashCost, verifyPassword } from './password.js';

test('new hashes use scrypt with N = 2^15 unless --password-hash-cost says otherwise', async (t) => {
  t.after(() => setPasswordHashCost(loadConfig({}, {}).passwordHashCost));
  assert.equal(loadConfig({}, {}).passwordHashCost, 15);
  setPasswordHashCost(loadConfig({}, {}).passwordHashCost);
  const strong = await hashPassword('correct horse battery staple');
  assert.match(strong, /^scrypt\$32768\$8\$1\$/);

  setPasswordHashCost(loadConfig({}, { SIGHTLINE_PASSWORD_HASH_COST: '10' }).passwordHashCost);
  const light = await hashPassword('correct horse battery staple');
  assert.match(light, /^scrypt\$1024\$8\$1\$/);
  // Each hash names its own factor: both verify whatever the current one is.
  assert.equal(await verifyPassword('correct horse battery staple', strong), true);
  assert.equal(await verifyPassword('correct horse battery staple', light), true);
  assert.equal(await verifyPassword('correct horse battery stapler', light), false);
});

test('the work factor is bounded: below 10 or above 20 is a configuration error', () => {
  for (const bad of ['9', '21', 'fast']) {
    assert.throws(() => loadConfig({}, { SIGHTLINE_PASSWORD_HASH_COST: bad }), /SIGHTLINE_PASSWORD_HASH_COST/);
  }
});
