// Export to object storage, on SQLite and PostgreSQL, against a real S3-compatible server
// (s3rver) read back with the AWS SDK: records sent through the collector and the findings
// detection made of them land as NDJSON.gz per tenant and hour with a manifest; each record is
// written exactly as stored; tenants never share a file; findings come in Sightline's shape or as
// OCSF; an hour is split into parts past the part size; a pass stopped by the store carries on
// from the tenant it stopped at; credentials the store refuses move nothing; the server's own exporter starts
// a new destination at the hour given and walks to the present.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseTargets } from '../helpers/databases.js';
import { detectionCaughtUp, ingest } from '../helpers/api.js';
import { apiSuite } from '../helpers/suite.js';
import { appRecord } from '../helpers/factories.js';
import { winlogbeatSysmonProcessCreation } from '../helpers/windows-events.js';
import { S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, startS3Server, type TestS3 } from '../helpers/s3-server.js';
import { Exporter, type ExporterSettings, type ExportPass } from '../../src/export/exporter.js';
import { exportMetrics } from '../../src/export/export-metrics.js';
import { s3ObjectStore, type ObjectStore } from '../../src/export/object-store.js';
import { HOUR_MS } from '../../src/export/hour-export.js';
import { exportProgress } from '../../src/export/export-store.js';
import { exportDestination } from '../../src/app/export-wiring.js';
import { loadAttackCatalogue } from '../../src/detection/attack.js';
import { Registry } from 'prom-client';

const BUCKET = 'soc-archive';
const BIG = '18446744073709551615';
const catalogue = loadAttackCatalogue();

function hourOf(time: number): number {
  return time - (time % HOUR_MS);
}

interface Manifest {
  format: string;
  tenant: string;
  hour: string;
  records: number;
  findings: number;
  findings_format: string;
  files: { key: string; kind: string; records: number; bytes: number; sha256: string }[];
}

