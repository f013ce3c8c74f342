import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolvePublicUrl } from './public-url.js';
import { loadConfig } from './load-config.js';

const base = { publicUrl: '', tlsCert: '', insecureHttp: false, baseDomain: 'localhost', port: 8080 };

test('the public URL is what the server listens on, unless set', () => {
  assert.equal(resolvePublicUrl(base), 'http://localhost:8080');
  assert.equal(resolvePublicUrl({ ...base, tlsCert: 'cert.pem', port: 8443 }), 'https://localhost:8443');
  assert.equal(
    resolvePublicUrl({ ...base, tlsCert: 'cert.pem', port: 443 }),
    'https://localhost',
    'the default port is left out',
  );
  // Plain HTTP on a routable address is allowed only behind a TLS proxy: its clients use 443.
  assert.equal(
    resolvePublicUrl({ ...base, insecureHttp: true, baseDomain: 'sightline.example' }),
    'https://sightline.example',
  );
  assert.equal(resolvePublicUrl({ ...base, publicUrl: 'https://logs.example:9443' }), 'https://logs.example:9443');
});

test('--public-url takes an origin only', () => {
  assert.equal(loadConfig({ publicUrl: 'https://Logs.Example:9443/' }, {}).publicUrl, 'https://logs.example:9443');
  for (const bad of ['ftp://logs.example', 'https://logs.example/path', 'https://user@logs.example', 'not a url'])
    assert.throws(() => loadConfig({ publicUrl: bad }, {}), /--public-url/, bad);
});
