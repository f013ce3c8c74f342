// A real HTTPS webhook receiver for tests: a self-signed certificate for 127.0.0.1, localhost
// and webhook.test made with the openssl CLI (its PEM is the CA file the server is told to
// trust), every request kept with its headers and body, and an answer chosen per request so a
// test can fail deliveries on purpose.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { tempDir } from './databases.js';

export interface Received {
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** What to do with request number `n` (1-based): answer a status, or never answer. */
export type Answer = (n: number, request: Received) => number | 'hang';

export interface WebhookReceiver {
  url: string;
  port: number;
  /** The certificate's PEM file, to pass as --webhook-ca-file. */
  caFile: string;
  received: Received[];
  answer: Answer;
  /** Resolves once `count` requests arrived (fails after timeoutMs). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A self-signed certificate (also its own CA) in a fresh directory. */
export function selfSignedCertificate(): { dir: string; cert: string; key: string } {
  const dir = tempDir('sightline-webhook-cert-');
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
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
      '2',
      '-subj',
      '/CN=Sightline test receiver',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:webhook.test',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { dir, cert, key };
}

/** A receiver on a free loopback port, serving `certificate` (made here when not given, removed on close). */
export async function startReceiver(
  answer: Answer = () => 204,
  certificate?: { cert: string; key: string },
): Promise<WebhookReceiver> {
  const made = certificate ? undefined : selfSignedCertificate();
  const { cert, key } = certificate ?? made!;
  const received: Received[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const receiver: Partial<WebhookReceiver> & { answer: Answer } = { answer };
  const server = https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const item: Received = {
        headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])),
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(item);
      const outcome = receiver.answer(received.length, item);
      if (outcome === 'hang') hanging.add(response);
      else response.writeHead(outcome).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(receiver, {
    url: `https://127.0.0.1:${port}/hooks`,
    port,
    caFile: cert,
    received,
    async waitFor(count: number, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline)
          throw new Error(`the receiver got ${received.length} requests, not ${count}, within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return received.slice(0, count);
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (made) fs.rmSync(made.dir, { recursive: true, force: true });
    },
  });
}
