// The second factor's secrets: codes checked against RFC 4226's published values with one step
// of drift either way, the secret's encryption refusing a tampered value or another key, and
// recovery codes read back whatever their case and spacing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import {
  decryptSecret,
  encryptSecret,
  matchingStep,
  newRecoveryCodes,
  otpauthUri,
  recoveryCodeHash,
} from './second-factor-codes.js';

const rfcSecret = Buffer.from('12345678901234567890', 'ascii');
/** RFC 4226 Appendix D: the HOTP value of counter 1 (a TOTP code of step 1). */
const stepOneCode = '287082';
const inStep = (step: number) => step * 30_000 + 10_000;

test('a code matches its own step and one step either side of the clock, no further', () => {
  assert.equal(matchingStep(rfcSecret, stepOneCode, inStep(1)), 1);
  assert.equal(matchingStep(rfcSecret, stepOneCode, inStep(0)), 1, 'the phone runs a step ahead');
  assert.equal(matchingStep(rfcSecret, stepOneCode, inStep(2)), 1, 'the phone runs a step behind');
  assert.equal(matchingStep(rfcSecret, stepOneCode, inStep(3)), undefined);
  assert.equal(matchingStep(rfcSecret, '000000', inStep(1)), undefined);
});

test('the otpauth URI names the parameters authenticator apps need', () => {
  const uri = new URL(otpauthUri(rfcSecret, 'ana@acme.test'));
  assert.equal(uri.searchParams.get('secret'), 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
  assert.equal(uri.searchParams.get('issuer'), 'Sightline');
  assert.equal(uri.searchParams.get('algorithm'), 'SHA1');
});

test('the encrypted secret reads back with its key only, and a changed byte is refused', () => {
  const key = crypto.randomBytes(32);
  const stored = encryptSecret(key, rfcSecret);
  assert.ok(!stored.includes(rfcSecret.toString('base64url')));
  assert.notEqual(encryptSecret(key, rfcSecret), stored, 'a fresh IV each time');
  assert.deepEqual(decryptSecret(key, stored), rfcSecret);
  assert.throws(() => decryptSecret(crypto.randomBytes(32), stored));
  const [iv, tag, ciphertext] = stored.split('.') as [string, string, string];
  const flipped = Buffer.from(ciphertext, 'base64url');
  flipped[0] = flipped[0]! ^ 1;
  assert.throws(() => decryptSecret(key, [iv, tag, flipped.toString('base64url')].join('.')));
});

test('recovery codes are ten distinct xxxxx-xxxxx codes, read back in any case and spacing', () => {
  const codes = newRecoveryCodes();
  assert.equal(new Set(codes).size, 10);
  for (const code of codes) assert.match(code, /^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/);
  assert.equal(recoveryCodeHash('ab1c0-de2f3'), recoveryCodeHash(' AB1C0 DE2F3 '));
  assert.equal(recoveryCodeHash('ab1c0-de2f3'), recoveryCodeHash('abIcO-de2f3'), 'I and O read as 1 and 0');
  assert.notEqual(recoveryCodeHash('ab1c0-de2f3'), recoveryCodeHash('ab1c0-de2f4'));
});
