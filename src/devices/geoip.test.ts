// Address scopes and lookups in the bundled DB-IP City Lite database.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addressScope, MmdbGeoIp } from './geoip.js';

test('private and reserved ranges are labelled, never looked up', () => {
  const cases: [string, string][] = [
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['169.254.10.1', 'link_local'],
    ['100.64.0.1', 'shared'],
    ['198.18.3.3', 'benchmarking'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::1', 'loopback'],
    ['fd12:3456::1', 'unique_local'],
    ['fe80::1', 'link_local'],
    ['2001:db8::1', 'documentation'],
    ['::ffff:192.168.0.1', 'private'],
    ['8.8.8.8', 'public'],
    ['2a00:1450:4001::1', 'public'],
  ];
  for (const [ip, scope] of cases) assert.equal(addressScope(ip), scope, ip);
  assert.equal(addressScope('not-an-ip'), undefined);
  const geo = MmdbGeoIp.bundled();
  assert.deepEqual(geo.locate('10.0.0.5'), { scope: 'private', countryCode: null, country: null, city: null });
});

test('public IPv4 and IPv6 addresses get country and city from the bundled database', () => {
  const geo = MmdbGeoIp.bundled();
  assert.deepEqual(geo.locate('81.2.69.142'), {
    scope: 'public',
    countryCode: 'GB',
    country: 'United Kingdom',
    city: 'London',
  });
  const v6 = geo.locate('2a00:1450:4001::1');
  assert.equal(v6.countryCode, 'DE');
  assert.equal(v6.country, 'Germany');
  assert.equal(v6.city, 'Frankfurt am Main');
});
