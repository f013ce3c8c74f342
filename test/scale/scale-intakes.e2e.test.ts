// The collector's other intake protocols in the scale-out mode: a real NATS JetStream server on a
// free loopback port, PostgreSQL (a schema of the test's), and one collector-role and one
// worker-role `sightline serve` process. Records sent to the collector node for a tenant that
// requires an ingest key, by OpenTelemetry's own exporters (OTLP/HTTP JSON and protobuf), as a
// Splunk HEC event (`Authorization: Splunk <key>`) and by the Elasticsearch client's bulk API (an
// index action), go through JetStream and are stored in PostgreSQL by the worker, each once and
// under that tenant. An address no tenant has is refused by each protocol in its own shape, with
// the key or without, and nothing of those requests is stored.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { OTLPLogExporter as JsonExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { Client, errors, HttpConnection } from '@elastic/elasticsearch';
import { openDatabase } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { createTenant } from '../../src/identity/tenants/tenant-service.js';
import { createIngestKey, setIngestKeyPolicy } from '../../src/collector/ingest-keys/ingest-key-service.js';
import { cliActor } from '../../src/identity/principal.js';
import { decodeStatus, encodeExportRequest } from '../../src/collector/otlp/otlp-protobuf.js';
import { tempDir } from '../helpers/databases.js';
import { dropSchema, freshSchema, type FreshSchema } from '../helpers/postgres.js';
import { NatsCluster, natsServerBinary } from '../helpers/nats.js';
import { stopChild } from '../helpers/processes.js';
import { httpPost } from '../helpers/server.js';
import { AnsweredExports } from '../helpers/otlp-exporters.js';
import { connect, startNode, type NodeProcess } from '../helpers/scale.js';

const pgBase = process.env.SIGHTLINE_TEST_DATABASE_URL ?? '';
const binary = natsServerBinary('the scale-out intake tests are');
const needs = !binary || !pgBase ? 'needs nats-server and PostgreSQL (see the warnings above)' : false;
const TENANT = 'intake';
const PROTOBUF = 'application/x-protobuf';

interface Row {
  tenant: string;
  record: Record<string, unknown>;
  meta: Record<string, unknown> | null;
}

/** Every stored record whose text holds `marker`, with its tenant's code name, in log order. */
async function storedWith(databaseUrl: string, marker: string): Promise<Row[]> {
  const client = await connect(databaseUrl);
  try {
    const { rows } = await client.query<{ code_name: string; record: string; meta: string | null }>(
      `SELECT t.code_name, r.record, r.meta FROM telemetry_records r JOIN tenants t ON t.id = r.tenant_id
       WHERE strpos(r.record, $1) > 0 ORDER BY r.seq`,
      [marker],
    );
    return rows.map((row) => ({
      tenant: row.code_name,
      record: JSON.parse(row.record) as Record<string, unknown>,
      meta: row.meta === null ? null : (JSON.parse(row.meta) as Record<string, unknown>),
    }));
  } finally {
    await client.end();
  }
}

