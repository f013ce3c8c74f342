// The Splunk HEC intake through Splunk's own Node client (splunk-logging) and plain HTTP, on a
// real server over each database: batched events stored one record each with their metadata
// under `hec`, a Sysmon event sent as an HEC event detected as if sent to /log_sink, the raw
// endpoint with its channel, the health probe, and every refusal in HEC's own shape and status.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { databaseTargets } from '../helpers/databases.js';
import { apiClient, bearer, detectionCaughtUp, issueToken, type ApiClient } from '../helpers/api.js';
import { apiSuite } from '../helpers/suite.js';
import { searchAll } from '../helpers/telemetry.js';
import { appRecord } from '../helpers/factories.js';
import { winlogbeatSysmonProcessCreation } from '../helpers/windows-events.js';

/** The parts of splunk-logging's Logger this suite drives (the package ships no types). */
interface SplunkLogger {
  requestOptions: { headers?: Record<string, string> };
  eventFormatter: (message: unknown, severity: string) => unknown;
  error: (error: Error) => void;
  send(context: { message: unknown; metadata?: Record<string, unknown> }): void;
  flush(callback: (error: Error | null, response: { statusCode: number }, body: unknown) => void): void;
}
const { Logger } = createRequire(import.meta.url)('splunk-logging') as {
  Logger: new (config: Record<string, unknown>) => SplunkLogger;
};

interface HecReply {
  text: string;
  code: number;
  'invalid-event-number'?: number;
  detail?: string;
}

const ENCODED_POWERSHELL =
  'powershell.exe -NoP -W Hidden -enc SQBFAFgAIAAoAE4AZQB3AC0ATwBiAGoAZQBjAHQAIABOAGUAdAAuAFcAZQBiAEMAbABpAGUAbgB0ACkA';
const CHANNEL = '0aeeac95-ac74-4aa9-b30d-6c4c0ac581ba';

