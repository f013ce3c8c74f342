// The cidr modifier's IPv4 arithmetic against Node's BlockList, the reference it stands in for:
// every network (IPv4, IPv6, IPv4-mapped IPv6) × every address must get BlockList's answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { ipv4Number, ipv6Bits } from './cidr.js';
import { compileItem, withFields } from './test-events.js';

const NETWORKS = [
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.1.7',
  '0.0.0.0/0',
  '10.1.2.3/8',
  '131.253.33.215/32',
  '::1/128',
  'fe80::/10',
  'fc00::/7',
  '2001:db8::/32',
  '::/0',
  '::/96',
  '::ffff:0:0/96',
  '::ffff:10.0.0.0/104',
  '::ffff:192.168.1.0/120',
  '::ffff:0a00:0/100',
  '0:0:0:0:0:ffff:ac10:0/108',
  '::fffe:0:0/95',
  '::ffff:0:0/97',
  '64:ff9b::/96',
];
const ADDRESSES = [
  '10.200.3.4',
  '11.0.0.1',
  '172.20.1.1',
  '172.32.0.1',
  '192.168.1.7',
  '192.168.1.200',
  '0.0.0.0',
  '127.0.0.1',
  '255.255.255.255',
  '131.253.33.215',
  '::1',
  'fe80::1',
  'FE80::1',
  'fd12:3456::1',
  '2001:db8:1::5',
  '::ffff:10.1.2.3',
  '::ffff:192.168.1.9',
  '::ffff:a01:203',
  '64:ff9b::a01:203',
  'not-an-ip',
  '10.0.0.1:443',
  '010.0.0.1',
  '',
];

test('cidr: every network and address as Node’s BlockList decides', () => {
  for (const network of NETWORKS) {
    const [address = '', bits] = network.split('/');
    const family = net.isIP(address) === 6 ? 'ipv6' : 'ipv4';
    const list = new net.BlockList();
    list.addSubnet(address, bits === undefined ? (family === 'ipv6' ? 128 : 32) : Number(bits), family);
    for (const text of ADDRESSES) {
      const kind = net.isIP(text);
      const expected = kind !== 0 && list.check(text, kind === 6 ? 'ipv6' : 'ipv4');
      const item = compileItem(`F|cidr: '${network}'`);
      assert.equal(item.match(withFields({ F: text })), expected, `${text} in ${network}`);
    }
  }
});

test('cidr: all networks, and any of several values', () => {
  const all = compileItem("F|cidr|all: ['10.0.0.0/8', '::ffff:10.1.0.0/112']");
  assert.equal(all.match(withFields({ F: '10.1.2.3' })), true);
  assert.equal(all.match(withFields({ F: '10.2.2.3' })), false);
  assert.equal(all.match(withFields({ F: ['10.2.2.3', '10.1.0.9'] })), true);
  const any = compileItem("F|cidr: ['fc00::/7', '192.168.0.0/16']");
  assert.equal(any.match(withFields({ F: ['8.8.8.8', 'fd00::1'] })), true);
  assert.equal(any.match(withFields({ F: ['8.8.8.8', 'fe80::1'] })), false);
});

test('cidr: address parsing helpers', () => {
  assert.equal(ipv4Number('10.0.0.1'), 167_772_161);
  assert.equal(ipv4Number('10.0.0.01'), undefined);
  assert.equal(ipv6Bits('::ffff:10.0.0.1'), (0xffffn << 32n) | 167_772_161n);
  assert.equal(ipv6Bits('fe80::1%eth0'), (0xfe80n << 112n) | 1n);
  assert.equal(ipv6Bits('1:2:3:4:5:6:7:8'), 0x00010002000300040005000600070008n);
});
