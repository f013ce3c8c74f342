// Where deliveries may go: addresses refused by kind (private, link-local metadata, loopback
// unless allowed, unique-local, NAT64) and allowed by the operator's ranges; a name resolving to
// any refused address is refused at delivery time; and the connection goes to the address that
// was checked — a name no resolver knows reaches a real HTTPS receiver through the pin alone.
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
  assert.equal(
    checkTargetUrl('http://127.0.0.1:9/hook', { allowLoopback: true, allowedNetworks: [] }).host,
    '127.0.0.1:9',
  );
  refused('http://10.0.0.5/hook', { allowLoopback: true, allowedNetworks: ['10.0.0.0/8'] });
  assert.equal(checkTargetUrl('https://soar.example.com/hook', publicOnly).hostname, 'soar.example.com');
});

test('at delivery, a name is refused when any of its addresses is refused', async () => {
  const resolver = (answers: string[]) => () => Promise.resolve(answers);
  const url = new URL('https://hooks.example.com/x');
  assert.equal(await pinAddress(url, publicOnly, resolver(['93.184.216.34'])), '93.184.216.34');
  await assert.rejects(pinAddress(url, publicOnly, resolver(['93.184.216.34', '10.0.0.5'])), AddressRefused);
  await assert.rejects(pinAddress(url, publicOnly, resolver(['169.254.169.254'])), /link-local/);
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
