// The rules a provider's claims must meet, and where a sign-in may send the browser back to.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { allowedEmail, claimedRole, isAcceptableEmail } from './sso-claims.js';
import { Sealer } from './sso-seal.js';
import { safeReturnPath } from './sso-sign-in.js';

const config = {
  domains: ['acme.example'],
  roleClaim: 'groups',
  mapping: { 'soc-admins': 'admin', 'soc-analysts': 'analyst' } as const,
  defaultRole: null,
};

describe('single sign-on claims', () => {
  test('only a verified email of an allowed domain itself is accepted, lower-cased', () => {
    assert.deepEqual(allowedEmail({ email: 'Ana@ACME.example', email_verified: true }, config), {
      email: 'ana@acme.example',
    });
    assert.deepEqual(allowedEmail({ email: 'ana@acme.example', email_verified: false }, config), {
      refusal: 'email_not_verified',
    });
    assert.deepEqual(allowedEmail({ email: 'ana@acme.example' }, config), { refusal: 'email_not_verified' });
    assert.deepEqual(allowedEmail({ email: 'ana@eu.acme.example', email_verified: true }, config), {
      refusal: 'domain_not_allowed',
    });
    assert.deepEqual(allowedEmail({ email: 'ana@acme.example.evil', email_verified: true }, config), {
      refusal: 'domain_not_allowed',
    });
  });

  test('an email is taken as invitations take it, and look-alikes are refused', () => {
    const verified = (email: string) => allowedEmail({ email, email_verified: true }, config);
    for (const email of [
      'ana@evil.example@acme.example',
      'an a@acme.example',
      '\u0430na@acme.example', // a Cyrillic 'а' among Latin letters
      'ana@\u0430cme.example',
      'ana\u200b@acme.example', // a zero-width space
      '\uff41na@acme.example', // a fullwidth 'ａ'
      'ana\u202e@acme.example', // a direction override
    ])
      assert.deepEqual(verified(email), { refusal: 'invalid_email' }, JSON.stringify(email));
    assert.ok(isAcceptableEmail('\u0438\u0432\u0430\u043d@acme.example'), 'one script per part: a Cyrillic name');
    assert.ok(isAcceptableEmail('\u5c71\u7530\u305f\u308d\u3046@acme.example'), 'Han with Hiragana');
    assert.ok(isAcceptableEmail('o.brien+soc@acme.example'));
  });

  test('the highest mapped role wins; the default applies only when nothing maps; none without a default', () => {
    assert.deepEqual(claimedRole({ groups: ['staff', 'soc-analysts', 'soc-admins'] }, config), {
      role: 'admin',
      mapped: true,
    });
    assert.deepEqual(claimedRole({ groups: 'soc-analysts' }, config), { role: 'analyst', mapped: true });
    assert.equal(claimedRole({ groups: ['staff'] }, config), undefined);
    assert.equal(claimedRole({ groups: ['toString', '__proto__'] }, config), undefined, 'no inherited keys map');
    assert.deepEqual(claimedRole({}, { ...config, defaultRole: 'viewer' }), { role: 'viewer', mapped: false });
  });

  test('a return path stays on this site', () => {
    assert.equal(safeReturnPath('/cases?status=open'), '/cases?status=open');
    for (const offSite of ['//evil.example', '/\\evil.example', 'https://evil.example', 'evil', '/\tx', undefined])
      assert.equal(safeReturnPath(offSite), '/', String(offSite));
  });

  test('a sealed value opens only with its key and for its purpose', () => {
    const sealer = new Sealer(randomBytes(32));
    const sealed = sealer.seal('client secret', 'tenant 1');
    assert.ok(!sealed.includes('client secret'));
    assert.equal(sealer.open(sealed, 'tenant 1'), 'client secret');
    assert.equal(sealer.open(sealed, 'tenant 2'), undefined);
    assert.equal(new Sealer(randomBytes(32)).open(sealed, 'tenant 1'), undefined);
    // One character of the authentication tag changed (the last character may carry only padding bits).
    const at = 20;
    const altered = `${sealed.slice(0, at)}${sealed[at] === 'A' ? 'B' : 'A'}${sealed.slice(at + 1)}`;
    assert.equal(sealer.open(altered, 'tenant 1'), undefined);
  });
});
