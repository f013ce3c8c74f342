// Passwords a guesser tries first are refused, however long; passphrases pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { weakPasswordReason } from './password-strength.js';

test('common, patterned and personal passwords are refused; passphrases pass', () => {
  for (const common of ['Password1234', 'qwertyuiop12', '123456789012', 'iloveyou1234'])
    assert.match(weakPasswordReason(common) ?? '', /common passwords|easy to guess/, common);
  for (const patterned of ['aaaaaaaaaaaa', 'abcdefghijkl', 'summer2026summer2026'])
    assert.match(weakPasswordReason(patterned) ?? '', /easy to guess/, patterned);
  // The account's own email and name count as words a guesser knows.
  assert.equal(weakPasswordReason('Gwendolyn.Acme'), undefined);
  assert.match(weakPasswordReason('Gwendolyn.Acme', ['gwendolyn@acme.example']) ?? '', /easy to guess/);
  for (const strong of ['correct horse battery staple', 'a long enough test password', 'x7#Qm2!vR9pL'])
    assert.equal(weakPasswordReason(strong), undefined, strong);
});
