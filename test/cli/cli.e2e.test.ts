// The `sightline` command line as an operator uses it: tenants, configuration errors, and
// `telemetry search` showing exactly the records that got 201.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { databaseTargets, tempDir } from '../helpers/databases.js';
import { runCli } from '../helpers/cli.js';
import { startServer } from '../helpers/server.js';
import { appRecord, ndjson, syslogRecord, webAccessRecord } from '../helpers/factories.js';

describe('sightline tenant', () => {
  test('create prints the collector URL; list shows tenants; duplicates and bad code names fail clearly', async () => {
    const data = tempDir();
    const created = await runCli(['tenant', 'create', 'acme', '--name', 'Acme Corp', '--data', data]);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout, 'http://acme-collector.localhost:8080\n');

    const public_ = await runCli([
      'tenant',
      'create',
      'globex',
      '--data',
      data,
      '--base-domain',
      'sightline.example.com',
      '--public-url',
      'https://sightline.example.com',
    ]);
    assert.equal(public_.stdout, 'https://globex-collector.sightline.example.com\n');

    // A server that ran on this data directory left its public URL: the CLI prints addresses with it.
    const database = { kind: 'sqlite' as const, dataDir: data, databaseUrl: '', cleanup: () => Promise.resolve() };
    const server = await startServer(database, { publicUrl: 'https://sightline.example:8443' });
    await server.close();
    const afterServer = await runCli(['tenant', 'create', 'initech', '--data', data]);
    assert.equal(afterServer.stdout, 'https://initech-collector.localhost:8443\n');

    const listed = await runCli(['tenant', 'list', '--json', '--data', data]);
    assert.equal(listed.code, 0, listed.stderr);
    const tenants = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { code_name: string; name: string });
    assert.deepEqual(
      tenants.map((t) => [t.code_name, t.name]),
      [
        ['acme', 'Acme Corp'],
        ['globex', 'globex'],
        ['initech', 'initech'],
      ],
    );

    const duplicate = await runCli(['tenant', 'create', 'acme', '--data', data]);
    assert.equal(duplicate.code, 1);
    assert.match(duplicate.stderr, /tenant_exists.*acme/);

    const invalid = await runCli(['tenant', 'create', 'Bad_Name', '--data', data]);
    assert.equal(invalid.code, 1);
    assert.match(invalid.stderr, /invalid_code_name/);
  });

  test('the data directory can come from SIGHTLINE_DATA', async () => {
    const data = tempDir();
    assert.equal((await runCli(['tenant', 'create', 'initech'], { SIGHTLINE_DATA: data })).code, 0);
    const listed = await runCli(['tenant', 'list', '--data', data]);
    assert.match(listed.stdout, /^initech\tinitech\thttp:\/\/initech-collector\.localhost:8080$/m);
  });

  test('commands that read a deployment refuse a data directory without one, and create nothing there', async () => {
    const nowhere = path.join(tempDir(), 'not-the-server-data');
    for (const args of [
      ['token', 'create', '--tenant', 'demo', '--name', 'x', '--permissions', 'cases:read'],
      ['token', 'list', '--tenant', 'demo'],
      ['tenant', 'list'],
      ['telemetry', 'search', '--tenant', 'demo'],
      ['user', 'list', '--tenant', 'demo'],
    ]) {
      const result = await runCli([...args, '--data', nowhere]);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, /no Sightline database at .*not-the-server-data.*--data/, args.join(' '));
      assert.equal(fs.existsSync(nowhere), false, `${args.join(' ')} created ${nowhere}`);
    }
  });
});

