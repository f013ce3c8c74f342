// Where deliveries may go: addresses refused by kind (private, link-local metadata, loopback
// unless allowed, unique-local, IPv4-compatible, NAT64) and allowed by the operator's ranges; a
// name resolving to any refused address is refused at delivery time, without saying what it
// resolved to; and the connection goes to the address that was checked — a name no resolver
// knows reaches a real HTTPS receiver through the pin alone.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { AddressRefused, checkTargetUrl, pinAddress, refusal, type TargetPolicy } from './webhook-target.js';
import { sendAttempt } from './webhook-sender.js';
import { AppError } from '../core/errors.js';
import { startReceiver } from '../../test/helpers/webhook-receiver.js';

const publicOnly: TargetPolicy = { allowLoopback: false, allowedNetworks: [] };

test('only public unicast addresses pass unless the operator allows loopback or a range', () => {
  assert.equal(refusal('93.184.216.34', publicOnly), undefined);
  assert.equal(refusal('2606:2800:220:1:248:1893:25c8:1946', publicOnly), undefined);
  for (const [address, kind] of [
    ['10.0.0.5', /private/],
    ['192.168.1.1', /private/],
    ['172.16.0.1', /private/],
    ['169.254.169.254', /link-local/],
    ['127.0.0.1', /loopback/],
    ['::1', /loopback/],
    ['::ffff:127.0.0.1', /loopback/],
    ['::ffff:169.254.169.254', /link-local/],
    ['fd00:ec2::254', /uniqueLocal/],
    ['100.100.100.200', /carrierGradeNat/],
    ['0.0.0.0', /unspecified/],
    ['64:ff9b::a00:1', /rfc6052/],
    ['::7f00:1', /IPv4-compatible/],
    ['::a9fe:a9fe', /IPv4-compatible/],
    ['::1:2', /IPv4-compatible/],
    ['4000::1', /unassigned/],
  ] as const) {
    assert.match(refusal(address, publicOnly) ?? 'allowed', kind, address);
  }
  assert.equal(refusal('127.0.0.1', { allowLoopback: true, allowedNetworks: [] }), undefined);
  assert.equal(refusal('10.20.3.4', { allowLoopback: false, allowedNetworks: ['10.20.0.0/16'] }), undefined);
  assert.match(refusal('10.21.3.4', { allowLoopback: false, allowedNetworks: ['10.20.0.0/16'] }) ?? '', /private/);
});

test('URLs: https only; http only to loopback when allowed; literal addresses checked when saved', () => {
  const refused = (url: string, policy = publicOnly) =>
    assert.throws(
      () => checkTargetUrl(url, policy),
      (error) => error instanceof AppError,
      url,
    );
  refused('http://93.184.216.34/hook');
  refused('ftp://example.com/hook');
  refused('https://127.0.0.1/hook');
  refused('https://localhost/hook');
  refused('http://localhost:8080/hook');
  refused('https://[::ffff:a9fe:a9fe]/hook');
  refused('https://[::a9fe:a9fe]/hook');
  refused('http://[::7f00:1]:8080/hook', { allowLoopback: true, allowedNetworks: [] });
  assert.equal(
    checkTargetUrl('http://127.0.0.1:9/hook', { allowLoopback: true, allowedNetworks: [] }).host,
    '127.0.0.1:9',
  );
  refused('http://10.0.0.5/hook', { allowLoopback: true, allowedNetworks: ['10.0.0.0/8'] });
  assert.equal(checkTargetUrl('https://soar.example.com/hook', publicOnly).hostname, 'soar.example.com');
});

test('at delivery, a name is refused when any of its addresses is refused, and what it resolved to stays unsaid', async () => {
  const resolver = (answers: string[]) => () => Promise.resolve(answers);
  const url = new URL('https://hooks.example.com/x');
  assert.equal(await pinAddress(url, publicOnly, resolver(['93.184.216.34'])), '93.184.216.34');
  await assert.rejects(pinAddress(url, publicOnly, resolver(['93.184.216.34', '10.0.0.5'])), AddressRefused);
  for (const internal of ['169.254.169.254', '10.0.0.5', 'fd00:ec2::254', '::a9fe:a9fe']) {
    await assert.rejects(pinAddress(url, publicOnly, resolver([internal])), (error: Error) => {
      assert.ok(error instanceof AddressRefused);
      assert.match(error.message, /^hooks\.example\.com resolves to an address that is not public/);
      assert.ok(!error.message.includes(internal), error.message);
      return true;
    });
  }
  // An address typed in the URL is the caller's own: the refusal may name it.
  await assert.rejects(pinAddress(new URL('https://10.0.0.5/x'), publicOnly, resolver([])), /10\.0\.0\.5 is a private/);
});

test('the connection goes to the checked address, with TLS verified against the host name', async () => {
  const receiver = await startReceiver(() => 204);
  after(() => receiver.close());
  const policy = { allowLoopback: true, allowedNetworks: [] };
  // webhook.test exists in no DNS: only the pin can take the request to the receiver.
  const url = new URL(`https://webhook.test:${receiver.port}/hooks`);
  const address = await pinAddress(url, policy, () => Promise.resolve(['127.0.0.1']));
  const extraCa = fs.readFileSync(receiver.caFile, 'utf8');
  const sent = await sendAttempt(
    url,
    address,
    '{}',
    { 'content-type': 'application/json' },
    { timeoutMs: 5_000, extraCa },
  );
  assert.equal(sent.status, 204, sent.error);
  assert.equal(receiver.received[0]?.headers.host, `webhook.test:${receiver.port}`);
  // Without the receiver's CA the certificate is not trusted.
  const untrusted = await sendAttempt(url, address, '{}', {}, { timeoutMs: 5_000 });
  assert.equal(untrusted.status, undefined);
  assert.match(untrusted.error ?? '', /certificate/);
});