for (const target of databaseTargets) {
  describe(`Splunk HEC intake on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let reader: ApiClient;
    let globexKey: string;

    /** POSTs to a tenant's collector address; the answer with its HEC body parsed. */
    const hec = async (path: string, body: string | Buffer, headers: Record<string, string> = {}, tenant = 'acme') => {
      const response = await suite.server.post(body, { host: `${tenant}-collector.localhost`, ...headers }, path);
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: JSON.parse(text) as HecReply };
    };
    const expectHec = (
      answer: { status: number; body: HecReply },
      status: number,
      code: number,
      text: string,
    ): HecReply => {
      assert.equal(answer.status, status, JSON.stringify(answer.body));
      assert.equal(answer.body.code, code, JSON.stringify(answer.body));
      assert.equal(answer.body.text, text);
      return answer.body;
    };
    const found = async (filters: Record<string, unknown>) => (await searchAll(reader, { filters })).records;

    /** A splunk-logging Logger sending to acme's collector, batching until flushed. */
    const splunkLogger = (token = 'not-needed') => {
      const logger = new Logger({ token, url: suite.server.baseUrl, maxBatchCount: 0, maxRetries: 0 });
      // The collector names the tenant by Host; *.localhost does not resolve in every resolver.
      logger.requestOptions.headers = { host: 'acme-collector.localhost' };
      logger.error = (error) => assert.fail(`splunk-logging reported ${error.message}`);
      return logger;
    };
    const flush = (logger: SplunkLogger) =>
      new Promise<{ status: number; body: unknown }>((resolve, reject) => {
        logger.flush((error, response, body) =>
          error ? reject(error) : resolve({ status: response.statusCode, body }),
        );
      });

    before(async () => {
      reader = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, ['telemetry:read'])).value));
      const globexAdmin = apiClient(suite.server, bearer((await issueToken(suite.server, suite.globex)).value));
      const created = await globexAdmin.post<{ value: string }>('/v1/ingest-keys', { name: 'HEC senders' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      globexKey = created.body.value;
      const policy = { body: { require_ingest_key: true } };
      assert.equal((await globexAdmin.request('PUT', '/v1/collector/ingest-key-policy', policy)).status, 200);
    });

    test('splunk-logging batches are stored one record per event, metadata under hec, time from HEC', async () => {
      const logger = splunkLogger();
      const first = appRecord();
      const second = appRecord();
      const metadata = { host: 'web-07', source: '/var/log/checkout.log', sourcetype: '_json', index: 'prod' };
      logger.send({ message: first, metadata: { ...metadata, time: 1_790_000_000.25 } });
      logger.send({ message: second, metadata });
      const answer = await flush(logger);
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, { text: 'Success', code: 0 });

      const [stored] = await found({ 'message.marker': first.marker });
      assert.ok(stored, 'the first event is stored');
      // splunk-logging wraps the message with its severity: that object is the record.
      assert.deepEqual(stored.record, {
        message: first,
        severity: 'info',
        hec: { ...metadata, time: '1790000000.250' },
      });
      assert.equal(stored.event_time, new Date(1_790_000_000_250).toISOString());
      assert.equal((await found({ 'message.marker': second.marker, 'hec.host': 'web-07' })).length, 1);
    });

    test('concatenated events with fields, a text event, a JSON text event and query defaults', async () => {
      const marker = randomUUID();
      const body =
        `{"event":{"marker":"${marker}","n":18446744073709551615},"fields":{"team":"payments","ids":[1,2]},"time":"1790000000"}` +
        `\n\n  {"event":"login failed for ${marker}","sourcetype":"auth"}` +
        `{"event":"{\\"marker\\":\\"${marker}\\",\\"kind\\":\\"json-text\\"}","host":"db-1"}`;
      expectHec(await hec('/services/collector?source=batch-job', body), 200, 0, 'Success');

      const objects = await found({ marker });
      assert.equal(objects.length, 2);
      const withFields = objects.find((entry) => entry.record.n !== undefined);
      assert.deepEqual(withFields?.record.hec, {
        source: 'batch-job',
        fields: { team: 'payments', ids: [1, 2] },
        time: '1790000000',
      });
      const fromText = objects.find((entry) => entry.record.kind === 'json-text');
      assert.deepEqual(fromText?.record.hec, { host: 'db-1', source: 'batch-job' });
      const [plain] = await found({ 'hec.sourcetype': 'auth', 'hec.source': 'batch-job' });
      assert.equal(plain?.record.message, `login failed for ${marker}`);
    });

    test('a Sysmon process creation sent as an HEC event fires the same rules as through /log_sink', async () => {
      const logger = splunkLogger();
      logger.eventFormatter = (message) => message;
      const sysmon = winlogbeatSysmonProcessCreation(
        'WS-HEC-01',
        'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe',
        ENCODED_POWERSHELL,
      );
      logger.send({ message: sysmon, metadata: { sourcetype: 'XmlWinEventLog:Microsoft-Windows-Sysmon/Operational' } });
      assert.equal((await flush(logger)).status, 200);
      await detectionCaughtUp(suite.server);

      const observations = apiClient(
        suite.server,
        bearer((await issueToken(suite.server, suite.acme, ['observations:read'])).value),
      );
      const listed = await observations.get<{ observations: { host: string; rule: { title: string } }[] }>(
        '/v1/observations?limit=100',
      );
      const onHost = listed.body.observations.filter((observation) => observation.host.toLowerCase() === 'ws-hec-01');
      assert.ok(
        onHost.length > 0,
        `an observation on the Sysmon host; got ${JSON.stringify(listed.body.observations.map((o) => o.rule.title))}`,
      );
    });

    test('raw: one event per line, metadata from the query, a channel required', async () => {
      const marker = randomUUID();
      const lines = `Oct 11 22:14:15 web-07 sshd[4721]: Failed password for root ${marker}\r\n\n{"marker":"${marker}","kind":"raw-json"}\n`;
      const query = `channel=${CHANNEL}&host=web-07&sourcetype=syslog&index=linux`;
      expectHec(await hec(`/services/collector/raw?${query}`, lines), 200, 0, 'Success');
      const stored = await found({ 'hec.sourcetype': 'syslog', 'hec.index': 'linux' });
      assert.ok(
        stored.some(
          (entry) => entry.record.message === `Oct 11 22:14:15 web-07 sshd[4721]: Failed password for root ${marker}`,
        ),
      );
      assert.ok(stored.some((entry) => entry.record.marker === marker && entry.record.kind === 'raw-json'));

      expectHec(
        await hec('/services/collector/raw', 'a line\n', { 'x-splunk-request-channel': CHANNEL }),
        200,
        0,
        'Success',
      );
      const missing = expectHec(await hec('/services/collector/raw', 'a line\n'), 400, 10, 'Data channel is missing');
      assert.match(missing.detail ?? '', /channel/);
      expectHec(await hec('/services/collector/raw?channel=nope', 'a line\n'), 400, 11, 'Invalid data channel');
    });

    test('health answers as HEC does, without a key', async () => {
      for (const path of ['/services/collector/health', '/services/collector/health/1.0']) {
        const response = await fetch(`${suite.server.baseUrl}${path}`);
        assert.equal(response.status, 200);
        assert.deepEqual(await response.json(), { text: 'HEC is healthy', code: 17 });
      }
    });

    test('ingest keys: Splunk, Bearer and Basic schemes open a keyed tenant; refusals in HEC shape', async () => {
      const event = () => JSON.stringify({ event: appRecord() });
      const path = '/services/collector/event';
      expectHec(await hec(path, event(), { authorization: `Splunk ${globexKey}` }, 'globex'), 200, 0, 'Success');
      expectHec(await hec(path, event(), { authorization: `Bearer ${globexKey}` }, 'globex'), 200, 0, 'Success');
      const basic = `Basic ${Buffer.from(`x:${globexKey}`).toString('base64')}`;
      expectHec(await hec(path, event(), { authorization: basic }, 'globex'), 200, 0, 'Success');

      const missing = await hec(path, event(), {}, 'globex');
      expectHec(missing, 401, 2, 'Token is required');
      assert.ok(missing.headers.get('www-authenticate'));
      expectHec(await hec(path, event(), { authorization: 'Splunk sli_wrong' }, 'globex'), 403, 4, 'Invalid token');
      // An address no tenant has answers as a keyed tenant does.
      expectHec(await hec(path, event(), {}, 'nobody'), 401, 2, 'Token is required');
      expectHec(await hec(path, event(), { authorization: 'Splunk x' }, 'nobody'), 403, 4, 'Invalid token');
      const query = await hec(`${path}?token=${globexKey}`, event(), {}, 'globex');
      expectHec(query, 400, 16, 'Query string authorization is not enabled');
    });

    test('bad bodies are refused whole, naming the event', async () => {
      const marker = randomUUID();
      const good = JSON.stringify({ event: { marker } });
      const path = '/services/collector/event';
      expectHec(await hec(path, ''), 400, 5, 'No data');
      expectHec(await hec(path, '  \n'), 400, 5, 'No data');
      const bad = expectHec(await hec(path, `${good}{"event":{"a":}}`), 400, 6, 'Invalid data format');
      assert.equal(bad['invalid-event-number'], 1);
      const noEvent = expectHec(await hec(path, `${good}${good}{"host":"h"}`), 400, 12, 'Event field is required');
      assert.equal(noEvent['invalid-event-number'], 2);
      const blank = expectHec(await hec(path, `{"event":""}${good}`), 400, 13, 'Event field cannot be blank');
      assert.equal(blank['invalid-event-number'], 0);
      expectHec(await hec(path, `${good}{"event":{"a":1},"time":"yesterday"}`), 400, 6, 'Invalid data format');
      assert.equal((await found({ marker })).length, 0, 'nothing of a refused request is stored');
    });

    test('gzip bodies, and any Content-Type, are read', async () => {
      const marker = randomUUID();
      const body = gzipSync(`{"event":{"marker":"${marker}","i":1}}{"event":{"marker":"${marker}","i":2}}`);
      const answer = await hec('/services/collector/event/1.0', body, {
        'content-encoding': 'gzip',
        'content-type': 'application/octet-stream',
      });
      expectHec(answer, 200, 0, 'Success');
      assert.equal((await found({ marker })).length, 2);
    });
  });
}
