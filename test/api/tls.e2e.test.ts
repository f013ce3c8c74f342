// --tls-cert/--tls-key serve HTTPS: a client that verifies the certificate posts records, and
// every answer carries Strict-Transport-Security.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { databaseTargets } from '../helpers/databases.js';
import { startServer } from '../helpers/server.js';
import { appRecord } from '../helpers/factories.js';

test('with a certificate and key, the collector serves HTTPS to a verifying client', async () => {
  const database = await databaseTargets[0]!.create();
  const cert = path.join(database.dataDir, 'cert.pem');
  const key = path.join(database.dataDir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=demo-collector.localhost',
      '-addext',
      'subjectAltName=DNS:demo-collector.localhost,IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  const server = await startServer(database, { tlsCert: cert, tlsKey: key });
  try {
    const port = new URL(server.baseUrl).port;
    const answer = await new Promise<{ status: number; hsts: string | undefined }>((resolve, reject) => {
      const request = https.request(
        {
          host: '127.0.0.1',
          port,
          path: '/log_sink',
          method: 'POST',
          ca: fs.readFileSync(cert),
          headers: { 'content-type': 'application/json' },
        },
        (response) => {
          response.resume();
          const hsts = response.headers['strict-transport-security'];
          resolve({ status: response.statusCode ?? 0, hsts });
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify(appRecord()));
    });
    assert.equal(answer.status, 201);
    // Over HTTPS, browsers are told to keep to HTTPS (HSTS) on every answer.
    assert.equal(answer.hsts, 'max-age=31536000');
    await assert.rejects(fetch(`${server.baseUrl}/healthz`), 'plain HTTP is not served on the TLS port');
  } finally {
    await server.close();
    await database.cleanup();
  }
});
