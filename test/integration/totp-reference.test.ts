// The tests' own TOTP implementation (test/helpers/totp.ts) agrees with RFC 6238 Appendix B
// (SHA-1 rows) and RFC 4226 Appendix D, so the second-factor suites check the server against
// the standard rather than against the library it uses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base32Decode, hotp, totpAt } from '../helpers/totp.js';

const rfcSecret = Buffer.from('12345678901234567890', 'ascii');

test('RFC 6238 Appendix B: the SHA-1 test vectors (8 digits)', () => {
  const vectors: [number, string][] = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ];
  for (const [seconds, expected] of vectors) assert.equal(totpAt(rfcSecret, seconds, 8), expected, `T=${seconds}`);
});

test('RFC 4226 Appendix D: HOTP values for counters 0 to 9 (6 digits)', () => {
  const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
  expected.forEach((code, counter) => assert.equal(hotp(rfcSecret, counter), code, `counter ${counter}`));
});

test('base32 decodes the RFC 4648 examples', () => {
  assert.equal(base32Decode('MZXW6YTBOI======').toString('ascii'), 'foobar');
  assert.equal(base32Decode('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ').toString('ascii'), '12345678901234567890');
});
