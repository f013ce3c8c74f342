// `npm run bench:retention`: ingest throughput while the background purger deletes a large
// backlog, against the same server's throughput without a purge, measured in the same run.
// Setup writes N records (default 1,000,000) received 60 days ago for tenant demo, already
// indexed and processed, while its retention is 90 days. Then: ingest for D seconds (no purge);
// set the retention to 7 days with the CLI, and ingest in D-second windows until the server's
// purger has deleted them all. Every window starts once the search index has caught up with the
// log, so the two phases are measured from the same state. On PostgreSQL (--database URL: a schema of its own there, dropped
// at the end) the seeded records land in the fresh schema's partition for records stored before
// partitioning, so they are deleted by batches of rows, not dropped with a whole day. The last
// stdout line is one JSON object of results.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { freePort, spawnTsx } from '../test/helpers/processes.js';
import { dropSchema, freshSchema, type FreshSchema } from '../test/helpers/postgres.js';
import { openDatabase, type Database } from '../src/storage/database.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { runLoad, searchIndexLag, startServer, stopServer, type LoadResult } from './ingest-harness.js';

const DAY = 86_400_000;

interface Flags {
  records: number;
  duration: number;
  connections: number;
  database?: string;
}

function parseFlags(argv: string[]): Flags {
  const flags: Flags = { records: 1_000_000, duration: 10, connections: 8 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined || !['--records', '--duration', '--connections', '--database'].includes(flag ?? ''))
      throw new Error(
        `unknown or incomplete option ${JSON.stringify(flag)}; usage: bench:retention [--records N] [--duration S] [--connections N] [--database URL]`,
      );
    if (flag === '--database') flags.database = value;
    else {
      const number = Number(value);
      if (!Number.isInteger(number) || number <= 0) throw new Error(`${flag} must be a positive integer; got ${value}`);
      if (flag === '--records') flags.records = number;
      else if (flag === '--duration') flags.duration = number;
      else flags.connections = number;
    }
  }
  return flags;
}

/** N old records for demo, indexed and past every follower, as if received 60 days ago. */
async function seed(database: Database, count: number): Promise<number> {
  const { db } = database;
  await migrateToLatest(database);
  await sql`INSERT INTO tenants (code_name, name, created_at) VALUES ('demo', 'Demo', ${Date.now()})`.execute(db);
  const tenant = await db.selectFrom('tenants').select('id').where('code_name', '=', 'demo').executeTakeFirstOrThrow();
  const old = Date.now() - 60 * DAY;
  const chunk = 50_000;
  for (let done = 0; done < count; done += chunk) {
    const n = Math.min(chunk, count - done);
    const record = `'{"message":"archived event ' || g || '","level":"info","service":"checkout","user":"u-' || (g % 977) || '"}'`;
    if (database.kind === 'sqlite') {
      await sql
        .raw(
          `WITH RECURSIVE s(g) AS (SELECT ${done + 1} UNION ALL SELECT g + 1 FROM s WHERE g < ${done + n})
           INSERT INTO telemetry_records (tenant_id, received_at, event_time, record) SELECT ${tenant.id}, ${old} + g, ${old} + g, ${record} FROM s`,
        )
        .execute(db);
    } else {
      await sql
        .raw(
          `INSERT INTO telemetry_records (tenant_id, received_at, event_time, record)
           SELECT ${tenant.id}, ${old} + g, ${old} + g, ${record} FROM generate_series(${done + 1}, ${done + n}) g`,
        )
        .execute(db);
    }
  }
  if (database.kind === 'sqlite')
    await sql`INSERT INTO telemetry_fts (rowid, record) SELECT seq, record FROM telemetry_records`.execute(db);
  else
    await sql`INSERT INTO telemetry_fts (seq, tenant_id, tsv) SELECT seq, tenant_id, to_tsvector('simple', record) FROM telemetry_records`.execute(
      db,
    );
  const end = await db
    .selectFrom('telemetry_records')
    .select((eb) => eb.fn.max<number>('seq').as('seq'))
    .executeTakeFirstOrThrow();
  await db.updateTable('log_cursors').set({ seq: end.seq }).execute();
  if (database.kind === 'postgres') await sql`UPDATE log_cursors SET tx_id = pg_current_xact_id()::text`.execute(db);
  return tenant.id;
}

async function cli(storage: string[], args: string[]): Promise<string> {
  const child = spawnTsx('src/cli/run.ts', [...args, ...storage]);
  const code = await child.exited;
  if (code !== 0) throw new Error(`sightline ${args.join(' ')} failed: ${child.stderr()}`);
  return child.stdout().trim();
}