for (const target of databaseTargets) {
  describe(`export to object storage on ${target.kind}`, { skip: target.skip, timeout: 120_000 }, () => {
    let s3: TestS3;
    const started = Date.now();
    const since = hourOf(started) - 3 * HOUR_MS;
    before(async () => {
      s3 = await startS3Server(BUCKET);
    });
    // The suite's server exports too, from three hours ago: it has nothing to write for them.
    const suite = apiSuite(target, {
      exportUrl: `s3://${BUCKET}/server`,
      exportEndpoint: 'http://127.0.0.1:1',
      exportSince: new Date(since).toISOString(),
      exportDelay: '0s',
    });
    after(() => s3.close());

    /** An exporter on the suite's database writing under `prefix`, as the server's would. */
    function exporter(prefix: string, options: Partial<ExporterSettings> = {}): Exporter {
      const store = s3ObjectStore({
        url: `s3://${BUCKET}/${prefix}`,
        endpoint: s3.endpoint,
        region: 'us-east-1',
        accessKeyId: S3_ACCESS_KEY_ID,
        secretAccessKey: S3_SECRET_ACCESS_KEY,
      });
      return new Exporter({
        db: suite.server.sightline.database.db,
        store,
        catalogue,
        findings: 'sightline',
        partBytes: 64 * 1024 * 1024,
        pageSize: 50,
        destination: `s3://${BUCKET}/${prefix} at ${s3.endpoint}`,
        delayMs: 0,
        since,
        holder: `test-${randomUUID()}`,
        leaseMs: 60_000,
        metrics: exportMetrics(new Registry()),
        onError: (error) => assert.fail(`the export reported ${String(error)}`),
        ...options,
      });
    }

    /** A pass two hours ahead (every hour with the test's records has ended); retried while the server's exporter holds the lease. */
    async function passAhead(run: Exporter): Promise<ExportPass> {
      for (let tries = 0; ; tries++) {
        const pass = await run.pass(Date.now() + 2 * HOUR_MS);
        if (pass.ran || tries > 100) return pass;
        await sleep(50);
      }
    }

    async function manifests(prefix: string, tenant: string): Promise<Manifest[]> {
      const keys = (await s3.keys(`${prefix}/tenant=${tenant}/`)).filter((key) => key.endsWith('/manifest.json'));
      return Promise.all(keys.map(async (key) => JSON.parse((await s3.get(key)).toString('utf8')) as Manifest));
    }

    const acmeMarker = randomUUID();
    const globexMarker = randomUUID();

    test('the server starts a new destination at the hour given and walks to the present', async () => {
      const destination = exportDestination({
        exportUrl: `s3://${BUCKET}/server`,
        exportEndpoint: 'http://127.0.0.1:1',
      });
      const deadline = Date.now() + 20_000;
      let progress = await exportProgress(suite.server.sightline.database.db, destination);
      while ((progress?.hour ?? 0) < hourOf(started) && Date.now() < deadline) {
        await sleep(100);
        progress = await exportProgress(suite.server.sightline.database.db, destination);
      }
      // Nothing was sent in those hours, so nothing had to reach the (unreachable) endpoint.
      assert.equal(progress?.hour, hourOf(started));
      assert.equal(progress.exportedRecords, 0);
      assert.match(await suite.server.metrics(), /^sightline_export_behind_seconds \d/m);
    });

    test('records and findings land per tenant and hour, each record exactly as stored, with a manifest', async () => {
      const bigRecord = `{"marker":"${acmeMarker}","bytes_out":${BIG},"ratio":1.50}`;
      await ingest(suite.server, [bigRecord, appRecord({ marker: acmeMarker })], 'acme');
      await ingest(
        suite.server,
        [
          winlogbeatSysmonProcessCreation(
            'WS-EXPORT-01',
            'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe',
            'powershell.exe -NoP -W Hidden -enc SQBFAFgAIAAoAE4AZQB3AC0ATwBiAGoAZQBjAHQAIABOAGUAdAAuAFcAZQBiAEMAbABpAGUAbgB0ACkA',
          ),
        ],
        'acme',
      );
      await ingest(suite.server, [appRecord({ marker: globexMarker })], 'globex');
      await detectionCaughtUp(suite.server);

      const pass = await passAhead(exporter('lake'));
      assert.ok(pass.ran);
      assert.equal(pass.records, 4);
      assert.ok(pass.findings >= 1, 'the Sysmon event made at least one finding');

      const [acme, ...more] = await manifests('lake', 'acme');
      assert.equal(more.length, 0, 'one hour holds everything sent');
      assert.ok(acme);
      assert.equal(acme.format, 'sightline-export/1');
      assert.equal(acme.records, 3);
      assert.equal(acme.findings, pass.findings);
      for (const file of acme.files) {
        const body = await s3.get(file.key);
        assert.equal(body.length, file.bytes, file.key);
        assert.equal(createHash('sha256').update(body).digest('hex'), file.sha256, file.key);
      }
      const telemetry = acme.files.filter((file) => file.kind === 'telemetry');
      assert.deepEqual(
        telemetry.map((file) => file.key.replace(/^lake\/tenant=acme\/date=\d{4}-\d{2}-\d{2}\/hour=\d{2}\//, '')),
        ['telemetry-0001.ndjson.gz'],
      );
      const lines = await s3.lines(telemetry[0]!.key);
      assert.equal(lines.length, 3);
      assert.ok(
        lines.some((line) => line.endsWith(`"record":${bigRecord}}`)),
        'the record is written as it was stored',
      );
      assert.ok(lines.every((line) => !line.includes(globexMarker)));
      const first = JSON.parse(lines[0]!) as { id: string; received_at: string; record: unknown };
      assert.match(first.id, /^[\w-]+$/);
      assert.equal(new Date(first.received_at).toISOString().slice(0, 13), acme.hour.slice(0, 13));

      const findingsFile = acme.files.find((file) => file.kind === 'findings');
      assert.ok(findingsFile, 'a findings file');
      const findings = (await s3.lines(findingsFile.key)).map(
        (line) => JSON.parse(line) as { host: string; rule: { title: string } },
      );
      assert.ok(findings.some((finding) => finding.host.toLowerCase() === 'ws-export-01'));

      const [globex] = await manifests('lake', 'globex');
      assert.equal(globex?.records, 1);
      const globexLines = await s3.lines(globex.files[0]!.key);
      assert.ok(globexLines[0]!.includes(globexMarker));

      const again = await passAhead(exporter('lake'));
      assert.deepEqual([again.hours, again.records], [0, 0], 'a written hour is not written twice');
    });

    test('findings as OCSF Detection Findings, and an hour split into parts past the part size', async () => {
      await passAhead(exporter('ocsf', { findings: 'ocsf', partBytes: 200 }));
      const [acme] = await manifests('ocsf', 'acme');
      assert.ok(acme);
      assert.equal(acme.findings_format, 'ocsf');
      const parts = acme.files.filter((file) => file.kind === 'telemetry');
      assert.equal(parts.length, 3, `a part per record past 200 bytes: ${JSON.stringify(parts)}`);
      assert.equal(
        parts.reduce((sum, part) => sum + part.records, 0),
        acme.records,
      );
      const findingsFile = acme.files.find((file) => file.kind === 'findings');
      const finding = JSON.parse((await s3.lines(findingsFile!.key))[0]!) as Record<string, unknown>;
      assert.equal(finding.class_uid, 2004);
      assert.equal(finding.category_uid, 2);
      for (const attribute of ['activity_id', 'finding_info', 'metadata', 'severity_id', 'time', 'type_uid'])
        assert.ok(attribute in finding, attribute);
    });

    test('a pass the store stops carries on from the tenant it stopped at', async () => {
      const written: string[] = [];
      let failGlobex = true;
      const real = s3ObjectStore({
        url: `s3://${BUCKET}/resumed`,
        endpoint: s3.endpoint,
        region: 'us-east-1',
        accessKeyId: S3_ACCESS_KEY_ID,
        secretAccessKey: S3_SECRET_ACCESS_KEY,
      });
      const store: ObjectStore = {
        url: real.url,
        key: (name) => real.key(name),
        put: async (key, body, type) => {
          if (failGlobex && key.includes('tenant=globex')) throw new Error('the store is unreachable');
          written.push(key);
          await real.put(key, body, type);
        },
      };
      const run = exporter('resumed', { store, destination: 'resumed' });
      await assert.rejects(passAhead(run), /the store is unreachable/);
      const stopped = await exportProgress(suite.server.sightline.database.db, 'resumed');
      assert.equal(stopped?.hour, hourOf(Date.now()), 'the hour with the records is not done');
      assert.ok(written.some((key) => key.includes('tenant=acme')));

      failGlobex = false;
      written.length = 0;
      await passAhead(run);
      assert.ok(written.length > 0);
      assert.ok(
        written.every((key) => key.includes('tenant=globex')),
        `only globex again: ${written.join(', ')}`,
      );
      const done = await exportProgress(suite.server.sightline.database.db, 'resumed');
      assert.equal(done?.exportedRecords, 4);
      assert.equal(done.hour, hourOf(Date.now()) + 2 * HOUR_MS, 'every hour that ended is done');
    });

    test('credentials the store does not know are refused and move nothing', async () => {
      const store = s3ObjectStore({
        url: `s3://${BUCKET}/denied`,
        endpoint: s3.endpoint,
        region: 'us-east-1',
        accessKeyId: 'AKIAUNKNOWNKEY',
        secretAccessKey: S3_SECRET_ACCESS_KEY,
      });
      const run = exporter('denied', { store, destination: 'denied' });
      await assert.rejects(passAhead(run), /Access Key Id you provided does not exist/);
      const progress = await exportProgress(suite.server.sightline.database.db, 'denied');
      assert.deepEqual([progress?.hour, progress?.exportedRecords], [hourOf(Date.now()), 0]);
      assert.deepEqual(await s3.keys('denied/'), []);
    });
  });
}
