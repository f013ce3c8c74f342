// Observable values in their one spelling: addresses canonical (RFC 5952 for IPv6, IPv4-mapped
// as IPv4), domains in lower-case ASCII, hashes in lower-case hex, Windows paths without case,
// values bounded in bytes; what is not a value of its type is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { automaticTags, normaliseObservable, OBSERVABLE_LIMITS, truncateUtf8 } from './observable-values.js';

test('addresses: IPv4 as written, IPv6 compressed in lower case, brackets and zones dropped', () => {
  const cases: [string, string | undefined][] = [
    ['203.0.113.44', '203.0.113.44'],
    [' 203.0.113.44 ', '203.0.113.44'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['0:0:0:0:0:0:0:0', '::'],
    ['::ffff:10.0.0.1', '10.0.0.1'],
    ['[fe80::1%eth0]', 'fe80::1'],
    ['010.1.1.1', undefined],
    ['256.1.1.1', undefined],
    ['1:2:3:4:5:6:7:8::9', undefined],
    ['example.com', undefined],
    ['-', undefined],
  ];
  for (const [raw, expected] of cases) assert.equal(normaliseObservable('ip', raw), expected, raw);
});

test('private, loopback and link-local addresses are tagged internal; public and documentation ones are not', () => {
  assert.deepEqual(automaticTags('ip', '10.1.2.3'), ['internal']);
  assert.deepEqual(automaticTags('ip', '127.0.0.1'), ['internal']);
  assert.deepEqual(automaticTags('ip', 'fe80::1'), ['internal']);
  assert.deepEqual(automaticTags('ip', '203.0.113.44'), []);
  assert.deepEqual(automaticTags('ip', '8.8.8.8'), []);
  assert.deepEqual(automaticTags('domain', 'corp.local'), []);
});

test('domains: lower case, no trailing dot, punycode; not an address, not one label', () => {
  assert.equal(normaliseObservable('domain', 'Evil.Example.COM.'), 'evil.example.com');
  assert.equal(normaliseObservable('domain', 'Bücher.example'), 'xn--bcher-kva.example');
  assert.equal(normaliseObservable('domain', '_ldap._tcp.corp.example'), '_ldap._tcp.corp.example');
  for (const raw of ['localhost', '10.0.0.1', 'a..example', '-bad.example', 'x.123', 'has space.example'])
    assert.equal(normaliseObservable('domain', raw), undefined, raw);
});

test('URLs: absolute web and FTP ones, scheme and host in lower case, no password', () => {
  assert.equal(normaliseObservable('url', 'HTTP://Evil.Example:80/a?b=1'), 'http://evil.example/a?b=1');
  assert.equal(normaliseObservable('url', 'https://bob:hunter2@files.example/x'), 'https://bob@files.example/x');
  assert.equal(normaliseObservable('url', '/products.php?id=1'), undefined);
  assert.equal(normaliseObservable('url', 'javascript:alert(1)'), undefined);
  const long = normaliseObservable('url', `https://example.com/${'a'.repeat(3000)}`);
  assert.equal(Buffer.byteLength(long ?? ''), OBSERVABLE_LIMITS.valueBytes, 'cut at the bound');
});

test('hashes: lower-case hex of the right length, never all zeros', () => {
  assert.equal(normaliseObservable('md5', '0123456789ABCDEF0123456789ABCDEF'), '0123456789abcdef0123456789abcdef');
  assert.equal(normaliseObservable('sha1', 'a'.repeat(40)), 'a'.repeat(40));
  assert.equal(normaliseObservable('sha256', 'F'.repeat(64)), 'f'.repeat(64));
  assert.equal(normaliseObservable('sha256', '0'.repeat(64)), undefined);
  assert.equal(normaliseObservable('md5', 'g'.repeat(32)), undefined);
  assert.equal(normaliseObservable('sha1', 'a'.repeat(32)), undefined);
});

test('accounts: emails and user names in lower case; placeholders and Windows service accounts are not users', () => {
  assert.equal(normaliseObservable('email', 'Alice@Example.COM'), 'alice@example.com');
  assert.equal(normaliseObservable('email', 'not an email'), undefined);
  assert.equal(normaliseObservable('user', 'CORP\\Bob'), 'corp\\bob');
  for (const raw of ['-', 'NT AUTHORITY\\SYSTEM', 'SYSTEM', '', 'n/a'])
    assert.equal(normaliseObservable('user', raw), undefined, raw);
});

test('process paths: Windows ones without case, POSIX ones as written; relative paths are not', () => {
  assert.equal(
    normaliseObservable('process_path', 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\PowerShell.exe'),
    'c:\\windows\\system32\\windowspowershell\\v1.0\\powershell.exe',
  );
  assert.equal(normaliseObservable('process_path', '/usr/bin/Curl'), '/usr/bin/Curl');
  assert.equal(normaliseObservable('process_path', 'powershell.exe'), undefined);
});

test('command lines are cut at 1 KiB on a character boundary; NUL is dropped', () => {
  const line = `cmd.exe /c ${'é'.repeat(2000)}`;
  const cut = normaliseObservable('command_line', line) ?? '';
  assert.ok(Buffer.byteLength(cut) <= OBSERVABLE_LIMITS.valueBytes);
  assert.ok(line.startsWith(cut) && !cut.endsWith('\uFFFD'));
  assert.equal(normaliseObservable('command_line', 'whoami\u0000 /all'), 'whoami /all');
  assert.equal(truncateUtf8('short'), 'short');
});