const perSecond = (results: LoadResult[]) =>
  results.reduce((sum, r) => sum + r.records, 0) / results.reduce((sum, r) => sum + r.seconds, 0);

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-retention-'));
  const postgres: FreshSchema | undefined = flags.database ? freshSchema(flags.database, 'bench') : undefined;
  const storage = ['--data', dataDir, ...(postgres ? ['--database', postgres.url] : [])];
  const store = postgres ? 'PostgreSQL' : 'SQLite';
  process.stdout.write(
    `retention benchmark: ${store}, ${flags.records.toLocaleString('en-US')} expired records, ${flags.connections} connections, ${flags.duration} s windows; load average ${os.loadavg()[0]?.toFixed(2)}\n`,
  );
  try {
    const database = await openDatabase({ dataDir, databaseUrl: postgres?.url ?? '' });
    try {
      const started = performance.now();
      await seed(database, flags.records);
      process.stdout.write(`  seeded in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    } finally {
      await database.close();
    }
    await cli(storage, ['retention', 'set', '--tenant', 'demo', '--days', '90']);
    const port = await freePort();
    const server = await startServer(
      'src/cli/run.ts',
      [
        'serve',
        ...storage,
        '--port',
        String(port),
        '--log-level',
        'warn',
        '--retention-interval',
        '10s',
        '--detection',
        'off',
      ],
      port,
      120_000,
    );
    const url = `http://127.0.0.1:${port}/log_sink`;
    const load = { duration: flags.duration, connections: flags.connections };
    try {
      // Indexing waits while a burst lasts and catches up after it (README: Full text), so each
      // window, with or without a purge, starts with the search index caught up: otherwise the
      // windows after the first pay for the index work the first one deferred.
      const settled = async () => {
        const deadline = performance.now() + 300_000;
        while ((await searchIndexLag(dataDir, postgres)) > 0 && performance.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 250));
      };
      const window = async () => {
        await settled();
        return runLoad(url, load);
      };
      const quiet = [await window(), await window()];
      const without = perSecond(quiet);
      process.stdout.write(`  without purge: ${Math.round(without).toLocaleString('en-US')} records/s\n`);

      await cli(storage, ['retention', 'set', '--tenant', 'demo', '--days', '7']);
      const purgeStart = performance.now();
      const purgeStartWall = Date.now();
      const during: LoadResult[] = [];
      let purged = 0;
      let lastPurgeAt: string | null = null;
      while (purged < flags.records) {
        during.push(await window());
        const shown = JSON.parse(await cli(storage, ['retention', 'show', '--tenant', 'demo'])) as {
          purged_records: number;
          last_purge_at: string | null;
        };
        ({ purged_records: purged, last_purge_at: lastPurgeAt } = shown);
        process.stdout.write(
          `  window ${during.length}: ${Math.round(perSecond(during.slice(-1)))} records/s, ${purged} purged\n`,
        );
        if ((performance.now() - purgeStart) / 1000 > 1800)
          throw new Error('the purge did not finish within 30 minutes');
      }
      // From the retention change to the purger's last count (the first pass starts within the
      // 10 s interval): not rounded up to whole load windows.
      const purgeSeconds = lastPurgeAt
        ? (Date.parse(lastPurgeAt) - purgeStartWall) / 1000
        : (performance.now() - purgeStart) / 1000;
      const withPurge = perSecond(during);
      const ratio = withPurge / without;
      process.stdout.write(
        `  during purge: ${Math.round(withPurge).toLocaleString('en-US')} records/s over ${during.length} window(s); ` +
          `${purged.toLocaleString('en-US')} records purged in about ${purgeSeconds.toFixed(0)} s ` +
          `(${Math.round(purged / purgeSeconds).toLocaleString('en-US')} records/s)\n` +
          `  ratio ${ratio.toFixed(3)} (target ≥ 0.8): ${ratio >= 0.8 ? 'OK' : 'BELOW TARGET'}\n`,
      );
      process.stdout.write(
        `${JSON.stringify({
          store: store.toLowerCase(),
          records_purged: purged,
          purge_seconds: Math.round(purgeSeconds),
          ingest_records_per_s_without_purge: Math.round(without),
          ingest_records_per_s_during_purge: Math.round(withPurge),
          ratio: Number(ratio.toFixed(3)),
          purge_records_per_s: Math.round(purged / purgeSeconds),
          load_average_1m: Number(os.loadavg()[0]?.toFixed(2)),
        })}\n`,
      );
    } finally {
      await stopServer(server, 'Sightline server');
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (postgres) await dropSchema(postgres.baseUrl, postgres.schema);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:retention failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
