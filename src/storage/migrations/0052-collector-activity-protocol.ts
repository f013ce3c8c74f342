// Collector activity is counted per protocol too (`log_sink`, `otlp`, `hec`, `bulk`): Settings ›
// Collector tells a tenant which intake each sender uses. The protocol is part of the key, so the
// table is rebuilt (both databases the same way); rows counted before were all `/log_sink`'s.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE collector_activity_by_protocol (
    tenant_id BIGINT NOT NULL,
    hour BIGINT NOT NULL,
    protocol TEXT NOT NULL,
    user_agent TEXT NOT NULL,
    source_address TEXT NOT NULL,
    requests BIGINT NOT NULL,
    records BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, hour, protocol, user_agent, source_address)
  )`.execute(db);
  await sql`INSERT INTO collector_activity_by_protocol
    (tenant_id, hour, protocol, user_agent, source_address, requests, records, last_seen_at)
    SELECT tenant_id, hour, 'log_sink', user_agent, source_address, requests, records, last_seen_at
    FROM collector_activity`.execute(db);
  await sql`DROP TABLE collector_activity`.execute(db);
  await sql`ALTER TABLE collector_activity_by_protocol RENAME TO collector_activity`.execute(db);
}
