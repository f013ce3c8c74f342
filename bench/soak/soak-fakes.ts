// The outside services bench:soak's server talks to, on this machine: a model provider speaking
// the OpenAI Chat Completions API (the tests' fake, answering with a summary that has every
// section and cites the case's own observations, after a model-like pause) and an HTTPS webhook
// receiver answering 204, with a self-signed certificate the server is told to trust.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startFakeLlm, openAiCompletion, type FakeLlm } from '../../test/helpers/fake-llm.js';
import { SECTIONS } from '../../src/summaries/sections.js';

/** How long the mock model takes to answer. */
const MODEL_DELAY_MS = 300;

/** A summary of the case the prompt describes: its observations cited where they fit. */
function summaryOf(prompt: string): string {
  const observations = [...new Set(prompt.match(/obs_[A-Za-z0-9]{1,40}/g) ?? [])].slice(0, 3);
  const cite = observations.map((id) => `[${id}]`).join(' ');
  const body: Record<string, string> = {
    overview: `SQL injection attempts against a web host ${cite}.`,
    timeline: `- requests with \`UNION SELECT\` in the query ${cite}`,
    affected: '- the web host named in the case',
    techniques: '- T1190 Exploit Public-Facing Application',
    evidence: `- web access log lines ${cite}`,
    next_steps: '- Review the application logs; block the source address.',
  };
  return SECTIONS.map((section) => `## ${section.heading}\n${body[section.key] ?? ''}`).join('\n\n');
}

export async function startModel(): Promise<FakeLlm> {
  return startFakeLlm({
    kind: 'openai',
    respond: (request) => {
      // Only what a soak needs of each request: it is answered, not kept.
      const prompt = JSON.stringify(request.body?.messages ?? '');
      request.body = null;
      return { body: openAiCompletion({ text: summaryOf(prompt), model: 'soak-mock' }), delayMs: MODEL_DELAY_MS };
    },
  });
}

export interface Receiver {
  url: string;
  /** The certificate, for --webhook-ca-file. */
  caFile: string;
  /** Deliveries received since the last call. */
  take(): number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<Receiver> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-soak-receiver-'));
  const [cert, key] = [path.join(dir, 'cert.pem'), path.join(dir, 'key.pem')];
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2'],
      ...['-subj', '/CN=Sightline soak receiver', '-addext', 'subjectAltName=IP:127.0.0.1'],
      ...['-addext', 'basicConstraints=critical,CA:TRUE', '-keyout', key, '-out', cert],
    ],
    { stdio: 'ignore' },
  );
  let received = 0;
  const server = https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, (request, response) => {
    request.resume();
    request.on('end', () => {
      received++;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/hooks`,
    caFile: cert,
    take: () => {
      const count = received;
      received = 0;
      return count;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
