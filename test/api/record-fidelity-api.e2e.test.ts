// Records are evidence: a record comes back with every digit it was sent with (numbers beyond
// 2^53, and more significant digits than a double keeps) through search, tail, export, the CLI
// and an observation's evidence, on both databases, whatever body shape carried it.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { parse as parseLossless } from 'lossless-json';
import { databaseTargets } from '../helpers/databases.js';
import { bearer, detectionCaughtUp, ingest, issueToken } from '../helpers/api.js';
import { apiSuite } from '../helpers/suite.js';
import { runCli } from '../helpers/cli.js';
import { webAccessRecord } from '../helpers/factories.js';

// An unsigned 64-bit "none" as many Windows fields carry it, one past the largest safe integer
// below zero, a decimal with 34 significant digits, and formatting a re-serialiser would change.
const EXACT =
  '"big":18446744073709551615,"neg":-9007199254740993,"dec":0.1000000000000000055511151231257827,"ratio":1.50';
const DIGITS = ['18446744073709551615', '-9007199254740993', '0.1000000000000000055511151231257827'];

/** The record fields that JSON.parse would change, read losslessly from an answer's text. */
function exactFields(text: string, pick: (parsed: unknown) => unknown): string[] {
  const record = pick(parseLossless(text)) as Record<string, unknown>;
  return ['big', 'neg', 'dec'].map((key) => String(record[key]));
}

for (const target of databaseTargets) {
  describe(`records come back exactly as sent on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let token: string;
    const post = (path: string, body: unknown) =>
      fetch(`${suite.server.baseUrl}${path}`, {
        method: 'POST',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    before(async () => {
      token = (await issueToken(suite.server, suite.acme, ['telemetry:read', 'observations:read'])).value;
    });

    test('search, tail, export and the CLI give every number back with its digits', async () => {
      const marker = randomUUID();
      const start = (await (await post('/v1/telemetry/search', { limit: 1, order: 'desc' })).json()) as {
        tail_cursor: string;
      };
      await ingest(suite.server, [`{"marker":"${marker}",${EXACT}}`]);

      const searched = await (await post('/v1/telemetry/search', { filters: { marker } })).text();
      assert.ok(searched.includes(`{"marker":"${marker}",${EXACT}}`), `the record's text as sent: ${searched}`);
      assert.deepEqual(
        exactFields(searched, (page) => (page as { records: { record: unknown }[] }).records[0]?.record),
        DIGITS,
      );

      const tailed = await (
        await post('/v1/telemetry/tail', { filters: { marker }, tail_cursor: start.tail_cursor })
      ).text();
      assert.deepEqual(
        exactFields(tailed, (answer) => (answer as { records: { record: unknown }[] }).records[0]?.record),
        DIGITS,
      );

      const exported = await (await post('/v1/telemetry/export', { filters: { marker } })).text();
      assert.deepEqual(
        exactFields(exported.trim(), (line) => (line as { record: unknown }).record),
        DIGITS,
      );

      const storage = ['--data', suite.database.dataDir];
      if (suite.database.databaseUrl) storage.push('--database', suite.database.databaseUrl);
      const cli = await runCli(['telemetry', 'search', '--tenant', 'acme', '--query', marker, ...storage]);
      assert.equal(cli.code, 0, cli.stderr);
      assert.deepEqual(
        exactFields(cli.stdout.trim(), (line) => (line as { record: unknown }).record),
        DIGITS,
      );
    });

    test('a pretty-printed body and a container wrapper keep their numbers too', async () => {
      const marker = randomUUID();
      const pretty = `{\n  "marker": "${marker}",\n  "shape": "pretty",\n  ${EXACT.replaceAll(',', ',\n  ')}\n}\n`;
      const sent = await suite.server.post(pretty, {
        'content-type': 'application/json',
        host: 'acme-collector.localhost',
      });
      assert.equal(sent.status, 201, await sent.text());
      const wrapped = JSON.stringify({
        log: `{"marker":"${marker}","shape":"docker",${EXACT}}\n`,
        stream: 'stdout',
        time: '2026-12-02T10:00:00.123456789Z',
      });
      await ingest(suite.server, [wrapped]);

      const text = await (await post('/v1/telemetry/search', { filters: { marker } })).text();
      const records = (parseLossless(text) as { records: { record: Record<string, unknown> }[] }).records;
      assert.deepEqual(records.map((found) => found.record.shape).sort(), ['docker', 'pretty']);
      for (const found of records)
        assert.deepEqual(
          ['big', 'neg', 'dec'].map((key) => String(found.record[key])),
          DIGITS,
          String(found.record.shape),
        );
    });

    test("an observation's evidence holds the record as it was sent", async () => {
      const marker = randomUUID();
      const attack = webAccessRecord({
        marker,
        request: 'GET /item.php?id=1%27%20UNION%20ALL%20SELECT%20name,pass%20FROM%20accounts-- HTTP/1.1',
      });
      const line = JSON.stringify(attack).replace(/}$/, `,${EXACT}}`);
      await ingest(suite.server, [line]);
      await detectionCaughtUp(suite.server);

      const list = await fetch(`${suite.server.baseUrl}/v1/observations?limit=100`, { headers: bearer(token) });
      const observations = ((await list.json()) as { observations: { id: string }[] }).observations;
      let evidence: string | undefined;
      for (const { id } of observations) {
        const detail = await (
          await fetch(`${suite.server.baseUrl}/v1/observations/${id}`, { headers: bearer(token) })
        ).text();
        if (detail.includes(marker)) evidence = detail;
      }
      assert.ok(evidence, 'an observation cites the record');
      assert.ok(evidence.includes(line), 'the record as sent, byte for byte');
      assert.deepEqual(
        exactFields(evidence, (detail) => (detail as { evidence: { record: unknown }[] }).evidence[0]?.record),
        DIGITS,
      );
    });
  });
}
