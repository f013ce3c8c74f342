// PostgreSQL: the record log becomes a table partitioned by receive time (one partition per UTC
// day, src/retention/table-partitions.ts keeps a week ready), so retention drops whole days instead
// of deleting rows. Nothing is copied: the existing table becomes the partition of everything
// received before today (or before the end of its newest row's day). Its columns, defaults and indexes carry over whatever they
// are (LIKE, and each index re-created on the parent, which adopts the old one); the primary
// key becomes (seq, received_at), as a partitioned key must include the partition column, and
// foreign keys that pointed at telemetry_records(seq) are dropped (the purger deletes derived
// rows itself). SQLite is unchanged: its purger deletes in ranges.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

const DAY_MS = 86_400_000;
const DAYS_AHEAD = 7;

/** An index name with a suffix, within PostgreSQL's 63-byte identifiers. */
const suffixed = (name: string, suffix: string) => `${name.slice(0, 63 - suffix.length)}${suffix}`;

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  if (kind !== 'postgres') return;
  const foreignKeys = await sql<{ table_name: string; name: string }>`
    SELECT conrelid::regclass::text AS table_name, conname AS name FROM pg_constraint
    WHERE confrelid = to_regclass('telemetry_records') AND contype = 'f'`.execute(db);
  for (const key of foreignKeys.rows)
    await sql`ALTER TABLE ${sql.raw(key.table_name)} DROP CONSTRAINT ${sql.id(key.name)}`.execute(db);

  const indexes = await sql<{ name: string; definition: string; is_primary: boolean }>`
    SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition, i.indisprimary AS is_primary
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    WHERE i.indrelid = to_regclass('telemetry_records')`.execute(db);
  const sequence = await sql<{
    name: string | null;
  }>`SELECT pg_get_serial_sequence('telemetry_records', 'seq') AS name`.execute(db);
  const newest = await sql<{ at: number | null }>`SELECT max(received_at) AS at FROM telemetry_records`.execute(db);

  await sql`ALTER TABLE telemetry_records RENAME TO telemetry_records_legacy`.execute(db);
  for (const index of indexes.rows)
    await sql`ALTER INDEX ${sql.id(index.name)} RENAME TO ${sql.id(suffixed(index.name, '_legacy'))}`.execute(db);

  await sql`CREATE TABLE telemetry_records (
    LIKE telemetry_records_legacy INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMMENTS
  ) PARTITION BY RANGE (received_at)`.execute(db);
  await sql`ALTER TABLE telemetry_records ADD CONSTRAINT telemetry_records_pkey PRIMARY KEY (seq, received_at)`.execute(
    db,
  );
  await sql`ALTER TABLE telemetry_records ADD CONSTRAINT telemetry_records_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants (id)`.execute(
    db,
  );
  // The sequence must outlive the old table once its partition is dropped.
  if (sequence.rows[0]?.name)
    await sql`ALTER SEQUENCE ${sql.raw(sequence.rows[0].name)} OWNED BY telemetry_records.seq`.execute(db);

  // The old key (seq) gives way to the parent's (seq, received_at), built on the old rows at attach.
  for (const index of indexes.rows.filter((row) => row.is_primary))
    await sql`ALTER TABLE telemetry_records_legacy DROP CONSTRAINT ${sql.id(suffixed(index.name, '_legacy'))}`.execute(
      db,
    );
  const now = Date.now();
  // Existing rows stay where they are, up to the end of the newest one's day (or today's, if that
  // is later); an empty log needs no catch-all: day partitions start today.
  const newestAt = newest.rows[0]?.at ?? null;
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const bound = newestAt === null ? today : Math.max(today, Math.floor(newestAt / DAY_MS) * DAY_MS) + DAY_MS;
  await sql`ALTER TABLE telemetry_records ATTACH PARTITION telemetry_records_legacy FOR VALUES FROM (MINVALUE) TO (${sql.lit(bound)})`.execute(
    db,
  );
  for (const index of indexes.rows) {
    if (index.is_primary) continue;
    // Unique indexes without the partition column cannot exist on the parent: kept as plain ones.
    const definition = index.definition
      .replace(/^CREATE UNIQUE INDEX/, 'CREATE INDEX')
      .replace(/ ON (ONLY )?\S*telemetry_records /, ' ON telemetry_records ');
    await sql.raw(definition).execute(db);
  }
  await sql`CREATE TABLE telemetry_records_default PARTITION OF telemetry_records DEFAULT`.execute(db);
  for (let day = bound; day < today + (DAYS_AHEAD + 1) * DAY_MS; day += DAY_MS) {
    const name = `telemetry_records_p${new Date(day).toISOString().slice(0, 10).replaceAll('-', '')}`;
    await sql`CREATE TABLE ${sql.id(name)} PARTITION OF telemetry_records FOR VALUES FROM (${sql.lit(day)}) TO (${sql.lit(day + DAY_MS)})`.execute(
      db,
    );
  }
}