describe('intake protocols on a collector-role node', { skip: needs }, () => {
  let dir = '';
  let fresh: FreshSchema | undefined;
  let databaseUrl = '';
  const nodes: NodeProcess[] = [];
  let nats: NatsCluster | undefined;
  let key = '';
  let base = '';

  /** Waits until `marker`'s records number `count`; they, or the nodes' logs when they never come. */
  const arrived = async (marker: string, count: number): Promise<Row[]> => {
    for (let i = 0; ; i += 1) {
      const rows = await storedWith(databaseUrl, marker);
      if (rows.length >= count) return rows;
      if (i > 100) {
        const logs = nodes.map((node) =>
          `--- ${node.name}\n${node.child.stderr()}${node.child.stdout()}`.slice(-3_000),
        );
        assert.fail(`${rows.length} of ${count} records stored after 20 s:\n${logs.join('\n')}`);
      }
      await sleep(200);
    }
  };

  before(
    async () => {
      if (!binary) return;
      dir = tempDir('sightline-intakes-');
      fresh = freshSchema(pgBase, 'intakes');
      databaseUrl = fresh.url;
      nats = await NatsCluster.start(binary, dir, 1);
      // The schema, the tenants and the key exist before the nodes start: neither node seeds it.
      const database = await openDatabase({ databaseUrl, dataDir: dir });
      try {
        await migrateToLatest(database);
        const tenant = await createTenant(database.db, { codeName: TENANT });
        await createTenant(database.db, { codeName: 'other' });
        const ctx = { db: database.db, tenantId: tenant.id, actor: cliActor, ip: null };
        key = (await createIngestKey(ctx, { name: 'forwarders' })).value;
        await setIngestKeyPolicy(ctx, true);
      } finally {
        await database.close();
      }
      const common = ['--queue', nats.urls, '--database', databaseUrl, '--queue-partitions', '4'];
      for (const role of ['collector', 'worker']) {
        nodes.push(await startNode(role, ['--role', role, ...common, '--data', path.join(dir, role)]));
      }
      for (const node of nodes) {
        for (let i = 0; (await fetch(`http://127.0.0.1:${node.port}/readyz`)).status !== 200; i += 1) {
          if (i > 100) assert.fail(`${node.name} not ready after 20 s:\n${node.child.stderr()}`);
          await sleep(200);
        }
      }
      base = `http://127.0.0.1:${nodes[0]!.port}`;
    },
    { timeout: 90_000 },
  );
  after(async () => {
    await Promise.all(nodes.map((node) => stopChild(node.child, 5_000)));
    await nats?.stop();
    if (fresh) await dropSchema(fresh.baseUrl, fresh.schema);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const host = (codeName: string) => `${codeName}-collector.localhost`;
  const esClient = (codeName: string, apiKey?: string) =>
    new Client({
      node: base,
      Connection: HttpConnection,
      // `*.localhost` does not resolve in Node: the client names the collector in its Host header.
      headers: { host: host(codeName) },
      maxRetries: 0,
      ...(apiKey ? { auth: { apiKey: Buffer.from(`beats:${apiKey}`).toString('base64') } } : {}),
    });

  test(
    'OTLP JSON and protobuf, a Splunk HEC event and an Elasticsearch bulk index action are stored once each, under the tenant',
    { timeout: 60_000 },
    async () => {
      const run = randomUUID();
      const exporterOptions = {
        url: `${base}/v1/logs`,
        headers: { host: host(TENANT), authorization: `Bearer ${key}` },
      };
      for (const [encoding, exporter] of [
        ['json', new JsonExporter(exporterOptions)],
        ['protobuf', new ProtoExporter(exporterOptions)],
      ] as const) {
        const answered = new AnsweredExports(exporter);
        const provider = new LoggerProvider({
          resource: resourceFromAttributes({ 'service.name': 'checkout' }),
          processors: [new SimpleLogRecordProcessor({ exporter: answered })],
        });
        provider.getLogger('payments').emit({ body: `payment declined (${encoding})`, attributes: { run, encoding } });
        const results = await answered.settled();
        assert.deepEqual(
          results.map((result) => [result.code, String(result.error ?? '')]),
          [[0, '']],
          `the ${encoding} export succeeded`,
        );
        await provider.shutdown();
      }

      const hec = await httpPost(
        `${base}/services/collector/event`,
        JSON.stringify({ event: { run, via: 'hec' }, host: 'web-07' }),
        {
          host: host(TENANT),
          authorization: `Splunk ${key}`,
        },
      );
      assert.equal(hec.status, 200);
      assert.deepEqual(await hec.json(), { text: 'Success', code: 0 });

      const bulk = await esClient(TENANT, key).bulk({
        operations: [{ index: { _index: 'app-logs' } }, { run, via: 'bulk' }],
      });
      assert.equal(bulk.errors, false, JSON.stringify(bulk));
      assert.equal(bulk.items[0]?.index?.status, 201);

      const rows = await arrived(run, 4);
      await sleep(500);
      assert.equal((await storedWith(databaseUrl, run)).length, 4, 'each record is stored once');
      assert.deepEqual(
        rows.map((row) => row.tenant),
        [TENANT, TENANT, TENANT, TENANT],
      );
      for (const encoding of ['json', 'protobuf']) {
        const otlp = rows.find(
          (row) =>
            (row.record.otlp as { attributes?: { encoding?: string } } | undefined)?.attributes?.encoding === encoding,
        );
        assert.ok(otlp, `the OTLP ${encoding} record is stored: ${JSON.stringify(rows)}`);
        const stored = otlp.record as {
          message: string;
          otlp: { attributes: object; resource: { attributes: Record<string, unknown> }; scope: object };
        };
        assert.equal(stored.message, `payment declined (${encoding})`);
        assert.deepEqual(stored.otlp.attributes, { run, encoding });
        assert.equal(stored.otlp.resource.attributes['service.name'], 'checkout');
        assert.deepEqual(stored.otlp.scope, { name: 'payments' });
      }
      assert.deepEqual(
        rows.find((row) => row.record.via === 'hec')?.record,
        { run, via: 'hec', hec: { host: 'web-07' } },
        'the HEC event is the record, its metadata under hec',
      );
      const document = rows.find((row) => row.record.via === 'bulk');
      assert.deepEqual(document?.record, { run, via: 'bulk' }, 'the bulk document is the record');
      const meta = document.meta ?? {};
      assert.equal(meta._index, 'app-logs', 'the index named in the action is kept beside the record');
      assert.match(String(meta._id), /^[A-Za-z0-9_-]{20}$/, 'with the id the collector gave it');
    },
  );

  test(
    "an unknown collector address is refused in each protocol's own shape, with a key or without, and nothing is stored",
    { timeout: 60_000 },
    async () => {
      const run = randomUUID();
      const url = (route: string) => `${base}${route}`;
      const nobody = host('nosuch');
      const otlpRequest = {
        resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: run } }] }] }],
      };
      for (const [authorization, code] of [
        [undefined, 'ingest_key_required'],
        [`Bearer ${key}`, 'invalid_ingest_key'],
      ] as const) {
        const headers = { host: nobody, ...(authorization ? { authorization } : {}) };
        const json = await httpPost(url('/v1/logs'), JSON.stringify(otlpRequest), {
          ...headers,
          'content-type': 'application/json',
        });
        assert.equal(json.status, 401);
        assert.match(json.headers.get('content-type') ?? '', /^application\/json\b/, "in the request's encoding");
        const status = (await json.json()) as { code: number; message: string };
        assert.equal(status.code, 16, 'google.rpc.Code UNAUTHENTICATED');
        assert.match(status.message, new RegExp(`^${code}: `));

        const proto = await httpPost(url('/v1/logs'), encodeExportRequest(otlpRequest), {
          ...headers,
          'content-type': PROTOBUF,
        });
        assert.equal(proto.status, 401);
        assert.equal(proto.headers.get('content-type'), PROTOBUF);
        const protoStatus = decodeStatus(Buffer.from(await proto.arrayBuffer()));
        assert.equal(protoStatus.code, 16);
        assert.match(protoStatus.message ?? '', new RegExp(`^${code}: `));

        const hecHeaders = { host: nobody, ...(authorization ? { authorization: `Splunk ${key}` } : {}) };
        const hec = await httpPost(url('/services/collector/event'), JSON.stringify({ event: { run } }), hecHeaders);
        const { text, code: hecCode } = (await hec.json()) as { text: string; code: number };
        assert.deepEqual(
          [hec.status, hecCode, text],
          authorization ? [403, 4, 'Invalid token'] : [401, 2, 'Token is required'],
        );

        await assert.rejects(
          esClient('nosuch', authorization ? key : undefined).bulk({
            operations: [{ index: { _index: 'x' } }, { run }],
          }),
          (error) => {
            assert.ok(error instanceof errors.ResponseError, String(error));
            assert.equal(error.statusCode, 401);
            const body = error.body as { error: { type: string }; status: number };
            assert.equal(body.error.type, 'security_exception');
            assert.equal(body.status, 401);
            assert.equal(error.headers?.['x-elastic-product'], 'Elasticsearch');
            return true;
          },
        );
      }
      // A record the tenant's key opens, sent after the refusals, is stored; none of theirs is.
      const sentinel = await httpPost(url('/log_sink'), JSON.stringify({ after: run }), {
        host: host(TENANT),
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
      });
      assert.equal(sentinel.status, 201);
      const rows = await arrived(run, 1);
      assert.deepEqual(
        rows.map((row) => row.record),
        [{ after: run }],
      );
    },
  );
});
