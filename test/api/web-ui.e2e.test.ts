// The web UI is served by the API's own server: the app at `/` and at every page path (deep
// links, reloads), hashed assets cached for good, strict security headers, and the API, the
// collector and the reference keep answering as themselves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { databaseTargets } from '../helpers/databases.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { webRoot } from '../../src/http/web-ui.js';

const built = fs.existsSync(path.join(webRoot, 'index.html'));
if (!built) throw new Error(`the web UI is not built in ${webRoot}: npm test builds it (npm run build:web)`);

async function withServer(run: (server: TestServer) => Promise<void>): Promise<void> {
  const database = await databaseTargets[0]!.create();
  const server = await startServer(database);
  try {
    await run(server);
  } finally {
    await server.close();
    await database.cleanup();
  }
}

const html = { accept: 'text/html,application/xhtml+xml' };

test('the app answers at / and at every page path, with security headers', async () => {
  await withServer(async (server) => {
    for (const page of [
      '/',
      '/cases',
      '/cases/42',
      '/settings/integrations/api',
      '/operator/tenants?x=1',
      '/set-password',
    ]) {
      const response = await fetch(`${server.baseUrl}${page}`, { headers: html });
      assert.equal(response.status, 200, page);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/, page);
      const body = await response.text();
      assert.match(body, /<div id="root"><\/div>/, `${page} is the app`);
      const csp = response.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'self'/, page);
      assert.match(csp, /script-src 'self'(;|$)/, `${page}: no inline or remote scripts`);
      assert.match(csp, /style-src 'self'(;|$)/, `${page}: no inline or remote styles`);
      assert.match(csp, /object-src 'none'/, page);
      assert.match(csp, /frame-ancestors 'none'/, page);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(
        response.headers.get('cache-control'),
        'no-cache',
        'the entry page is revalidated, so a new build shows at once',
      );
    }
  });
});

test('hashed assets are cached as immutable; missing files are 404 problems, not the app', async () => {
  await withServer(async (server) => {
    const index = await (await fetch(`${server.baseUrl}/`, { headers: html })).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(index)?.[1];
    assert.ok(script, 'the entry page loads a hashed script');
    const asset = await fetch(`${server.baseUrl}${script}`);
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get('content-type') ?? '', /javascript/);
    assert.match(asset.headers.get('cache-control') ?? '', /immutable/);

    const missing = await fetch(`${server.baseUrl}/assets/nothing-here.js`, { headers: html });
    assert.equal(missing.status, 404);
    assert.match(missing.headers.get('content-type') ?? '', /problem\+json/);
  });
});

test('API, collector and operations paths never answer with the app', async () => {
  await withServer(async (server) => {
    for (const pathname of ['/v1/nothing', '/v1', '/log_sink/extra', '/healthz/deeper', '/readyz/x']) {
      const response = await fetch(`${server.baseUrl}${pathname}`, { headers: html });
      assert.equal(response.status, 404, pathname);
      assert.match(response.headers.get('content-type') ?? '', /problem\+json/, pathname);
    }
    const lookalike = await fetch(`${server.baseUrl}/metricsboard`, { headers: html });
    assert.equal(lookalike.status, 200, 'a page path that merely starts like an operations path is a page');
    const api = await fetch(`${server.baseUrl}/cases`, { headers: { accept: 'application/json' } });
    assert.equal(api.status, 404, 'a script asking for JSON at a page path gets a problem, not HTML');
    const post = await fetch(`${server.baseUrl}/cases`, { method: 'POST', headers: html });
    assert.equal(post.status, 404, 'only GET and HEAD fall back to the app');
    const health = await fetch(`${server.baseUrl}/healthz`);
    assert.deepEqual(await health.json(), { status: 'ok' });
  });
});

test('the web UI (X-Requested-With) gets no Basic challenge, so the browser shows no sign-in prompt', async () => {
  await withServer(async (server) => {
    const plain = await fetch(`${server.baseUrl}/v1/me`);
    assert.equal(plain.status, 401);
    assert.match(plain.headers.get('www-authenticate') ?? '', /Basic realm=/, 'integrations still learn both schemes');
    const fromPage = await fetch(`${server.baseUrl}/v1/me`, { headers: { 'x-requested-with': 'sightline-web' } });
    assert.equal(fromPage.status, 401);
    const challenge = fromPage.headers.get('www-authenticate') ?? '';
    assert.match(challenge, /^Bearer realm=/);
    assert.doesNotMatch(challenge, /Basic/);
  });
});