describe('sightline --help', () => {
  test('serve shows each setting with its default as it would be typed', async () => {
    const help = await runCli(['serve', '--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /--port <value>[^\n]*\(default: 8080\)/);
    assert.match(help.stdout, /--max-body-bytes <value>[^\n]*\(default: 10MiB\)/);
    assert.match(help.stdout, /--auth-failure-window <value>[^\n]*\(default: 15m\)/);
    assert.match(help.stdout, /--data <value>[^\n]*\(default: \.\/data\)/);
  });

  test('tenant create describes --port as what it is there: part of the printed address', async () => {
    const help = await runCli(['tenant', 'create', '--help']);
    assert.equal(help.code, 0, help.stderr);
    const flat = help.stdout.replace(/\s+/g, ' ');
    assert.doesNotMatch(flat, /TCP port to listen on/);
    assert.match(flat, /--port <value> The port the server listens on: printed collector URLs use it/);
  });
});

describe('sightline serve configuration', () => {
  test('an invalid setting stops start-up with a message naming it', async () => {
    const result = await runCli(['serve', '--data', tempDir()], { SIGHTLINE_PORT: 'eighty' });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /SIGHTLINE_PORT must be an integer/);
  });

  test('a port already in use stops serve with exit code 1 and the reason, instead of hanging', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const port = (blocker.address() as net.AddressInfo).port;
      const result = await runCli(['serve', '--data', tempDir(), '--port', String(port), '--log-level', 'warn']);
      assert.equal(result.code, 1);
      assert.match(result.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}`));
    } finally {
      blocker.close();
    }
  });

  test('plain HTTP on a non-loopback address is refused without --insecure-http', async () => {
    const result = await runCli(['serve', '--data', tempDir(), '--host', '0.0.0.0']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /not a loopback address.*--insecure-http/);
  });
});

for (const target of databaseTargets) {
  describe(`sightline telemetry search on ${target.kind}`, { skip: target.skip }, () => {
    test('shows exactly the records that got 201, with receive times; --query, --since, --until and --limit filter', async () => {
      const database = await target.create();
      try {
        const server = await startServer(database);
        const accepted = [webAccessRecord(), syslogRecord(), appRecord({ message: 'payment declined for order 7' })];
        const rejected = [appRecord(), appRecord()];
        assert.equal(
          (await server.post(ndjson(accepted.slice(0, 2)), { 'content-type': 'application/x-ndjson' })).status,
          201,
        );
        assert.equal((await server.post(`${JSON.stringify(rejected[0])}\n{oops}\n`)).status, 400);
        assert.equal((await server.post(JSON.stringify([rejected[1]]))).status, 500);
        assert.equal((await server.post(JSON.stringify(accepted[2]))).status, 201);
        await server.close();

        const storage = [
          '--data',
          database.dataDir,
          ...(database.databaseUrl ? ['--database', database.databaseUrl] : []),
        ];
        const all = await runCli(['telemetry', 'search', '--tenant', 'demo', ...storage]);
        assert.equal(all.code, 0, all.stderr);
        const lines = all.stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { id: string; received_at: string; record: Record<string, unknown> });
        assert.deepEqual(
          lines.map((line) => line.record),
          accepted,
          'exactly the accepted records, in order',
        );
        for (const line of lines) {
          assert.equal(typeof line.id, 'string');
          assert.match(line.received_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        }

        const query = await runCli([
          'telemetry',
          'search',
          '--tenant',
          'demo',
          '--query',
          'payment declined',
          ...storage,
        ]);
        assert.deepEqual(
          query.stdout
            .trim()
            .split('\n')
            .map((line) => (JSON.parse(line) as { record: unknown }).record),
          [accepted[2]],
        );

        const limited = await runCli(['telemetry', 'search', '--tenant', 'demo', '--limit', '2', ...storage]);
        assert.equal(limited.stdout.trim().split('\n').length, 2);

        const future = await runCli([
          'telemetry',
          'search',
          '--tenant',
          'demo',
          '--since',
          '2099-01-01T00:00:00Z',
          ...storage,
        ]);
        assert.equal(future.stdout, '');
        const recent = await runCli([
          'telemetry',
          'search',
          '--tenant',
          'demo',
          '--since',
          '1h',
          '--until',
          '2099-01-01T00:00:00Z',
          ...storage,
        ]);
        assert.equal(recent.stdout.trim().split('\n').length, 3);

        const badTime = await runCli([
          'telemetry',
          'search',
          '--tenant',
          'demo',
          '--since',
          'last tuesday',
          ...storage,
        ]);
        assert.equal(badTime.code, 1);
        assert.match(badTime.stderr, /--since must be an ISO 8601 time/);
        const unknown = await runCli(['telemetry', 'search', '--tenant', 'nobody', ...storage]);
        assert.equal(unknown.code, 1);
        assert.match(unknown.stderr, /tenant_not_found/);
      } finally {
        await database.cleanup();
      }
    });
  });
}
